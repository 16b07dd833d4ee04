import pypto.language as pl


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

            t = pl.system.task_dummy(deps=[tids[k] for k in range(2) for j in range(2)])
        return scratch
