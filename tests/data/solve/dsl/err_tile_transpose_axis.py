import pypto.language as pl


@pl.program
class BadTranspose:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 64])
        # -1 is the last axis; -3 is out of range for a 2-D tile
        u = pl.tile.transpose(t, 0, -1)
        v = pl.tile.transpose(t, -3, 1)
