import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class RemoteTiles:
    @pl.function(type=pl.FunctionType.InCore)
    def exchange(
        self,
        data: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP16]],
        peer: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
    ) -> pl.Tensor[[16, 64], pl.FP16]:
        t = pld.tile.remote_load(data, peer, [0, 0], [16, 64], [16, 1e309])
        out = pl.store(t, [0, 0], out)
        return out
