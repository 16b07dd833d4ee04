import pypto.language as pl

# tilemem test: a key written twice in the decorator's attrs= dict literal is Python's dict:
# the key's first place, the last value (expected outputs: PyPTO's)


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, attrs={"foo": 1, "bar": 2, "foo": 3})
    def kernel(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        pl.func_attr({"baz": 4})
        return a
