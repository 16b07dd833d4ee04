import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class WindowOfTensor:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        w = pld.window(x, [64], dtype=pl.FP32)
        return x
