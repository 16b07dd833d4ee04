import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 128], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]):
        ta = pl.move(pl.load(a, [0, 0], [1, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        c = pl.tile.gemv(ta, tb)
