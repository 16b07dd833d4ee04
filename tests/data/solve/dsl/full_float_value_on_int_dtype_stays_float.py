import pypto.language as pl


@pl.program
class F:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]:
        t = pl.tile.full([16, 16], dtype=pl.INT32, value=1e309)
        out = pl.store(t, [0, 0], out)
        return out
