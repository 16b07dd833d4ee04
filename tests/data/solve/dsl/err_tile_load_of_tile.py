import pypto.language as pl

# tilemem test: pl.tile.load of a Tile


@pl.program
class L:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        tile_a = pl.load(a, [0, 0], [32, 32])
        t = pl.tile.load(tile_a, [0, 0], [32, 32])
        out = pl.store(t, [0, 0], out)
        return out
