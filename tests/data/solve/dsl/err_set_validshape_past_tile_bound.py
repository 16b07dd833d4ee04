import pypto.language as pl

# tilemem test: a constant valid extent given to set_validshape is >= 0 and within the tile's
# constant dimension (tile_ops/transform.cpp; ranges.txt): 4096 rows of an 8-row tile is an error

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        src: pl.Tensor[[32, 8], pl.FP32],
        dst: pl.Out[pl.Tensor[[8, 8], pl.FP32]],
    ) -> pl.Tensor[[8, 8], pl.FP32]:
        packed: pl.Tile[[32, 8], pl.FP32] = pl.load(
            src, [0, 0], [32, 8], target_memory=pl.MemorySpace.Vec
        )
        blk: pl.Tile[[8, 8], pl.FP32] = packed[8:16, 0:8]
        narrowed: pl.Tile[[8, 8], pl.FP32] = pl.tile.set_validshape(blk, 4096, 4)
        padded: pl.Tile[[8, 8], pl.FP32] = pl.tile.fillpad(narrowed, pad_value=pl.PadValue.zero)
        return pl.store(padded, [0, 0], dst)
