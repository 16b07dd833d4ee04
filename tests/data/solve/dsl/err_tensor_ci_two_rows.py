import pypto.language as pl


@pl.program
class CiRows:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, out: pl.Out[pl.Tensor[[2, 16], pl.INT32]]) -> pl.Tensor[[2, 16], pl.INT32]:
        idx = pl.tensor.ci(0, [2, 16], dtype=pl.INT32)
        return out
