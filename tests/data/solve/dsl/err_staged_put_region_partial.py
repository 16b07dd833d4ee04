import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class BadStagedPut:
    @pl.function(type=pl.FunctionType.InCore)
    def push(self, dst: pl.Out[pld.DistributedTensor[[16, 64], pl.FP16]],
             src: pl.Tensor[[16, 64], pl.FP16], peer: pl.Scalar[pl.INT32]):
        stage = pl.tile.create([4, 64], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        pld.tile.put(dst, peer, src, stage, dst_offsets=[0, 0])
        return
