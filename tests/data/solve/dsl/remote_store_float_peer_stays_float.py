import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class RemoteTiles:
    @pl.function(type=pl.FunctionType.InCore)
    def exchange(
        self,
        data: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP16]],
        x: pl.Tensor[[16, 64], pl.FP16],
        peer: pl.Scalar[pl.INT32],
        valid_cols: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
    ) -> pl.Tensor[[16, 64], pl.FP16]:
        # a remote load has no memory space of its own; its valid shape is cast to INDEX
        t = pld.tile.remote_load(data, peer, [0, 0], [16, 64])
        r = pld.remote_load(data, peer, offsets=[0, 0], shape=[1, 64], valid_shape=[1, valid_cols])
        u = pl.add(t, t)
        pld.remote_store(u, data, peer, [0, 0], atomic=pld.AtomicType.Add)
        pld.tile.remote_store(u, data, 1, [0, 0])
        pld.remote_store(x, data, peer=2.5, offsets=[0, 0])
        out = pl.store(u, [0, 0], out)
        return out
