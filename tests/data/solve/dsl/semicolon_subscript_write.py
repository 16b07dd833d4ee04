import pypto.language as pl

# tilemem test: subscript writes (read from their Python text) after a ';' and in a one-line if body


@pl.program
class SemiOpaque:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16]); y = pl.load(a, [0, 0], [8, 8]); x[0:8, 8:16] = y; z = pl.exp(x)
        if True: x[8:16, 0:8] = y; w = pl.add(x, z)
        out = pl.store(w, [0, 0], out)
        return out
