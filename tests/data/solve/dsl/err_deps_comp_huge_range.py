import pypto.language as pl
# tilemem test: a deps= comprehension over a range too long to count (Python's len() overflows;
# PyPTO would iterate it for ever) is a located error, not an internal one


@pl.program
class Deps2:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, scratch: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.manual_scope():
            tids = pl.array.create(4, pl.TASK_ID)
            for n in pl.parallel(4):
                _produced, producer_tid = pl.submit(self.fill, scratch)
                tids[n] = producer_tid
            # per-element entries, a comprehension, a None sentinel, nothing
            t1 = pl.system.task_dummy(deps=[tids[0], tids[1]])
            t2 = pl.system.task_dummy(deps=[tids[k] for k in range(10000000000000000000000000000000000000000) if k > 1])
            t3 = pl.system.task_dummy(deps=[None])
            t4 = pl.system.task_dummy(deps=[])
            out, _ = pl.submit(self.fill, scratch, deps=[t1, t2, t3, t4])
        return out
