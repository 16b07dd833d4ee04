import pypto.language as pl


@pl.program
class BadExpandClone:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[1, 1, 8], pl.FP16], target: pl.Tensor[[2, 4, 8], pl.FP16]) -> pl.Tensor[[2, 4, 8], pl.FP16]:
        y = pl.expand_clone(src, target)
        return y
