import pypto.language as pl


@pl.program
class StoreIntoTile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 64])
        return pl.store(x, [0, 0], x)
