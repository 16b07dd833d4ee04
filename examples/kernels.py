"""Two kernels written by hand in PyPTO's DSL, the way its documentation writes them.

    tilemem fmt examples/kernels.py                      # what PyPTO's front end builds
    tilemem solve examples/kernels.py --backend 910B     # both programs, solved
    tilemem solve examples/kernels.py --program MatmulBiasRelu --backend 910B
    tilemem why examples/kernels.py c_tile --program MatmulBiasRelu --backend 910B

The module is read, never run: tilemem finds the @pl.program classes with Python's own
parser and does not import pypto.
"""
import pypto.language as pl


@pl.program
class MatmulBiasRelu:
    """relu(a @ b + bias): the matmul's result lives in the accumulator (Acc)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[16, 64], pl.BF16],
        b: pl.Tensor[[64, 128], pl.BF16],
        bias: pl.Tensor[[16, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        # matmul operands are loaded into Mat (L1); the pass moves them to Left/Right
        a_tile = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        b_tile = pl.load(b, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        c_tile = pl.matmul(a_tile, b_tile)
        bias_tile = pl.load(bias, [0, 0], [16, 128])      # Vec: the default of pl.load
        s_tile = pl.add(c_tile, bias_tile)
        r_tile = pl.relu(s_tile)
        out = pl.store(r_tile, [0, 0], out)
        return out

    @pl.function
    def main(
        self,
        a: pl.Tensor[[16, 64], pl.BF16],
        b: pl.Tensor[[64, 128], pl.BF16],
        bias: pl.Tensor[[16, 128], pl.FP32],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        out = pl.create_tensor([16, 128], dtype=pl.FP32)
        return self.kernel(a, b, bias, out)


@pl.program
class KLoopMatmul:
    """c = a @ b with K split into 4 steps of 16: the stationary b slices are not hoisted
    (each step loads a different one), the accumulator is carried through the loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[16, 64], pl.BF16],
        b: pl.Tensor[[64, 32], pl.BF16],
        out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        a0 = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        b0 = pl.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        acc0 = pl.matmul(a0, b0)
        for k, (acc,) in pl.range(1, 4, init_values=(acc0,)):
            ak = pl.load(a, [0, k * 16], [16, 16], target_memory=pl.Mem.Mat)
            bk = pl.load(b, [k * 16, 0], [16, 32], target_memory=pl.Mem.Mat)
            acc_next = pl.matmul_acc(acc, ak, bk)
            acc_out = pl.yield_(acc_next)
        out = pl.store(acc_out, [0, 0], out)
        return out

    @pl.function
    def main(
        self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16]
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        out = pl.create_tensor([16, 32], dtype=pl.FP32)
        return self.kernel(a, b, out)
