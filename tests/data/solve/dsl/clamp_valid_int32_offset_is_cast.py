import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, 64], pl.FP32], r: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(x, [r, 0], [64, 64], clamp=True)
        u = pl.load(x, [0, r], [64, 64], clamp=True)
        return pl.store(pl.add(t, u), [0, 0], out)
