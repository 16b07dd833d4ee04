import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class WindowBufferShapes:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(self, data: pl.InOut[pld.DistributedTensor[[64, 128], pl.FP32]]) -> pld.DistributedTensor[[64, 128], pl.FP32]:
        return data

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        # the shape form allocates dims x the dtype's bytes: one INT64 constant when static
        a = pld.alloc_window_buffer([64, 128], dtype=pl.FP32)
        b = pld.tensor.alloc_window_buffer([64, pld.world_size()], dtype=pl.FP16)
        c = pld.alloc_window_buffer(4 * pl.INT32.get_byte())
        w = pld.window(a, [64, 128], dtype=pl.FP32)
        self.chip_orch(w, device=0)
        return x
