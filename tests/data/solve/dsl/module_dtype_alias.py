import pypto.language as pl

# tilemem test: dtype aliases at module level (DT = pl.DataType.FP16, F32 = pl.FP32) are names PyPTO
# resolves in annotations, positional op arguments and keywords (expected outputs: PyPTO's)

DT = pl.DataType.FP16
N = 64
F32 = pl.FP32


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[N], DT], out: pl.Out[pl.Tensor[[N], pl.FP32]]) -> pl.Tensor[[N], pl.FP32]:
        t = pl.load(x, [0], [N])
        u = pl.cast(t, pl.FP32)
        v = pl.cast(u, DT)
        w = pl.cast(v, target_type=pl.FP32)
        out = pl.store(w, [0], out)
        return out

    @pl.function
    def main(self, x: pl.Tensor[[N], DT]) -> pl.Tensor[[N], pl.FP32]:
        out: pl.Tensor[[N], pl.FP32] = pl.create_tensor([N], dtype=F32)
        y = self.k(x, out)
        return y
