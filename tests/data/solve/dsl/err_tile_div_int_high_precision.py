import pypto.language as pl

# tilemem test: tile.div high_precision=True only for FP16/FP32


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], xi: pl.Tensor[[64, 64], pl.INT32], xb: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a = pl.load(xi, [0, 0], [16, 16])
        b = pl.load(xi, [16, 0], [16, 16])
        r0 = pl.div(a, b, high_precision=True)
        r = pl.cast(r0, pl.FP32)
        out = pl.store(r, [0, 0], out)
        return out
