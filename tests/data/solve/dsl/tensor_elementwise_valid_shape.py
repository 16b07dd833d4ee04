import pypto.language as pl

# tilemem test: a tensor elementwise result is valid where its operands are (PyPTO's
# tensor_ops/elementwise.cpp): against a scalar the tensor's valid shape, against a tensor of
# the same shape their valid shape when equal; not for the partial ops, cmp, xor / xors, nor
# for operands of different valid shapes; the shifts keep the lhs dtype (expected outputs: PyPTO's)


@pl.program
class ValidElementwise:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 8], pl.FP32], b: pl.Tensor[[16, 8], pl.FP32], i: pl.Tensor[[16, 8], pl.INT16],
             j: pl.Tensor[[16, 8], pl.INT32], out: pl.Out[pl.Tensor[[16, 4], pl.FP32]]) -> pl.Tensor[[16, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            an = pl.set_validshape(a, 16, 4)
            bn = pl.set_validshape(b, 16, 4)
            b2 = pl.set_validshape(b, 8, 4)
            s1 = pl.add(an, bn)
            s2 = pl.mul(an, 2.0)
            s3 = pl.sub(an, b2)
            s4 = pl.add(an, b)
            s5 = pl.maximum(an, bn)
            s6 = pl.part_add(an, bn)
            s7 = pl.tensor.cmp(an, bn)
            inn = pl.set_validshape(i, 16, 4)
            jn = pl.set_validshape(j, 16, 4)
            s8 = pl.tensor.xor(inn, inn)
            s9 = pl.tensor.ands(inn, 3)
            s10 = pl.tensor.shl(inn, jn)
            s11 = pl.tensor.xors(inn, 3)
            out = pl.assemble(out, s1, [0, 0])
        return out
