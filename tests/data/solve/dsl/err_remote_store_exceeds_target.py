import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class PushTooFar:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 8], pl.FP32], data: pld.DistributedTensor[[64, 32], pl.FP32],
               peer: pl.Scalar[pl.INT32]):
        t = pl.load(x, [0, 0], [16, 8])
        pld.remote_store(t, data, peer, [0, 30])
