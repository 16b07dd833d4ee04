import pypto.language as pl


@pl.program
class RowSumTmp:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16])
        tmp = pl.tile.create([16, 16], dtype=pl.FP16)
        s = pl.tile.row_sum(x, tmp)
        out = pl.store(s, [0, 0], out)
        return out
