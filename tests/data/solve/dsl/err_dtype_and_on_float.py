import pypto.language as pl


@pl.program
class AndOnFloat:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        x = pl.load(a, [0, 0], [16, 64])
        y = pl.tile.and_(x, x)
        return pl.store(y, [0, 0], out)
