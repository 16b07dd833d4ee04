import pypto.language as pl


@pl.program
class TensorBits:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.INT16], m: pl.Tensor[[64, 64], pl.INT16], w: pl.Tensor[[64, 64], pl.INT32]) -> pl.Tensor[[64, 64], pl.INT16]:
        a = pl.and_(x, m)
        b = pl.or_(a, 3)
        c = pl.xor(b, m)
        d = pl.shl(c, 2)
        e = pl.shr(w, x)
        f = pl.tensor.xors(d, 1)
        g = pl.not_(f)
        h = pl.and_(x, w)
        return g
