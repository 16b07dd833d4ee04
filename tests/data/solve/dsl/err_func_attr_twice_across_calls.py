import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, attrs={"foo": 1})
    def kernel(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        pl.func_attr({"bar": 2})
        pl.func_attr({"foo": 3})
        return a
