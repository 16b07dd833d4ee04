import pypto.language as pl


@pl.program
class BadCoalesce:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, mem: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[1, 16], pl.INT32]):
        idx_tile = pl.load(idx, [0, 0], [1, 16])
        g = pl.tile.mgather(mem, idx_tile, coalesce="column")
