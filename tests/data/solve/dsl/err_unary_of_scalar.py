import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        e = pl.exp(n)
        return a
