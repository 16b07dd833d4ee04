import pypto.language as pl

M = pl.dynamic("M")


@pl.program
class Conflict:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 16], pl.FP32], b: pl.Tensor[[16, M], pl.FP32]) -> pl.Tensor[[M, 16], pl.FP32]:
        return a

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 16], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        r = self.k(x, y)
        return r
