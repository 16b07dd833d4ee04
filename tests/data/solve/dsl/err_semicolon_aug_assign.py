import pypto.language as pl

# tilemem test: an unsupported statement after a ';'


@pl.program
class SemiAug:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16]); n += 1
        out = pl.store(x, [0, 0], out)
        return out
