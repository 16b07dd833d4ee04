import pypto.language as pl


@pl.program
class Typo:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        x = pl.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        y = pl.tile.matmull(x, x)
        return pl.store(y, [0, 0], out)
