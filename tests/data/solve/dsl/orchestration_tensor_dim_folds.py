import pypto.language as pl

# tilemem test: in an Orchestration body, pl.tensor.dim(x, axis) of an extent that a tensor
# parameter's shape names as a symbol is that symbol (no read; the name it is assigned to
# is bound to it): constant, negative and named axes, the tensor= / axis= keywords, a name
# given the symbol itself; not pl.dim, not a static extent, not outside Orchestration
# (expected outputs: PyPTO's)

rows = pl.dynamic("ROWS")
cols = pl.dynamic("COLS")
AXIS = 1


@pl.program
class DimFold:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[rows, cols], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[rows, cols], pl.FP32]:
        m = pl.tensor.dim(x, 0)
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Tensor[[16, cols], pl.FP32]):
        r = pl.tensor.dim(x, 0)
        c: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, -1)
        c2 = pl.tensor.dim(tensor=x, axis=AXIS)
        s = pl.tensor.dim(y, 0)
        d = pl.dim(x, 0)
        alias = rows
        t = pl.create_tensor([r, c], dtype=pl.FP32)
        u = pl.create_tensor([alias, c2 + 1], dtype=pl.FP32)
        v = pl.create_tensor([s, d], dtype=pl.FP32)
        w = pl.create_tensor([pl.tensor.dim(x, 1), 8], dtype=pl.FP32)
        out = self.k(x, r)
        return out
