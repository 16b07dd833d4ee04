import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], s: pl.Scalar[pl.INT32]) -> pl.Tensor[[16], pl.FP32]:
        y = pl.tensor.dim(s, 0)
        return x
