import pypto.language as pl


@pl.program
class TransKind:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP32]:
        # tensor.matmul stores b_trans as given: an int where the registry declares a bool
        c = pl.matmul(a, b, b_trans=1)
        return c
