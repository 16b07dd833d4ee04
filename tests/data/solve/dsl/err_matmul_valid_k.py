import pypto.language as pl


@pl.program
class ValidK:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        x = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        # only 12 rows of b are valid: the product would read 4 rows of nothing
        y = pl.load(b, [0, 0], [16, 16], valid_shape=[12, 16], target_memory=pl.Mem.Mat)
        z = pl.matmul(x, y)
        return pl.store(z, [0, 0], out)
