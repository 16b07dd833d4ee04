import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case assemble_into_mat_iter_arg_keeps_scratch_mat_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a__ssa_v0: pl.Tensor[[64, 64], pl.FP32],
        b__ssa_v0: pl.Tensor[[64, 64], pl.FP32],
        out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_x__ssa_v0 = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Mat)
        a_mat__ssa_v0 = pl.load(a__ssa_v0, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_mat__ssa_v0: pl.Tile[[64, 64], pl.FP32] = pl.load(
            b__ssa_v0,
            [0, 0],
            [64, 64],
            target_memory=pl.MemorySpace.Mat,
        )
        for _i__idx_v0, (tile_x__iter_v1,) in pl.range(2, init_values=(tile_x__ssa_v0,)):
            a_l__ssa_v0 = pl.move(a_mat__ssa_v0, target_memory=pl.Mem.Left)
            b_r__ssa_v0: pl.Tile[[64, 64], pl.FP32] = pl.move(
                b_mat__ssa_v0,
                target_memory=pl.MemorySpace.Right,
            )
            c__ssa_v0 = pl.matmul(a_l__ssa_v0, b_r__ssa_v0)  # Acc (L0C)
            # Acc source -> Mat iter-arg target
            tile_x__ssa_v3 = pl.assemble(tile_x__iter_v1, c__ssa_v0, [0, 0])
            tile_x__rv_v2 = pl.yield_(tile_x__ssa_v3)
        out__ssa_v1 = pl.store(
            pl.tile.move(tile_x__rv_v2, target_memory=pl.Mem.Vec),
            [0, 0],
            out__ssa_v0,
        )
        return out__ssa_v1
        # a comment at the tail of a block is dropped (PyPTO warns about it)
