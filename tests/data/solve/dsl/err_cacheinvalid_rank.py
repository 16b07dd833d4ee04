import pypto.language as pl


@pl.program
class CacheRank:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32]):
        pl.system.cacheinvalid(x, [16], [0, 0])
