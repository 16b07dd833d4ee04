import pypto.language as pl

# tilemem test: a tensor reduction's result is valid where its input is, but on the reduced
# axis (MakeReductionResultType; expected outputs: PyPTO's)


@pl.program
class Reduce:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            an = pl.set_validshape(a, 12, 4)
            r = pl.row_sum(an)
            m = pl.tensor.row_max(an)
            c = pl.tensor.col_sum(an)
            i = pl.tensor.row_argmax(an)
            f = pl.row_sum(a)
        return r
