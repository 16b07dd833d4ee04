import pypto.language as pl


@pl.program
class UnshapedPop:
    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        buf = pl.reserve_buffer(name="c2v", size=8192, base=0x2000)
        pl.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024)
        t0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split="x")
        pl.tfree_to_aic(t0, split=0)
        return pl.store(t0, [0, 0], out)
