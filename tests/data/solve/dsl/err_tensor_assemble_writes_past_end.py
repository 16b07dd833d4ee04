import pypto.language as pl


@pl.program
class TAsmPast:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        c = pl.assemble(a, b, [0, 20])
        return c
