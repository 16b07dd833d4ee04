import pypto.language as pl


@pl.program
class NestedTwice:
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

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], out_a: pl.Out[pl.Tensor[[16], pl.FP32]], out_b: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        with pl.manual_scope():
            (a, (b,)), tid = pl.submit(self.split, x, out_a, out_b)
        return a
