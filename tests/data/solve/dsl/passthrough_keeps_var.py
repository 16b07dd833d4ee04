import pypto.language as pl

# tilemem test: after the pass, a tile var assigned again from a call is a new Var (t_1) --
# except where the op's type is its argument's own and that argument is the var itself
# (t = pl.tile.write(t, ...), t = pl.tile.gather_row(t, ...)), in a loop or not (expected outputs: PyPTO's)


@pl.program
class Passthrough:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        t = pl.tile.write(t, [0, 0], 2.0)
        s: pl.Tile[[16, 64], pl.FP32] = pl.load(a, [0, 0], [16, 64])
        s = pl.tile.write(s, [0, 1], 2.0)
        u = pl.load(a, [0, 0], [16, 64])
        u = pl.tile.write(t, [0, 2], 3.0)
        src = pl.load(b, [0, 0], [64, 64])
        for i in pl.range(4):
            t = pl.tile.write(t, [0, i], 1.0)
            t = pl.tile.gather_row(t, b, [i, 0], [i, 0], [1, 64])
            s = pl.exp(s)
        o = pl.store(t, [0, 0], o)
        return o
