import pypto.language as pl


@pl.program
class Prefetch2D:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, w: pl.Tensor[[16, 64], pl.FP16]):
        ctx = pl.prefetch.make_context()
        evt = pl.prefetch.async_prefetch(w, ctx)
