import pypto.language as pl


@pl.program
class InitTrue:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(
        self,
        acc: pl.Tensor[[16, 16], pl.FP32],
        a: pl.Tensor[[16, 16], pl.FP16],
        b: pl.Tensor[[16, 16], pl.FP16],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        c = pl.matmul_acc(acc, a, b, init_cond=True)
        return c
