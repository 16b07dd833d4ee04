import pypto.language as pl


@pl.program
class MrgTyped:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 256], pl.FP32], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        x = pl.load(a, [0, 0], [1, 256])
        m = pl.tile.mrgsort(x, block_len=pl.const(64, pl.INT64))
        out = pl.store(m, [0, 0], out)
        return out
