import pypto.language as pl


@pl.program
class Sels:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[16, 64], pl.UINT8],
        out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]],
    ) -> pl.Tensor[[16, 64], pl.UINT8]:
        t = pl.load(a, [0, 0], [16, 64])
        r = pl.tile.sels(t, t, t, 3.0)
        out = pl.store(r, [0, 0], out)
        return out
