import pypto.language as pl


@pl.program
class BadSliceDrop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [16, 32])
        a = pl.tile.slice(t, [2, 32], [0, 0], drop_dims=[0])
