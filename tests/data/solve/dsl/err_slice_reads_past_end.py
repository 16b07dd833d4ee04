import pypto.language as pl


@pl.program
class SlicePast:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 8], pl.FP32]:
        s = pl.slice(a, [16, 8], [0, 12])
        return s
