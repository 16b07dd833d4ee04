import pypto.language as pl


@pl.program
class HostSelf:
    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def check(self, f: pl.Tensor[[16, 16], pl.FP32]):
        assert f is not None

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        self.check(a)
        return a
