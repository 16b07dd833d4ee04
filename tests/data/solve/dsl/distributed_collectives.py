import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Collectives:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        data: pl.InOut[pld.DistributedTensor[[4, 256], pl.FP32]],
        signal: pl.InOut[pld.DistributedTensor[[4], pl.INT32]],
        stage: pl.Tensor[[1, 256], pl.FP32],
        counts: pl.Tensor[[4], pl.INT32],
        recv: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]],
        sig2: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]],
        local: pl.InOut[pl.Tensor[[4, 256], pl.FP32]],
    ) -> pld.DistributedTensor[[4, 256], pl.FP32]:
        # the collectives hand back the window they write
        a = pld.tensor.allreduce(data, signal, op=pld.ReduceOp.Max, mode="ring", core_num=2)
        b = pld.tensor.allreduce(data)
        pld.tensor.barrier(signal)
        pld.tensor.broadcast(data, signal, root=1)
        pld.tensor.reduce_scatter(data, signal, op=pld.ReduceOp.Sum)
        g = pld.tensor.allgather(stage, data, signal)
        t = pld.tensor.all_to_all(local, data, signal)
        v = pld.tensor.all_to_all_v(local, data, sig2, counts, recv)
        # one-sided copies: a region, chunking, an atomic add
        pld.tensor.put(data, 1, local, [0, 0], [1, 0], [2, 256], atomic=pld.AtomicType.Add, chunk_rows=2, chunk_cols=64)
        pld.tensor.put(dst=data, peer=0, src=local, pipeline=True, chunk_rows=2, chunk_cols=32)
        pld.tensor.get(local, 2, data)
        pld.tensor.get(local, peer=3, src=data, dst_offsets=[1, 0], src_offsets=[0, 0], shape=[1, 256])
        return v
