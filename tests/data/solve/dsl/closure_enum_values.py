import pypto.language as pl

# tilemem test: enum values bound to names around the program (PAD = pl.PadValue.max,
# MEM = pl.MemorySpace.Mat) are those values as op arguments, positional and keyword
# (expected outputs: PyPTO's)

PAD = pl.PadValue.max
MEM = pl.MemorySpace.Mat
ZERO = pl.PadValue.zero


@pl.program
class ClosureEnums:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 32], pl.FP32], a: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[8, 32], pl.FP32]:
        y: pl.Tensor[[8, 32], pl.FP32] = pl.fillpad(x, PAD)
        z: pl.Tensor[[8, 32], pl.FP32] = pl.fillpad(y, pad_value=ZERO)
        t = pl.load(a, [0, 0], [16, 16], target_memory=MEM)
        return z
