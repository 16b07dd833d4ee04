import pypto.language as pl


@pl.program
class CiCols:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, out: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        idx = pl.tile.ci(0, [1, 1], dtype=pl.INT32)
        return out
