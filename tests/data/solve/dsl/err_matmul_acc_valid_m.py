import pypto.language as pl


@pl.program
class AccRows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               c: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        acc = pl.load(c, [0, 0], [16, 16], valid_shape=[8, 16])
        x = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        y = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        z = pl.matmul_acc(acc, x, y)
        return pl.store(z, [0, 0], out)
