import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pld.DistributedTensor[[4, 16], pl.FP32], peer: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]):
        tile = pld.tile.remote_load(data, peer, [4, 0], [1, 16])
        out = pl.store(tile, [0, 0], out)
