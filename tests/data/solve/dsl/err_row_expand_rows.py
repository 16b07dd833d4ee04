import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], r: pl.Tensor[[8, 1], pl.FP32]):
        t = pl.load(a, [0, 0], [16, 64])
        v = pl.load(r, [0, 0], [8, 1])
        c = pl.tile.row_expand_mul(t, v)
