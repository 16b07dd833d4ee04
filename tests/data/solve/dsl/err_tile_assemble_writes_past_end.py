import pypto.language as pl


@pl.program
class AsmPast:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        x = pl.load(a, [0, 0], [32, 32])
        y = pl.load(b, [0, 0], [16, 16])
        z = pl.tile.assemble(x, y, [24, 0])
        out = pl.store(z, [0, 0], out)
        return out
