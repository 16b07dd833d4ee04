import pypto.language as pl


@pl.program
class NdLoad:
    # a 3-D load under a 2-D annotation (what FlattenTileNdTo2D leaves): the annotation is trusted
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [0, 0, 0], [2, 16, 64])
        u = pl.add(t, t)
        out = pl.store(u, [0, 0], out)
        return out
