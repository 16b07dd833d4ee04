import pypto.language as pl


@pl.program
class ShapedPop:
    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        buf = pl.reserve_buffer(name="c2v", size=8192, base=0x2000)
        pl.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024)
        # given its shape, the pop is built without the registry: its keywords are kept as written
        t0 = pl.tpop_from_aic(shape=[16, 16], dtype=pl.FP32, split=0, id="first")
        pl.tfree_to_aic(t0, split=0)
        t1 = pl.tpop_from_aic(shape=[16, 16], dtype=pl.FP32, split=1.5)
        pl.tfree_to_aic(t1, split=0)
        return pl.store(t1, [0, 0], out)
