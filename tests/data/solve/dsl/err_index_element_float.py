import pypto.language as pl


@pl.program
class ReadIndex:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Scalar[pl.FP32]:
        v = pl.tensor.read(a, [0, 1.5])
        return v
