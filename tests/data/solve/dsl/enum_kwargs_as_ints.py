import pypto.language as pl


@pl.program
class EnumInts:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        # the registry keeps PipeType / AtomicType as ints: an int is the member of that value
        pl.system.sync_set(event_id=3, pipe=1)
        pl.system.sync_wait(event_id=3, pipe=7)
        t = pl.load(x, [0, 0], [16, 16])
        out = pl.store(t, [0, 0], out, atomic=1)
        out = pl.store(t, [0, 0], out, atomic=True)
        out = pl.store(t, [0, 0], out, atomic=0)
        return out
