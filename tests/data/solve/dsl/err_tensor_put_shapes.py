import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP16], dst: pld.DistributedTensor[[16, 64], pl.FP16], peer: pl.Scalar[pl.INT32]):
        pld.tensor.put(dst, peer=peer, src=x)
