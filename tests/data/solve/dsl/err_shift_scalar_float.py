import pypto.language as pl


@pl.program
class ShiftScalar:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]:
        x = pl.load(a, [0, 0], [16, 16])
        y = pl.tile.shls(x, 1.5)
        out = pl.store(y, [0, 0], out)
        return out
