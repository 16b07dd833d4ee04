import pypto.language as pl


@pl.program
class OneSlot:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        t1: pl.Tile[[64, 64], pl.FP32, pl.MemRef("stage", slots=2)[2], pl.Mem.Vec] = pl.exp(t0)
        out = pl.store(t1, [0, 0], out)
        return out
