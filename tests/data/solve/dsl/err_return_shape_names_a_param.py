import pypto.language as pl


@pl.program
class ReturnShape:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[n, 64], pl.FP32]:
        return a
