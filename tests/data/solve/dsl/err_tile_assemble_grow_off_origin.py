import pypto.language as pl

# tilemem test: a tile.assemble growing dim 1 must start dim 0 at the origin


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], xi: pl.Tensor[[64, 64], pl.INT32], xb: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [32, 64], [16, 32])
        b = pl.load(x, [16, 0], [8, 48])
        r = pl.tile.assemble(a, b, [8, 16])
        out = pl.store(r, [0, 0], out)
        return out
