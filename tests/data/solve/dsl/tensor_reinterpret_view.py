import pypto.language as pl


@pl.program
class TensorReinterpret:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 16], pl.FP32], y: pl.Tensor[[4, 64], pl.BF16]) -> pl.Tensor[[8, 32], pl.INT16]:
        # the same bytes: the contiguous (last) axis rescaled by the byte ratio
        a = pl.tensor.reinterpret_view(x, pl.INT16)
        b = pl.reinterpret_view(y, pl.FP32)
        # or an explicit shape of the same byte size
        c = pl.tensor.reinterpret_view(x, pl.UINT8, shape=[512])
        return a
