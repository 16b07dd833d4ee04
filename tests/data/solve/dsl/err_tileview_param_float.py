import pypto.language as pl


@pl.program
class Tv:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 2.5])], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return pl.store(t, [0, 0], out)
