import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class ReduceScatterMax:
    @pl.function(type=pl.FunctionType.InCore)
    def f(
        self,
        data: pl.InOut[pld.DistributedTensor[[2, 16], pl.FP32]],
        signal: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]],
    ) -> pl.Tensor[[2, 16], pl.FP32]:
        data = pld.tensor.reduce_scatter(data, signal, op=pld.ReduceOp.Max)
        return data
