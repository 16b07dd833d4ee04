# The stationary-operand hoist, hand-written: the caller passes a tensor it made with
# pl.create_tensor, so the loop-invariant Mat load of `lhs` may leave the loop.
import pypto.language as pl


@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        lhs: pl.Tensor[[16, 128], pl.BF16],
        rhs: pl.Tensor[[128, 256], pl.BF16],
        out: pl.Out[pl.Tensor[[16, 256], pl.FP32]],
    ) -> pl.Tensor[[16, 256], pl.FP32]:
        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):
            rhs_n = pl.load(rhs, [0, n], [128, 128], target_memory=pl.MemorySpace.Mat,
                            attrs={"__compiler_tensor_to_tile_mat_bridge": True})
            lhs_mat = pl.load(lhs, [0, 0], [16, 128], target_memory=pl.MemorySpace.Mat,
                              attrs={"__compiler_tensor_to_tile_mat_bridge": True})
            c_n = pl.matmul(lhs_mat, rhs_n)
            acc_next = pl.store(c_n, [0, n], acc)
            result = pl.yield_(acc_next)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, rhs: pl.Tensor[[128, 256], pl.BF16],
             out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        fresh_lhs = pl.create_tensor([16, 128], dtype=pl.BF16)
        result = self.kernel(fresh_lhs, rhs, out)
        return result
