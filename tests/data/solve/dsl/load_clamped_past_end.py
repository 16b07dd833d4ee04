import pypto.language as pl


@pl.program
class LoadClamp:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        # clamp=True narrows the read to the source edge instead
        x = pl.load(a, [48, 0], [32, 32], clamp=True)
        out = pl.store(x, [0, 0], out)
        return out
