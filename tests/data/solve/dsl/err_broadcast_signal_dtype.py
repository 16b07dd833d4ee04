import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Bcast:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, data: pld.DistributedTensor[[256], pl.FP32], sig: pld.DistributedTensor[[4], pl.INT32]):
        return data

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        data_buf = pld.alloc_window_buffer(256 * pl.FP32.get_byte())
        flag_buf = pld.alloc_window_buffer(4 * pl.FP32.get_byte())
        data = pld.window(data_buf, [256], dtype=pl.FP32)
        flags = pld.window(flag_buf, [4], dtype=pl.FP32)
        pld.tensor.broadcast(data, flags, root=0)
        return 0
