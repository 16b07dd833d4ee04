import pypto.language as pl


@pl.program
class Callbacks:
    @pl.function(level=pl.Level.NODE, role=pl.Role.SubWorker, attrs={"tag": 1})
    def sample(logits: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8], pl.INT32]:
        """Supplied at run time (prepare(callbacks=...)): no body here."""
        ...

    @pl.function(level=pl.Level.POD, role=pl.Role.SubWorker)
    def worker(x: pl.Tensor[[8, 16], pl.FP32]):
        pass

    @pl.function(level=pl.Level.NODE, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        self.sample(x)
        return x
