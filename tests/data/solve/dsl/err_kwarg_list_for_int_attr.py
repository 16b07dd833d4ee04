import pypto.language as pl


@pl.program
class RoundsKind:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, out: pl.Out[pl.Tensor[[16, 16], pl.UINT32]]) -> pl.Tensor[[16, 16], pl.UINT32]:
        r = pl.tile.random(1, 2, 3, 4, 5, 6, [16, 16], rounds=[7])
        out = pl.store(r, [0, 0], out)
        return out
