import pypto.language as pl


@pl.program
class BadConcat:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], c: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[16, 96], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.concat(a, c)
        return x
