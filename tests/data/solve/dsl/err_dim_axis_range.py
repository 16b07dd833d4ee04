import pypto.language as pl


@pl.program
class BadDimAxis:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, idx: pl.Tensor[[16, 8], pl.INT32]) -> pl.Scalar[pl.INDEX]:
        # axes count from the end when negative: -2 is the first, -3 is out of range
        rows = pl.tensor.dim(idx, -2)
        bad = pl.tensor.dim(idx, -3)
        return bad
