import pypto.language as pl


@pl.program
class RsqrtHp:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        # tensor.rsqrt stores high_precision as given when true: an int is not the declared bool
        y = pl.tensor.rsqrt(x, high_precision=1)
        return y
