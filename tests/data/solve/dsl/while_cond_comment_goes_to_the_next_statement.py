import pypto.language as pl


@pl.program
class WhileComments:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        for (acc, n) in pl.while_(init_values=(t, 0)):
            # keep going while n < 3
            pl.cond(n < 3)
            # one more step
            a2 = pl.add(acc, acc)
            n2 = n + 1
            r, m = pl.yield_(a2, n2)
        return pl.store(r, [0, 0], out)
