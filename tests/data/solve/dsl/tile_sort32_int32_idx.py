import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], xi: pl.Tensor[[16, 16], pl.INT32], xh: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 16])
        ai = pl.tile.load(xi, [0, 0], [16, 16])
        ah = pl.tile.load(xh, [0, 0], [16, 16])
        r = pl.tile.sort32(a, ai)
        return out
