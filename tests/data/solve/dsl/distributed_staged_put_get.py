import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class StagedPutGet:
    @pl.function(type=pl.FunctionType.InCore)
    def push(self, dst: pl.Out[pld.DistributedTensor[[16, 64], pl.FP16]],
             src: pl.Tensor[[16, 64], pl.FP16], peer: pl.Scalar[pl.INT32]):
        ping = pl.tile.create([4, 64], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        pong = pl.tile.create([4, 64], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        # full slice through two staging tiles (ping-pong)
        pld.tile.put(dst, peer, src, ping, pong, atomic=pld.AtomicType.Add)
        # a region right after the one stage: the list is the region, not a second stage
        pld.tile.put(dst, 1, src, ping, [0, 0], [8, 0], [8, 64])
        return

    @pl.function(type=pl.FunctionType.InCore)
    def pull(self, dst: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             src: pld.DistributedTensor[[16, 64], pl.FP32], peer: pl.Scalar[pl.INT32]):
        stage = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        pld.tile.get(dst, peer, src, stage)
        pld.tile.get(dst, peer, src, stage, dst_offsets=[0, 32], src_offsets=[0, 0], shape=[16, 32])
        return
