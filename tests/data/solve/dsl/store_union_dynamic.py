import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class StoreDyn:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 256], pl.FP32, pl.TensorView(valid_shape=[16, N], stride=[], layout=pl.TensorLayout.ND)]]):
        t = pl.load(a, [0, 0], [16, 64])
        res = pl.store(t, [0, 0], out)
        return res
