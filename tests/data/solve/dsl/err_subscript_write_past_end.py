import pypto.language as pl


@pl.program
class SubscriptWrite:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], y: pl.Tensor[[2, 64], pl.FP32]) -> pl.Tensor[[4, 64], pl.FP32]:
        x[3:5, :] = y
        return x
