import pypto.language as pl

# tilemem test: allocations declared around the program (NAME = pl.MemRef(...)) named in
# Tile annotations, bare or one slot of them (a constant, a loop var's expression -- by
# the var's printed name -- a named constant index, slots written as an expression); an
# unnamed declaration is named after its variable, a named one keeps its own name
# (expected outputs: PyPTO's)

ping = pl.MemRef()
buf = pl.MemRef(slots=2)
many = pl.MemRef(slots=2 ** 3)
named = pl.MemRef("scratch", slots=4)
LAST = 3


@pl.program
class Declared:
    @pl.function
    def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, ping, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        t1: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.exp(t0)
        t2: pl.Tile[[64, 64], pl.FP32, buf, pl.Mem.Vec] = pl.exp(t1)
        t3: pl.Tile[[64, 64], pl.FP32, many[7], pl.Mem.Vec] = pl.exp(t2)
        t4: pl.Tile[[64, 64], pl.FP32, named[LAST], pl.Mem.Vec] = pl.exp(t3)
        for i in pl.range(2):
            x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            pl.store(x, [0, 0], out)
        for i in pl.range(4):
            t: pl.Tile[[64, 64], pl.FP32, buf[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            pl.store(t, [0, 0], out)
        return pl.store(t4, [0, 0], out)
