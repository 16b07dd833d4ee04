import pypto.language as pl


@pl.program
class DumpsOrder:
    @pl.function(type=pl.FunctionType.InCore)
    def k2(
        self,
        x: pl.Tensor[[16], pl.FP32],
        y: pl.Tensor[[16], pl.FP32],
        out: pl.Out[pl.Tensor[[16], pl.FP32]],
    ) -> pl.Tensor[[16], pl.FP32]:
        t = pl.load(x, [0], [16])
        u = pl.load(y, [0], [16])
        return pl.store(pl.add(t, u), [0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[16], pl.FP32],
        y: pl.Tensor[[16], pl.FP32],
        out: pl.Out[pl.Tensor[[16], pl.FP32]],
    ) -> pl.Tensor[[16], pl.FP32]:
        with pl.manual_scope():
            # dumps= names y, then x twice: PyPTO prints each once, in argument order
            a, t1 = pl.submit(self.k2, x, y, out, dumps=[y, x, x])
            b, t2 = pl.submit(self.k2, y, x, a, dumps=[x, y], deps=[t1])
        return b
