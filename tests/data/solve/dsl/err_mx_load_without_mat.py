import pypto.language as pl


@pl.program
class MxScale:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: pl.Tensor[[4, 64], pl.FP8E8M0, pl.TensorView(stride=[], layout=pl.TensorLayout.MX_B_NN)], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
        t = pl.load(s, [0, 0], [4, 64])
        return out
