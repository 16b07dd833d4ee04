import pypto.language as pl

SLOTS = [0, 2, 3]
N = 4


@pl.program
class Deps:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, scratch: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.manual_scope():
            tids = pl.array.create(N, pl.TASK_ID)
            for n in pl.parallel(N):
                _produced, producer_tid = pl.submit(self.fill, scratch)
                tids[n] = producer_tid

            m = 3
            a, _ = pl.submit(self.consume, scratch, deps=[tids[i] for i in range(2) if i < m])
        return a
