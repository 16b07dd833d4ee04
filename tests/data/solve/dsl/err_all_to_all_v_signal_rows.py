import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def step(
        self,
        inp: pl.Tensor[[6, 16], pl.FP32],
        counts: pl.Tensor[[4, 1], pl.INT32],
        data: pl.InOut[pld.DistributedTensor[[6, 16], pl.FP32]],
        signal: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]],
        recv_counts: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]],
    ) -> pld.DistributedTensor[[6, 16], pl.FP32]:
        data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv_counts)
        return data
