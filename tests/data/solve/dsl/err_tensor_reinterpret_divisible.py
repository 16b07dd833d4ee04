import pypto.language as pl


@pl.program
class BadReinterpret:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 6], pl.INT8]) -> pl.Tensor[[8, 6], pl.INT8]:
        a = pl.tensor.reinterpret_view(x, pl.FP32)
        return x
