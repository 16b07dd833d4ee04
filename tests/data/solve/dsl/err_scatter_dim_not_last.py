import pypto.language as pl

# tilemem test: tensor.scatter supports only the last axis (dim=-1 or rank - 1;
# tensor_ops/scatter.cpp; ranges.txt): dim=0 on a rank-2 input is an error


@pl.program
class S:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(
        self,
        inp: pl.Tensor[[4, 16], pl.FP32],
        idx: pl.Tensor[[4, 8], pl.INT32],
        src: pl.Tensor[[4, 8], pl.FP32],
    ) -> pl.Tensor[[4, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.tensor.scatter(inp, dim=0, index=idx, src=src)
        return out
