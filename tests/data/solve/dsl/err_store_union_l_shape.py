import pypto.language as pl


@pl.program
class StoreL:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[32, 128], pl.FP32, pl.TensorView(valid_shape=[8, 64], stride=[], layout=pl.TensorLayout.ND)]]):
        t = pl.load(a, [0, 0], [16, 64])
        res = pl.store(t, [8, 64], out)
        return res
