import pypto.language as pl

# tilemem test: a tuple unpacking and an annotated assignment after ';'


@pl.program
class SemiTuple:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16]); p, q = x, x; r: pl.Tile[[16, 16], pl.FP32] = pl.add(p, q)
        out = pl.store(r, [0, 0], out)
        return out
