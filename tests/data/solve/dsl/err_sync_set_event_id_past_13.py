import pypto.language as pl

# tilemem test: a cross-core event id must lie in the user-available range [0, 13]
# (sync_ops/cross_core.cpp; ranges.txt): 14 is an error


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        pl.system.sync_set(event_id=14, pipe=pl.PipeType.MTE3, ffts_mode=1)
        pl.system.sync_wait(event_id=3, pipe=pl.PipeType.MTE2)
        return x
