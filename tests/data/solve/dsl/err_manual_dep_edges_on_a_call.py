import pypto.language as pl


@pl.program
class EdgesOnCall:
    @pl.function(type=pl.FunctionType.InCore)
    def k1(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.manual_scope():
            a, a_tid = pl.submit(self.k1, x)
            b = self.k1(a, attrs={"manual_dep_edges": [a_tid]})
        return b
