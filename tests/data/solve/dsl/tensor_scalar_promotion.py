import pypto.language as pl


@pl.program
class TensorScalarPromotion:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[64], pl.FP16], n: pl.Tensor[[64], pl.INT8],
             s: pl.Scalar[pl.INT32]) -> pl.Tensor[[64], pl.FP32]:
        # a tensor with a scalar: the promoted dtype (an untyped literal takes the tensor's)
        a: pl.Tensor[[64], pl.FP32] = pl.add(x, 1.0)
        b = pl.mul(n, s)
        c = pl.add(n, 3)
        # subs keeps the tensor's dtype
        d = pl.tensor.subs(x, 2.0)
        return a
