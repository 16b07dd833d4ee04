import pypto.language as pl


@pl.program
class CallAttrs:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], y: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]):
        pass

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], y: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX], gate: pl.Tensor[[1], pl.INT32]):
        self.k(x, y, n, attrs={"arg_directions": [pl.adir.input, 1, pl.adir.scalar]})
