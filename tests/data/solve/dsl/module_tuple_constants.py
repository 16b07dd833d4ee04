import pypto.language as pl

# tilemem test: names bound as Python binds them around a program -- a tuple target
# (M, K = 16, 64), a chained one (TR = TC = 16), a list constant unpacked (R, C = SHAPE),
# values read before any name is bound (M, K = K, M swaps) -- and a name bound only
# after the class is not seen (N below); expected outputs: PyPTO's

SHAPE = [16, 64]
M, K = 16, 64
TR = TC = 16
R, C = SHAPE
M, K = K, M


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[K, M], pl.FP32], out: pl.Out[pl.Tensor[[TR, C], pl.FP32]]) -> pl.Tensor[[TR, C], pl.FP32]:
        t = pl.load(x, [0, 0], [TC, C])
        out = pl.store(t, [0, 0], out)
        return out


N = 8
