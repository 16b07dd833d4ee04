import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[1, 64], pl.INT32]) -> pl.Tensor[[16, 64], pl.INT32]:
        c = pl.tensor.and_(a, b)
        return c
