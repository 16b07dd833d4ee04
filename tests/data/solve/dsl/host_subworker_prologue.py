import pypto.language as pl


@pl.program
class HostAttr:
    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def check(f: pl.Tensor[[16], pl.FP32]):
        """doc"""
        pl.func_attr({"tag": 1})
        assert f is not None

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        self.check(a)
        return a
