import pypto.language as pl


@pl.program
class LoadSym:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        # an offset that stays symbolic is the operator's precondition, taken on trust
        for i in pl.range(0, 64, 32):
            x = pl.load(a, [i, 0], [32, 64])
            out = pl.store(x, [i, 0], out)
        return out
