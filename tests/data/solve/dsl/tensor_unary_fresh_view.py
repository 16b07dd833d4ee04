import pypto.language as pl


@pl.program
class FreshUnary:
    """A tensor unary op or cast builds a fresh tensor: the operand's shape and valid
    shape, but not its stride or layout."""

    @pl.function
    def k(
        self,
        x: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(stride=[1, 16], layout=pl.TensorLayout.DN)],
        y: pl.Tensor[[16, 32], pl.FP32],
        z: pl.Tensor[[16, 32], pl.INT32],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        a = pl.tensor.exp(x)
        b = pl.tensor.neg(x)
        v = pl.set_validshape(y, 8, 16)
        c = pl.tensor.sqrt(v)
        d = pl.cast(v, pl.BF16)
        e = pl.cast(x, pl.FP16)
        f = pl.tensor.recip(z)
        return a
