import pypto.language as pl


@pl.program
class Kwarg:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        x = pl.load(a, [0, 0], [16, 16], target_mem=pl.MemorySpace.Mat)
        return pl.store(x, [0, 0], out)
