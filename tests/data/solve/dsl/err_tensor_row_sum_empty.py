import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            an = pl.set_validshape(a, 0, 4)
            r = pl.row_sum(an)
        return r
