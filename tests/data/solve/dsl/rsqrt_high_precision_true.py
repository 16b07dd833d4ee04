import pypto.language as pl


@pl.program
class RsqrtTrue:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = pl.tensor.rsqrt(x, high_precision=True)
        return y
