import pypto.language as pl


@pl.program
class LogOnBf16:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
        x = pl.load(a, [0, 0], [16, 64])
        # tile.log takes FP16 or FP32 only
        y = pl.log(x)
        return pl.store(y, [0, 0], out)
