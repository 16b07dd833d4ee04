import pypto.language as pl


@pl.program
class GatherAndCache:
    @pl.function(type=pl.FunctionType.InCore)
    def gather_vec(self, mem: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[1, 16], pl.INT32],
                   out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        idx_tile = pl.load(idx, [0, 0], [1, 16])
        # row mode into Vec: coalesce and gather_oob are stored as their numbers
        g = pl.tile.mgather(mem, idx_tile, coalesce="row", gather_oob="zero")
        h = pl.mgather(mem, idx_tile, coalesce=0)
        s = pl.add(g, h)
        pl.system.cacheinvalid()
        pl.system.cacheinvalid(mem, [16, 32], [0, 0])
        out = pl.store(s, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def gather_mat(self, mem: pl.Tensor[[64, 32], pl.FP16], idx: pl.Tensor[[1, 16], pl.INT32],
                   ws: pl.Tensor[[256], pl.INT64]):
        pl.system.set_ffts(ws)
        # the Mat form gathers with a GM idx tensor; valid_shape prints as a keyword
        m = pl.tile.mgather(mem, idx, target_memory=pl.MemorySpace.Mat, valid_shape=[9, 21])
