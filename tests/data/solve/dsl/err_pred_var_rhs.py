import pypto.language as pl


@pl.program
class Pred:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], gate: pl.Tensor[[4], pl.INT32], ugate: pl.Tensor[[4], pl.UINT32], fgate: pl.Tensor[[4], pl.FP32], g2: pl.Tensor[[2, 2], pl.INT16], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        with pl.manual_scope():
            a, t1 = pl.submit(self.k, x, predicate=(gate[1] > n))
        return a
