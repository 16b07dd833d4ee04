import pypto.language as pl

# tilemem test: pl.system.task_dummy given a positional argument


@pl.program
class Deps2:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, scratch: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.manual_scope():
            _produced, tid = pl.submit(self.fill, scratch)
            t1 = pl.system.task_dummy([tid])
            out, _ = pl.submit(self.fill, scratch, deps=[t1])
        return out
