import pypto.language as pl


@pl.program
class GatherIdx:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        src: pl.Tensor[[16, 64], pl.FP32],
        idx: pl.Tensor[[16, 64], pl.INT16],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        s = pl.load(src, [0, 0], [16, 64])
        i = pl.load(idx, [0, 0], [16, 64])
        tmp = pl.tile.create([16, 64], dtype=pl.INT32)
        # INT16 indices are read as u32 by the b32 form: only a 16-bit src takes them
        g = pl.tile.gather(s, i, tmp)
        out = pl.store(g, [0, 0], out)
        return out
