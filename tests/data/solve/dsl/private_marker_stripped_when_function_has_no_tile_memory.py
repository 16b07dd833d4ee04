import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case private_marker_stripped_when_function_has_no_tile_memory_1
@pl.program
class MarkerOnlyScalarCall:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        out__ssa_v0: pl.Out[pl.Tensor[[1], pl.FP32]],
    ) -> pl.Tensor[[1], pl.FP32]:
        idx__ssa_v0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx(
            attrs={"__compiler_tensor_to_tile_mat_bridge": True, "residency_test_sentinel": 11},
        )
        return out__ssa_v0
        # a comment at the tail of a block is dropped (PyPTO warns about it)
