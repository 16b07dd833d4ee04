import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class DistributedSignals:
    @pl.function(type=pl.FunctionType.InCore)
    def ping(
        self,
        data: pl.InOut[pld.DistributedTensor[[8, 64], pl.FP32]],
        signal: pl.InOut[pld.DistributedTensor[[8], pl.INT32]],
        out: pl.Out[pl.Tensor[[4, 64], pl.FP32]],
    ) -> pl.Tensor[[4, 64], pl.FP32]:
        ctx = pld.get_comm_ctx(data)
        me = pld.system.rank(ctx)
        n = pld.nranks(ctx)
        peer = (me + 1) % n
        # tell the peer our half is ready, then wait for theirs
        pld.system.notify(signal, peer, [0], 1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=signal, offsets=[0], expected=1, cmp=pld.WaitCmp.Ge)
        pld.system.defer_wait(signal, [1], n, cmp=pld.WaitCmp.Ge)
        half = data[0:4, :]                  # a slice of a window stays distributed
        t = pl.load(half, [0, 0], [4, 64])
        u = pl.add(t, t)
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def reader(self, flag: pld.DistributedTensor[[8], pl.INT32], ctx: pld.CommCtx,
               out: pl.Out[pl.Tensor[[1], pl.INT32]]) -> pl.Tensor[[1], pl.INT32]:
        r = pld.rank(ctx)
        pld.system.notify(target=flag, peer=r, offsets=[2], value=r, op=pld.NotifyOp.Set)
        pld.system.wait(flag, [2], 0, cmp=pld.WaitCmp.Eq)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        data: pl.InOut[pld.DistributedTensor[[8, 64], pl.FP32]],
        signal: pl.InOut[pld.DistributedTensor[[8], pl.INT32]],
        out: pl.Out[pl.Tensor[[4, 64], pl.FP32]],
    ) -> pl.Tensor[[4, 64], pl.FP32]:
        return self.ping(data, signal, out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, outs: pl.Out[pl.Tensor[[2, 4, 64], pl.FP32]]) -> pl.Tensor[[2, 4, 64], pl.FP32]:
        data_buf = pld.alloc_window_buffer(8 * 64 * pl.FP32.get_byte())
        signal_buf = pld.tensor.alloc_window_buffer(pl.INT32.get_byte())
        for r in pl.range(pld.world_size()):
            data = pld.window(data_buf, [8, 64], dtype=pl.FP32)
            signal = pld.tensor.window(signal_buf, [8], dtype=pl.INT32)
            self.chip_orch(data, signal, outs[r], device=r)
        return outs
