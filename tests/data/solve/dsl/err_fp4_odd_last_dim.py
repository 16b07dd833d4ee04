import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 63], pl.FP4]) -> pl.Tensor[[16, 63], pl.FP4]:
        return a
