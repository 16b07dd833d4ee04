import pypto.language as pl


@pl.program
class WarmL2:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, w: pl.Tensor[[1, 4096], pl.FP16], x: pl.Tensor[[16, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]) -> pl.Tensor[[16, 64], pl.FP16]:
        # start pulling w into L2, do other work, then wait for it
        ctx = pl.prefetch.make_context()
        evt = pl.prefetch.async_prefetch(w, ctx)
        t = pl.load(x, [0, 0], [16, 64])
        u = pl.mul(t, t)
        session = pl.prefetch.session(ctx)
        pl.prefetch.wait(evt, session)
        out = pl.store(u, [0, 0], out)
        return out
