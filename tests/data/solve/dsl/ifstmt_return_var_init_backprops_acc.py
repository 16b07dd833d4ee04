import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case ifstmt_return_var_init_backprops_acc_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self,
        x: pl.Tensor[[16, 16], pl.FP32],
        lhs: pl.Tensor[[16, 32], pl.BF16],
        rhs: pl.Tensor[[32, 16], pl.BF16],
        flag: pl.Scalar[pl.INT32],
        out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        lhs_m: pl.Tile[[16, 32], pl.BF16] = pl.load(lhs, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        rhs_m = pl.load(rhs, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        lhs_l = pl.move(lhs_m, target_memory=pl.Mem.Left)
        rhs_r = pl.move(rhs_m, target_memory=pl.MemorySpace.Right)
        if pl.cast(flag, pl.INDEX) > 0:
            a = pl.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
            sel = pl.yield_(a)
        else:
            b = pl.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            sel = pl.yield_(b)
        for i, (acc,) in pl.range(4, init_values=(sel,)):
            acc_next: pl.Tile[[16, 16], pl.FP32] = pl.matmul_acc(acc, lhs_l, rhs_r)
            r = pl.yield_(acc_next)
        out_0: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], out_0)
        return out_0
        # a comment at the tail of a block is dropped (PyPTO warns about it)

    @pl.function
    def main(
        self,
        x: pl.Tensor[[16, 16], pl.FP32],
        lhs: pl.Tensor[[16, 32], pl.BF16],
        rhs: pl.Tensor[[32, 16], pl.BF16],
        flag: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        out_0: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
        return self.main_incore_0(x, lhs, rhs, flag, out_0)
