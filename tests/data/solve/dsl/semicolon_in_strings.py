import pypto.language as pl

# tilemem test: a ';' inside a docstring, a bare string and a comment separates nothing; a bare string and pass between ';' statements


@pl.program
class SemiString:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        """Load; exponentiate; store."""
        x = pl.load(a, [0, 0], [16, 128]); "a; bare string"; y = pl.exp(x)  # note; with a semicolon
        out = pl.store(y, [0, 0], out); pass; return out
