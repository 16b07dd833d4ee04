import pypto.language as pl


@pl.program
class AssembleFresh:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, part: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)]]):
        r = pl.assemble(out, part, [0, 64])
        r2 = pl.tensor.assemble(r, part, [0, 0])
        return r2
