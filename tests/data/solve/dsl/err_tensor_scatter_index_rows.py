import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[4, 8], pl.INT32], src: pl.Tensor[[5, 8], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = pl.tensor.scatter(x, dim=-1, index=idx, src=src)
        return y
