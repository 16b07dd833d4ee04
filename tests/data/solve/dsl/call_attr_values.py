import pypto.language as pl


@pl.program
class CallAttrs:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], y: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], y: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX], gate: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[16], pl.FP32]:
        self.k(x, y, n, attrs={"a": 1, "b": 2.5, "c": True, "d": 'it"s', "f": [x, y], "g": pl.Mem.Vec, "h": gate[0] > 0, "i": n + 1, "j": [], "k": x, "l": pl.FP16, "m": [pl.adir.input, pl.adir.no_dep], "o": -3, "p": 1e-5})
        with pl.manual_scope():
            z, t = pl.submit(self.k, x, y, n, attrs={"h": gate[0] >= 1, "i": n * 2})
        return x
