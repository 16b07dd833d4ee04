import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class BadPushOffset:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inp: pl.Tensor[[4, 16], pl.FP32], data: pld.DistributedTensor[[2, 8, 16], pl.FP32],
          peer: pl.Scalar[pl.INT32]):
        tile = pl.load(inp, [0, 0], [4, 16])
        pld.tile.remote_store(tile, data, peer, [1, -2, 0])
