import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class NotifyList:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, signal: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]], peer: pl.Scalar[pl.INT32]):
        pld.system.notify(signal, peer=peer, offsets=[0, 0], value=[], op=pld.NotifyOp.Set)
