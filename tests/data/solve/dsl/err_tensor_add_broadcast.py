import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], b: pl.Tensor[[129, 64], pl.FP32]) -> pl.Tensor[[128, 64], pl.FP32]:
        c = pl.add(a, b)
        return c
