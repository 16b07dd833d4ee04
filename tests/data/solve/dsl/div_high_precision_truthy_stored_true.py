import pypto.language as pl


@pl.program
class DivHp:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16])
        # `{"high_precision": True} if high_precision else {}`: any true value is stored as True
        y = pl.tile.div(x, x, high_precision=1)
        out = pl.store(y, [0, 0], out)
        return out
