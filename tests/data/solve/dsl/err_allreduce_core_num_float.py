import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class CoreNum:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        data: pl.InOut[pld.DistributedTensor[[4, 256], pl.FP32]],
        signal: pl.InOut[pld.DistributedTensor[[4], pl.INT32]],
    ) -> pld.DistributedTensor[[4, 256], pl.FP32]:
        a = pld.tensor.allreduce(data, signal, mode="ring", core_num=2.5)
        return a
