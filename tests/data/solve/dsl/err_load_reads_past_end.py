import pypto.language as pl


@pl.program
class LoadPast:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        # rows 48..79 of a 64-row tensor: PyPTO proves the read leaves the source
        x = pl.load(a, [48, 0], [32, 32])
        out = pl.store(x, [0, 0], out)
        return out
