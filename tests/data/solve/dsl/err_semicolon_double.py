import pypto.language as pl

# tilemem test: ';;' is a Python syntax error


@pl.program
class SemiDouble:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 128]);; y = pl.exp(x)
        out = pl.store(y, [0, 0], out)
        return out
