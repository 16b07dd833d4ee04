import pypto.language as pl

# tilemem test: pl.dynamic("NAME") written in a signature's dims is the function's symbol of
# that name, one for every spelling of it in the function (expected outputs: PyPTO's)

M = pl.dynamic("M")


@pl.program
class InlineDyn:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[pl.dynamic("NR"), 16, 32], pl.FP32], y: pl.Out[pl.Tensor[[pl.dynamic("NR"), M], pl.FP32]],
             z: pl.Tensor[[M * 2], pl.FP32], w: pl.Tensor[[pl.dynamic("M"), 4], pl.FP32]):
        a = x[0]
        return y
