import pypto.language as pl

LATE = pl.dynamic("LATE")


@pl.program
class Late:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[LATE, 64], layout=pl.TensorLayout.ND)],
        LATE: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        return pl.store(t, [0, 0], out)
