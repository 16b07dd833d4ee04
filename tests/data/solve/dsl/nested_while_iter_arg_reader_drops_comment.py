import pypto.language as pl

# tilemem test: a pl.while_ nested in a pl.while_ whose init is the outer iter-arg: the inner
# iter-arg is re-created too, so a statement reading it loses its comment.


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], trips: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c = pl.load(x, [0, 0], [16, 16])
        for (it, n) in pl.while_(init_values=(c, 0)):
            pl.cond(n < trips)
            for (it2, m) in pl.while_(init_values=(it, 0)):
                pl.cond(m < trips)
                a: pl.Tile[[16, 16], pl.FP32] = it2  # alias of an inner iter arg
                m2: pl.Scalar[pl.INDEX] = m + 1
                r2, m3 = pl.yield_(it2, m2)
            e = pl.exp(r2)
            n2: pl.Scalar[pl.INDEX] = n + 1
            r, n3 = pl.yield_(e, n2)
        out = pl.store(r, [0, 0], out)
        return out

    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], trips: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = pl.create_tensor([16, 16], dtype=pl.FP32)
        return self.k(x, trips, out)
