import pypto.language as pl


@pl.program
class TensorShard:
    @pl.function(type=pl.FunctionType.InCore)
    def lane(self, a: pl.Tensor[[128, 64], pl.FP32]) -> pl.Tensor[[128, 64], pl.FP32]:
        half = pl.aiv_shard(a, split=1)
        return a
