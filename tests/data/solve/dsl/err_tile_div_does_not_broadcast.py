import pypto.language as pl

# tilemem test: tile.div does not broadcast: a [1, 16] divisor of a [16, 16] tile is rejected, unlike tile.add


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], xi: pl.Tensor[[64, 64], pl.INT32], xb: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a = pl.load(x, [0, 0], [16, 16])
        b = pl.load(x, [16, 0], [1, 16])
        r = pl.div(a, b)
        out = pl.store(r, [0, 0], out)
        return out
