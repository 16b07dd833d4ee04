import pypto.language as pl


@pl.program
class Deps:
    @pl.function(type=pl.FunctionType.InCore)
    def k1(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.ND)],
             k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        scratch = pl.tensor.create([1, k + 0 - k + 8], dtype=pl.FP32)
        with pl.manual_scope():
            tids = pl.array.create(2, dtype=pl.TASK_ID)
            a, t0 = pl.submit(self.k1, x, deps=[None])      # no producer yet
            tids[0] = t0
            b, t1 = pl.submit(self.k1, a, dumps=[a, a])
            tids[1] = t1
            # one slot of the array each: gathered into a fresh array first
            c, _ = pl.submit(self.k1, b, deps=[t0, tids[1]])
        return c
