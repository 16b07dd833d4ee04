import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case distinct_inserted_moves_expand_dump_vars_attr_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[128, 128], pl.BF16],
        out: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        x_tile = pl.load(x, [0, 0], [128, 128])
        z_tile: pl.Tile[[128, 128], pl.FP32] = pl.matmul(
            x_tile,
            x_tile,
            attrs={"dump_vars": [x_tile]},
        )
        result: pl.Tensor[[128, 128], pl.FP32] = pl.store(z_tile, [0, 0], out)
        return result
