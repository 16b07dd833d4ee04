import pypto.language as pl


@pl.program
class CmpKind:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16])
        # the registry declares cmp_type an int: a float is rejected, not stored
        m = pl.tile.cmp(x, x, cmp_type=2.5)
        out = pl.store(x, [0, 0], out)
        return out
