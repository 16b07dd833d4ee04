import pypto.language as pl

# tilemem test: an error in the second ';' statement of a one-line loop body


@pl.program
class SemiInline:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16])
        for i in pl.range(2): y = pl.exp(x); z = pl.add(x, y, 3)
        out = pl.store(x, [0, 0], out)
        return out
