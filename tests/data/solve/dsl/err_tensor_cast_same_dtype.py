import pypto.language as pl


@pl.program
class P:
    @pl.function
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        a = pl.cast(x, pl.FP32)
        return a
