import pypto.language as pl


@pl.program
class D:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[pl.dynamic("2M"), 16], pl.FP32]):
        return x
