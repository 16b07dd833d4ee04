import pypto.language as pl


@pl.program
class TensorPartFmodCmpConcat:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP16],
             c: pl.Tensor[[16, 32], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 96], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            # the tensor forms: the promoted dtype, the broadcast shape
            p = pl.part_add(a, b)
            q = pl.tensor.part_max(p, a)
            r = pl.fmod(q, b)
            t = pl.fmod(r, 3.0)
            u = pl.tensor.fmods(t, s)
            v = pl.cmp(u, a, cmp_type=2)
            w = pl.tensor.cmp(v, 1.0)
            # concat: side by side along the columns
            x = pl.concat(w, c)
        return x
