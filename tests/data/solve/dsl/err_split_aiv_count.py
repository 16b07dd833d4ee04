import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for aiv in pl.split_aiv(4, mode=pl.SplitMode.NONE):
            t = pl.load(a, [0, 0], [16, 64])
            o = pl.store(t, [0, 0], o)
        return o
