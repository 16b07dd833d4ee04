import pypto.language as pl

two = pl.MemRef(slots=2)


@pl.program
class Bad:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, two[1], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        t1: pl.Tile[[64, 64], pl.FP32, two[2], pl.Mem.Vec] = pl.exp(t0)
        return pl.store(t1, [0, 0], out)
