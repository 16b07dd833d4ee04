import pypto.language as pl

# tilemem test: a statement wrapped over lines after a ';' and before one: each comment goes to the statement whose lines hold it


@pl.program
class SemiEdge:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 128]); y = pl.exp(  # first
            x)  # second
        z = pl.add(  # third
            x, y); w = pl.mul(z, z)  # fourth
        out = pl.store(w, [0, 0], out)
        return out
