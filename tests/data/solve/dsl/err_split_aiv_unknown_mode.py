import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[2, 128, 128], pl.FP32]) -> pl.Tensor[[1, 128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.store):
                res = pl.aiv_shard(x)
        return res
