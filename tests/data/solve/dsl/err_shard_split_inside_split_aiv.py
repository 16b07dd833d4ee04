import pypto.language as pl


@pl.program
class SplitTwice:
    @pl.function(type=pl.FunctionType.InCore)
    def lane(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.load(a, [0, 0], [128, 64])
            half = pl.tile.aiv_shard(t, split=1)
            out = pl.store(half, [0, 0], out)
        return out
