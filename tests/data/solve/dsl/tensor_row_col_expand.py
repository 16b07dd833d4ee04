import pypto.language as pl


@pl.program
class TensorRowColExpand:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[16, 64], pl.FP32], row_vec: pl.Tensor[[16, 1], pl.FP32],
             col_vec: pl.Tensor[[1, 64], pl.FP16], s: pl.Scalar[pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            # a row vector [M, 1] or a column vector [1, N] against the target: its shape, the promoted dtype
            a = pl.tensor.row_expand_add(src, row_vec)
            b = pl.row_expand_mul(a, row_vec)
            c = pl.row_expand(src, row_vec)
            d = pl.col_expand_sub(b, col_vec)
            e = pl.tensor.col_expand(col_vec, col_vec)
            f = pl.expands(d, s)
            g = pl.tensor.expands(src, 2)
            out = pl.assemble(out, f, [0, 0])
        return out
