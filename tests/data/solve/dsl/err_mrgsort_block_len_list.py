import pypto.language as pl


@pl.program
class MrgList:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 256], pl.FP32], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        x = pl.load(a, [0, 0], [1, 256])
        m = pl.tile.mrgsort(x, block_len=[64])
        out = pl.store(m, [0, 0], out)
        return out
