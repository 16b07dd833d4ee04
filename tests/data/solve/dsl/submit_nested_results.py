import pypto.language as pl


@pl.program
class NestedSubmit:
    @pl.function(type=pl.FunctionType.InCore)
    def split(
        self,
        x: pl.Tensor[[16], pl.FP32],
        out_a: pl.Out[pl.Tensor[[16], pl.FP32]],
        out_b: pl.Out[pl.Tensor[[16], pl.FP32]],
    ) -> tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]]:
        t = pl.load(x, [0], [16])
        a = pl.store(pl.add(t, t), [0], out_a)
        b = pl.store(pl.mul(t, t), [0], out_b)
        return a, b

    @pl.function(type=pl.FunctionType.InCore)
    def one(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        t = pl.load(x, [0], [16])
        return pl.store(t, [0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[16], pl.FP32],
        out_a: pl.Out[pl.Tensor[[16], pl.FP32]],
        out_b: pl.Out[pl.Tensor[[16], pl.FP32]],
        out_c: pl.Out[pl.Tensor[[16], pl.FP32]],
    ) -> pl.Tensor[[16], pl.FP32]:
        with pl.manual_scope():
            # both results of a two-result kernel, then its task id
            (a, b), tid = pl.submit(self.split, x, out_a, out_b)
            (c,), tid2 = pl.submit(self.one, a, out_c, deps=[tid])
        return c
