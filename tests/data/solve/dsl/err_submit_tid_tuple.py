import pypto.language as pl


@pl.program
class TidTuple:
    @pl.function(type=pl.FunctionType.InCore)
    def one(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        t = pl.load(x, [0], [16])
        return pl.store(t, [0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        with pl.manual_scope():
            c, (tid,) = pl.submit(self.one, x, out)
        return c
