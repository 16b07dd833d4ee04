import pypto.language as pl


@pl.program
class BadRandom:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 256], pl.INT32]):
        a = pl.random(1, 2, 3, 4, 5, 6, [2, 4, 256])
