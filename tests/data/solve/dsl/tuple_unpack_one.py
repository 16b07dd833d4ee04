import pypto.language as pl


@pl.program
class Unpack:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
        m, = (n,)
        (k,) = [n + 1]
        p, q = (m, k)
        return a
