import pypto.language as pl


@pl.program
class Tv:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        b: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(stride=[1.5, 1], layout=pl.TensorLayout.ND)] = pl.add(a, a)
        return b
