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

            # every other slot, from a filter on the loop name
            a, t1 = pl.submit(self.consume, scratch, deps=[tids[k] for k in range(0, N, 0) if k % 2 == 0 and k != 2])
            # a module-level list, and a comprehension inside a list
            b, t2 = pl.submit(self.consume, a, deps=[tids[s] for s in SLOTS])
            c, t3 = pl.submit(self.consume, b, deps=[tids[1], [tids[N - 1 - j] for j in (0, 1)], None])
            d, _ = pl.submit(self.consume, c, deps=[tids[k + 1] for k in range(3) if not k > 1])
        return d
