import pypto.language as pl


@pl.program
class OutDtypeMatching:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        lhs = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        rhs = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        # on tiles out_dtype may only restate the accumulator's dtype
        r = pl.matmul(lhs, rhs, out_dtype=pl.FP32)
        out = pl.store(r, [0, 0], out)
        return out
