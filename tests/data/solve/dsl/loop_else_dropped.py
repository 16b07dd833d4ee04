import pypto.language as pl

# tilemem test: a for / while loop's else clause is never read by PyPTO's parser: dropped with
# its comments and whatever is in it (expected outputs: PyPTO's)


@pl.program
class LoopElse:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        for i in pl.range(4):
            t = pl.exp(t)  # in the loop
            # last in loop body
        else:  # on the else
            # inside else
            t = pl.add(t, t)  # trailing in else
            x = undefined_name + 1
            # tail of else
        # before store
        o = pl.store(t, [0, 0], o)
        for j in pl.range(2):
            t = pl.exp(t)
        else: pass
        n = 0
        while n < 3:
            t = pl.exp(t)
            n = n + 1
        else:
            t = pl.add(t, t)
        return o
