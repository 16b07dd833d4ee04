import pypto.language as pl


@pl.program
class TwoSplits:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [lane * 128, 0], [128, 64])
                out = pl.store(t, [lane * 128, 0], out)
        return out
