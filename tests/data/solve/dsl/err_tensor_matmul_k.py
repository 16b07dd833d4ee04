import pypto.language as pl


@pl.program
class TensorMatmulK:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 16, 32], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16]) -> pl.Tensor[[4, 16, 64], pl.FP16]:
        c = pl.matmul(a, b)
        return c
