import pypto.language as pl


@pl.program
class BadCreate:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32]):
        t = pl.tile.create([16, 0], dtype=pl.FP16)
