import pypto.language as pl

# tilemem test: a statement reading a pl.while_ iter-arg is rebuilt by the pass (the iter-arg is
# re-created around its rebuilt init), so its comment goes; the return var is not re-created.


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], trips: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c = pl.load(x, [0, 0], [16, 16])
        for (it, n) in pl.while_(init_values=(c, 0)):
            pl.cond(n < trips)
            a: pl.Tile[[16, 16], pl.FP32] = it  # alias of an iter arg: dropped
            e = pl.exp(it)
            n2: pl.Scalar[pl.INDEX] = n + 1
            r, n3 = pl.yield_(e, n2)
        b: pl.Tile[[16, 16], pl.FP32] = r  # alias of the return var: kept
        out = pl.store(r, [0, 0], out)  # store of the return var: kept
        return out

    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], trips: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = pl.create_tensor([16, 16], dtype=pl.FP32)
        return self.k(x, trips, out)
