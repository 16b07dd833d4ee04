import pypto.language as pl


@pl.program
class BadRowExpand:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[16, 64], pl.FP32], row_vec: pl.Tensor[[8, 1], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.row_expand_div(src, row_vec)
        return a
