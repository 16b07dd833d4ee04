import pypto.language as pl

x = pl.MemRef("same")
y = pl.MemRef("same")


@pl.program
class Bad:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, x, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        t1: pl.Tile[[64, 64], pl.FP32, y, pl.Mem.Vec] = pl.exp(t0)
        return pl.store(t1, [0, 0], out)
