import pypto.language as pl


@pl.program
class ExtractIdx:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        m = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        l = pl.tile.extract(m, 0, 0.5, [16, 16], target_memory=pl.MemorySpace.Left)
        out = pl.store(l, [0, 0], out)
        return out
