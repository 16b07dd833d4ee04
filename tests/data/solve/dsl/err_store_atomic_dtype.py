import pypto.language as pl


@pl.program
class BadAtomicStore:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.UINT8], out: pl.Out[pl.Tensor[[16, 16], pl.UINT8]]) -> pl.Tensor[[16, 16], pl.UINT8]:
        t = pl.load(x, [0, 0], [16, 16])
        out = pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
        return out
