import pypto.language as pl


@pl.program
class TensorViews:
    @pl.function(type=pl.FunctionType.Orchestration)
    def views(self, data: pl.Tensor[[4, 16, 8], pl.FP16],
              part: pl.Tensor[[32, 32], pl.FP32, pl.TensorView(stride=[32, 1], layout=pl.TensorLayout.ND,
                                                                valid_shape=[20, 32])]) -> pl.Tensor[[16, 32], pl.FP32]:
        flat = pl.tensor.view(data, [64, 8])          # canonical strides of the new shape
        t = pl.transpose(data, axis1=1, axis2=2)      # trailing swap: DN, strides swapped
        back = pl.transpose(t, axis1=True, axis2=2)                  # row-major again: no view
        outer = pl.transpose(data, 0, 1)              # not trailing: ND with strides
        lower = part[16:32, 0:32]                     # valid where the source is: 4 rows
        filled = pl.fillpad(lower, 0)                 # valid everywhere again
        wide = pl.fillpad_expand(lower, [16, 64], pad_value=pl.PadValue.max)
        return filled
