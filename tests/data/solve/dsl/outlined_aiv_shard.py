import pypto.language as pl


@pl.program
class Outlined:
    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
    def lane(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [128, 64])
        # the outlined form: the split travels on the op, no pl.split_aiv loop around it
        half = pl.tile.aiv_shard(t, split=1, lane_stride=64)
        r = pl.tile.adds(half, 1.0)
        return pl.store(r, [0, 0], out)
