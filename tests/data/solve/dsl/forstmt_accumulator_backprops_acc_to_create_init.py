import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case forstmt_accumulator_backprops_acc_to_create_init_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self,
        lhs: pl.Tensor[[16, 32], pl.BF16],
        rhs: pl.Tensor[[32, 16], pl.BF16],
        out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        acc0 = pl.create_tile([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        lhs_m: pl.Tile[[16, 32], pl.BF16] = pl.load(lhs, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        rhs_m = pl.load(rhs, [0, 0], [32, 16], target_memory=pl.MemorySpace.Mat)
        lhs_l = pl.move(lhs_m, target_memory=pl.Mem.Left)
        rhs_r = pl.move(rhs_m, target_memory=pl.Mem.Right)
        for i, (acc,) in pl.range(4, init_values=(acc0,)):
            acc_next: pl.Tile[[16, 16], pl.FP32] = pl.matmul_acc(acc, lhs_l, rhs_r)
            r = pl.yield_(acc_next)
        out_0: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], out_0)
        return out_0
        # a comment at the tail of a block is dropped (PyPTO warns about it)

    @pl.function
    def main(
        self,
        lhs: pl.Tensor[[16, 32], pl.BF16],
        rhs: pl.Tensor[[32, 16], pl.BF16],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        out_0: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
        return self.main_incore_0(lhs, rhs, out_0)
