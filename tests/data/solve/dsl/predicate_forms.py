import pypto.language as pl


@pl.program
class Pred:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], gate: pl.Tensor[[4], pl.INT32], ugate: pl.Tensor[[4], pl.UINT32], fgate: pl.Tensor[[4], pl.FP32], g2: pl.Tensor[[2, 2], pl.INT16], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        with pl.manual_scope():
            a, t1 = pl.submit(self.k, x, predicate=(gate[1] > 0))
            b, t2 = pl.submit(self.k, a, deps=[t1], predicate=(0 < gate[n]))
            c, t3 = pl.submit(self.k, b, deps=[t2], predicate=(g2[1, 0] != 3))
        with pl.spmd(2, predicate=(gate[0] >= 1)):
            d = self.k(x)
        for i in pl.spmd(2, predicate=(gate[2] == 2)):
            e = self.k(x)
        return c
