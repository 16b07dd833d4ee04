import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case divergent_branch_spaces_leave_the_phi_unrecorded_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self,
        x: pl.Tensor[[16, 128], pl.BF16],
        y: pl.Tensor[[128, 128], pl.BF16],
        z: pl.Tensor[[16, 128], pl.FP32],
        flag: pl.Scalar[pl.INDEX],
        out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        xt = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
        yt: pl.Tile[[128, 128], pl.BF16] = pl.load(y, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        zt: pl.Tile[[16, 128], pl.FP32] = pl.load(z, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        if flag < 1:
            a = pl.matmul(xt, yt)
            phi = pl.yield_(a)
        else:
            b = pl.add(zt, zt)
            phi = pl.yield_(b)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.store(phi, [0, 0], out_0)
        return out_0
        # a comment at the tail of a block is dropped (PyPTO warns about it)

    @pl.function
    def main(
        self,
        x: pl.Tensor[[16, 128], pl.BF16],
        y: pl.Tensor[[128, 128], pl.BF16],
        z: pl.Tensor[[16, 128], pl.FP32],
        flag: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.create_tensor([16, 128], dtype=pl.FP32)
        return self.main_incore_0(x, y, z, flag, out_0)
        # a comment at the tail of a block is dropped (PyPTO warns about it)
