import pypto.language as pl


@pl.program
class LoadNeg:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        x = pl.load(a, [0, -16], [32, 32])
        out = pl.store(x, [0, 0], out)
        return out
