import pypto.language as pl


@pl.program
class SubscriptSlice:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], r: pl.Scalar[pl.INDEX]) -> pl.Tensor[[1, 64], pl.FP32]:
        row = x[4:5, :]
        return row
