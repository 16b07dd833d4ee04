import pypto.language as pl


@pl.program
class BadOutDtype:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16]):
        lhs = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        rhs = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        r = pl.matmul(lhs, rhs, out_dtype=pl.FP16)
