import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, signal: pl.InOut[pld.DistributedTensor[[2, 1], pl.FP32]]):
        signal = pld.tensor.barrier(signal)
