import pypto.language as pl


@pl.program
class Spmd:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], f: pl.Scalar[pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.spmd(-3):
            y = self.k(x)
        return x
