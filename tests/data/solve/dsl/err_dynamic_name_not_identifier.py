import pypto.language as pl

M = pl.dynamic("(M")


@pl.program
class D:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, 16], pl.FP32]):
        return x
