import pypto.language as pl


@pl.program
class Launch:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        o = pl.store(t, [0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.manual_scope():
            with pl.scope(mode=pl.ScopeMode.Bogus):
                o = self.kern(a, o)
        return o
