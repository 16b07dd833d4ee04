import pypto.language as pl
import pypto.language.distributed as pld

# tilemem test: which pl.dynamic symbols PyPTO's printer declares -- not one read only by a
# DistributedTensor (NR), not one a scalar parameter has become (M in `scale`), but one a
# tensor parameter's valid shape reads after that (V in `masked`) and a free one (K)
# (expected outputs: PyPTO's)

NR = pl.dynamic("NR")
M = pl.dynamic("M")
V = pl.dynamic("V")
K = pl.dynamic("K")


@pl.program
class DynSymbols:
    @pl.function(type=pl.FunctionType.InCore)
    def touch(self, signal: pld.DistributedTensor[[NR, 1], pl.INT32], out: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 1], pl.INT32]:
        val: pl.Scalar[pl.INT32] = pl.read(signal, [0, 0])
        pl.write(out, [0, 0], val)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: pl.Tensor[[128, 128], pl.FP32], M: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t = pl.load(a, [0, 0], [128, 128], valid_shape=[M, 128])
        u = pl.add(t, t)
        return pl.store(u, [0, 0], out)

    @pl.function(type=pl.FunctionType.InCore)
    def masked(
        self,
        V: pl.Scalar[pl.INDEX],
        a: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[V, 64], layout=pl.TensorLayout.ND)],
        b: pl.Tensor[[K, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        return pl.store(t, [0, 0], out)
