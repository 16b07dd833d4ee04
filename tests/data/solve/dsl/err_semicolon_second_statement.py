import pypto.language as pl

# tilemem test: an error in the second statement of a ';' line is located at its column


@pl.program
class SemiErr:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 128]); y = pl.load(a, [0, 0], [16, 128], target_mem=pl.Mem.Vec)
        out = pl.store(y, [0, 0], out)
        return out
