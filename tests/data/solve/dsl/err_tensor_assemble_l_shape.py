import pypto.language as pl


@pl.program
class AssembleL:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, part: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 128], pl.FP32, pl.TensorView(valid_shape=[8, 64], stride=[], layout=pl.TensorLayout.ND)]]):
        r = pl.assemble(out, part, [8, 64])
        return r
