import pypto.language as pl

# tilemem test: attrs keys and string values print as PyPTO's std::quoted writes them: double
# quotes, a backslash before each backslash and double quote, control characters as they are


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        e = pl.exp(t, attrs={"k\\ey": 'v"a\\l', 'q"k': "x", "t\tab": 1})
        out = pl.store(e, [0, 0], out)
        return out
