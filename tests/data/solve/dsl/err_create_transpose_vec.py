import pypto.language as pl


@pl.program
class TransposeVec:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.tile.create([16, 64], dtype=pl.FP32, transpose=True)
        return pl.store(t, [0, 0], out)
