import pypto.language as pl

# tilemem test: an ND load kept under a 2D annotation (FlattenTileNdTo2D's printed form) keeps
# its 3-D valid_shape; an op reading the tile's valid region (tile.add) is PyPTO's
# ResolveValidShape rank error, while a store of it is accepted (test_dsl.py)

@pl.program
class Expected:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self,
        x: pl.Tensor[[2, 3, 4], pl.FP32],
        out_0: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]],
    ) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        t: pl.Tile[[6, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(
            x, [0, 0, 0], [2, 3, 4], [2, 2, 4], target_memory=pl.Mem.Vec
        )
        r = pl.tile.add(t, t)
        out_0_1 = pl.tile.store(r, [0, 0, 0], out_0, [2, 3, 4])
        return out_0_1
