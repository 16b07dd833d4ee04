import pypto.language as pl


@pl.program
class AssembleGrows:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, part: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.TensorView(valid_shape=[16, 64], stride=[], layout=pl.TensorLayout.ND)]]):
        r = pl.assemble(out, part, [0, 64])
        return r
