import pypto.language as pl

# tilemem test: 2**63 is one past int64: rejected (it was read as an answer)


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[9223372036854775808, 64], pl.FP32], r: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(x, [r, 0], [64, 64], clamp=True)
        u = pl.load(x, [0, r], [64, 64], clamp=True)
        return pl.store(pl.add(t, u), [0, 0], out)
