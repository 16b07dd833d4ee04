import pypto.language as pl


@pl.program
class ViewNoLayout:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(stride=[16, 1])]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = pl.add(x, x)
        return y
