import pypto.language as pl


@pl.program
class Mr:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef("buf", slots=2)[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        t1: pl.Tile[[64, 64], pl.FP32, pl.MemRef("buf", slots=2)[1], pl.Mem.Vec] = pl.exp(t0)
        t2: pl.Tile[[64, 64], pl.FP32, pl.MemRef("mem_vec_0", 4 * 4096, 16384), pl.Mem.Vec] = pl.exp(t1)
        return pl.store(t2, [0, 0], out)
