import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[2, 4], pl.FP32], src: pl.Tensor[[8, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.scatter_update(x, -2, idx, src)
        return y
