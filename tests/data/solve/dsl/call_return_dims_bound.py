import pypto.language as pl

# tilemem test: a cross-function call's result type is the callee's return type with the
# callee's dynamic dims bound from the arguments (shape, valid shape; through a composite
# dim of the same structure; tuple results; a submit with its Out argument left out; the
# caller's own symbol passed through unchanged) (expected outputs: PyPTO's)

M = pl.dynamic("M")
N = pl.dynamic("N")
K = pl.dynamic("K")
R = pl.dynamic("R")


@pl.program
class CallDims:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
            c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        return pl.store(t, [0, 0], c)

    @pl.function(type=pl.FunctionType.InCore)
    def pair(self, a: pl.Tensor[[K * 2, 64], pl.FP32], o1: pl.Out[pl.Tensor[[K, 64], pl.FP32]],
             o2: pl.Out[pl.Tensor[[K * 2, 64], pl.FP32]]) -> tuple[pl.Tensor[[K, 64], pl.FP32], pl.Tensor[[K * 2, 64], pl.FP32]]:
        t = pl.load(a, [0, 0], [16, 64])
        r1 = pl.store(t, [0, 0], o1)
        r2 = pl.store(t, [0, 0], o2)
        return r1, r2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], y: pl.Tensor[[R, 32], pl.FP32],
             z: pl.Tensor[[R * 2, 64], pl.FP32]) -> pl.Tensor[[128, 64], pl.FP32]:
        c = pl.create_tensor([128, 64], dtype=pl.FP32)
        d = self.add(x, x, c)
        e = pl.create_tensor([R, 32], dtype=pl.FP32)
        f = self.add(y, y, e)
        g = pl.create_tensor([R, 64], dtype=pl.FP32)
        h = pl.create_tensor([R * 2, 64], dtype=pl.FP32)
        p, q = self.pair(z, g, h)
        s, tid = pl.submit(self.add, x, x, c)
        s2, tid2 = pl.submit(self.add, y, y)
        return d
