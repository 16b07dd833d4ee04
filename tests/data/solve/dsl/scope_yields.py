import pypto.language as pl


@pl.program
class ScopeYields:
    @pl.function(type=pl.FunctionType.InCore)
    def k1(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        for i, (acc,) in pl.range(4, init_values=(x,)):
            if i == 0:
                # a manual scope ending the branch: its yield prints bare
                with pl.manual_scope():
                    a: pl.Tensor[[64], pl.FP32] = self.k1(acc)
                    val: pl.Tensor[[64], pl.FP32] = pl.yield_(a)
            else:
                # an AUTO scope that is the whole branch: its yield keeps the binding
                with pl.scope():
                    b: pl.Tensor[[64], pl.FP32] = self.k1(acc)
                    val: pl.Tensor[[64], pl.FP32] = pl.yield_(b)
            if i == 1:
                c: pl.Tensor[[64], pl.FP32] = self.k1(val)
                # an AUTO scope after another statement: bare again
                with pl.scope():
                    d: pl.Tensor[[64], pl.FP32] = self.k1(c)
                    val: pl.Tensor[[64], pl.FP32] = pl.yield_(d)
            else:
                val: pl.Tensor[[64], pl.FP32] = pl.yield_(val)
            for j, (inner,) in pl.range(2, init_values=(val,)):
                with pl.manual_scope():
                    e: pl.Tensor[[64], pl.FP32] = self.k1(inner)
                    inner_out: pl.Tensor[[64], pl.FP32] = pl.yield_(e)
            acc = pl.yield_(inner_out)
        return acc
