import pypto.language as pl

M = pl.dynamic("M")


@pl.program
class SplitShapes:
    """pl.aiv_shard / pl.aic_gather on tensors: the split axis is halved (ceil) or doubled,
    and the valid shape goes with it (ceil half of a partial row extent; doubled on gather);
    a NONE region keeps the operand's type, a partial column extent is fine under UP_DOWN
    when the rows are full."""

    @pl.function
    def rows(self, x: pl.Tensor[[127, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.set_validshape(x, 101, 128)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                res = pl.aiv_shard(v)
        return res

    @pl.function
    def cols_full_rows(self, x: pl.Tensor[[128, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.set_validshape(x, 128, 64)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                res = pl.aiv_shard(v)
        return res

    @pl.function
    def gather(self, x: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.set_validshape(x, 50, 100)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                res = pl.aic_gather(v)
        return res

    @pl.function
    def task_parallel(self, x: pl.Tensor[[128, 128], pl.FP32]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.set_validshape(x, 100, 64)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                res = pl.aiv_shard(v)
        return res

    @pl.function
    def dynamic_rows(self, x: pl.Tensor[[M, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[M, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.set_validshape(x, n, 128)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                res = pl.aiv_shard(v)
                g = pl.aic_gather(res)
        return g
