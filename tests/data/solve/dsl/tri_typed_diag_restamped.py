import pypto.language as pl


@pl.program
class TriTyped:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]:
        t = pl.tile.tri(pl.const(1, pl.INT64), [16, 16])
        out = pl.store(t, [0, 0], out)
        return out
