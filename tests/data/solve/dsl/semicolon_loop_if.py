import pypto.language as pl

# tilemem test: ';' statements in a loop body, in one-line loop and if/else bodies, and in a block after an if's and an else's header


@pl.program
class SemiLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 128])
        for i in pl.range(4):
            t = pl.add(x, x); u = pl.mul(t, t)  # in the loop
            out = pl.store(u, [0, 0], out)
        for j in pl.range(2): s = pl.exp(x); out = pl.store(s, [0, 0], out);
        if n > 0: p = pl.sub(x, x); out = pl.store(p, [0, 0], out)
        else: q = pl.exp(x); out = pl.store(q, [0, 0], out)
        if n > 1:
            k = pl.neg(x); out = pl.store(k, [0, 0], out)  # then
        else:
            m = pl.abs(x);  # else
            out = pl.store(m, [0, 0], out)
        return out
