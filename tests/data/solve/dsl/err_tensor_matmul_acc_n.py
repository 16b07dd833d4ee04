import pypto.language as pl


@pl.program
class BadMatmulAcc:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, acc: pl.Tensor[[16, 64], pl.FP32], a: pl.Tensor[[16, 32], pl.FP16],
             b: pl.Tensor[[32, 128], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.matmul_acc(acc, a, b)
        return acc
