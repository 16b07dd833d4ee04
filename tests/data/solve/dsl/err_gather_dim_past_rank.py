import pypto.language as pl

# tilemem test: tensor.gather's dim must lie in [-rank, rank - 1] of the input
# (tensor_ops/gather.cpp; ranges.txt): dim=2 on a rank-2 input is an error


@pl.program
class G:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(
        self,
        inp: pl.Tensor[[4, 16], pl.FP32],
        idx: pl.Tensor[[4, 8], pl.INT32],
        output: pl.Out[pl.Tensor[[4, 8], pl.FP32]],
    ) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.gather(inp, dim=2, index=idx)
            output = pl.assemble(output, out, [0, 0])
        return output
