import pypto.language as pl


@pl.program
class CiArgs:
    @pl.function
    def main(self, x: pl.Tensor[[1, 32], pl.INT32]) -> pl.Tensor[[1, 32], pl.INT32]:
        idx = pl.tensor.ci([1, 32], 0, dtype=pl.INT32)
        return idx
