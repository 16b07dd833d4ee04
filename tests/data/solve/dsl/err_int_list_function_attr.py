import pypto.language as pl


@pl.program
class IntListAttr:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tile_sizes": [16, 64]})
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        return a
