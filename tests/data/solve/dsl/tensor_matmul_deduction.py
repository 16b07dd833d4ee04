import pypto.language as pl


@pl.program
class TensorMatmulDeduction:
    @pl.function(type=pl.FunctionType.Orchestration)
    def batched(self, a: pl.Tensor[[4, 16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[4, 64, 32], pl.FP16]:
        # a batched lhs against a 2D rhs: the batch dims broadcast, [M, N] follows
        c = pl.matmul(a, b)
        # a_trans swaps the lhs's trailing axes: [4, 64, 16] x [4, 16, 32]
        d = pl.matmul(c, a, a_trans=True)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def vectors(self, a: pl.Tensor[[16, 32], pl.FP32], v: pl.Tensor[[32], pl.FP32],
                w: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        m = pl.matmul(a, v)                 # matrix x vector -> [16]
        n = pl.matmul(w, a)                 # vector x matrix -> [32]
        t = pl.matmul(v, a, b_trans=True)   # vector x matrix^T -> [16]
        s = pl.matmul(v, v)                 # dot product -> 0-D
        return n

    @pl.function(type=pl.FunctionType.Orchestration)
    def promoted(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 8], pl.FP32]) -> pl.Tensor[[16, 8], pl.FP32]:
        # no out_dtype: FP16 x FP32 promotes to FP32
        c = pl.matmul(a, b)
        return c
