import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class AllocTwice:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        buf = pld.alloc_window_buffer(256)
        buf = pld.tensor.alloc_window_buffer([8, 8], dtype=pl.FP16)
        return x
