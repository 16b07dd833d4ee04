import pypto.language as pl


@pl.program
class BadGatherIndex:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, inp: pl.Tensor[[4, 16], pl.FP32], idx: pl.Tensor[[8, 4], pl.INT32]) -> pl.Tensor[[8, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.tensor.gather(inp, dim=-1, index=idx)
        return out
