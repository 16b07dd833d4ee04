import pypto.language as pl


@pl.program
class WriteDt:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16], pl.FP16]) -> pl.Tensor[[16], pl.FP16]:
        x = pl.tensor.write(x, [0], 1.5)
        return x
