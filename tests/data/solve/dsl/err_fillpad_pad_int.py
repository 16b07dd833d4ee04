import pypto.language as pl


@pl.program
class Pad:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        y: pl.Tensor[[8, 32], pl.FP32] = pl.fillpad(x, 7)
        return y
