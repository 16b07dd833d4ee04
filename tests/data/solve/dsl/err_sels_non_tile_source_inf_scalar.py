import pypto.language as pl

# tilemem test: pl.tile.sels with a non-tile source and an infinite scalar: there is no dtype to
# re-stamp the scalar to, so the source check rejects it (the re-stamp crashed on int(inf): long
# fuzz run on 7767462, seeds 80000001 and 80100001)


@pl.program
class Sels:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[16, 64], pl.UINT8],
        out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]],
    ) -> pl.Tensor[[16, 64], pl.UINT8]:
        t = pl.load(a, [0, 0], [16, 64])
        r = pl.tile.sels(t, [[1]], t, 1e309)
        out = pl.store(r, [0, 0], out)
        return out
