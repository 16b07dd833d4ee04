import pypto.language as pl


@pl.program
class RowExpandAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], xi: pl.Tensor[[16, 8], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 16])
        ai = pl.tile.load(xi, [0, 0], [16, 8])
        r = pl.tile.row_expand_add(a, ai)
        return out
