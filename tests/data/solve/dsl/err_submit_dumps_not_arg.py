import pypto.language as pl


@pl.program
class DumpsNotArg:
    @pl.function(type=pl.FunctionType.InCore)
    def k2(
        self,
        x: pl.Tensor[[16], pl.FP32],
        out: pl.Out[pl.Tensor[[16], pl.FP32]],
    ) -> pl.Tensor[[16], pl.FP32]:
        t = pl.load(x, [0], [16])
        return pl.store(t, [0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[16], pl.FP32],
        y: pl.Tensor[[16], pl.FP32],
        out: pl.Out[pl.Tensor[[16], pl.FP32]],
    ) -> pl.Tensor[[16], pl.FP32]:
        with pl.manual_scope():
            a, t1 = pl.submit(self.k2, x, out, dumps=[y])
        return a
