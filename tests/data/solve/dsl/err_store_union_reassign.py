import pypto.language as pl


@pl.program
class StoreReassign:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.TensorView(valid_shape=[16, 64], stride=[], layout=pl.TensorLayout.ND)]]):
        t = pl.load(a, [0, 0], [16, 128])
        out = pl.store(t, [0, 0], out)
        return out
