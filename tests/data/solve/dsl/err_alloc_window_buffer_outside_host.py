import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class AllocInKernel:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        # a window buffer is a host-orchestration resource
        buf = pld.alloc_window_buffer(256)
        return x
