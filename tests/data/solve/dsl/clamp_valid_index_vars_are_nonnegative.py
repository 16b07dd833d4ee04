import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        for i in pl.range(n):
            t = pl.load(x, [i * 64, 0], [64, 64], clamp=True)
            u = pl.load(x, [0, i * 64 + 8], [64, 64], clamp=True)
            v = pl.load(x, [64 - i, 0], [64, 64], clamp=True)
            out = pl.store(pl.add(pl.add(t, u), v), [0, 0], out)
        return out
