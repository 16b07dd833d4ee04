import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case tensor_matmul_k_tiled_lhs_panel_loads_once_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        lhs__ssa_v0: pl.Tensor[[256, 256], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[256, 256], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
    ) -> pl.Tensor[[256, 256], pl.FP32]:
        for n__idx_v0, (acc,) in pl.range(0, 256, 128, init_values=(out__ssa_v0,)):
            rhs_n__tile = pl.load(
                rhs__ssa_v0,
                [0, n__idx_v0],
                [256, 128],
                target_memory=pl.Mem.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            lhs__ssa_v0_mat: pl.Tile[[256, 256], pl.BF16] = pl.load(
                lhs__ssa_v0,
                [0, 0],
                [256, 256],
                target_memory=pl.MemorySpace.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            c_n__tile_l0_init: pl.Tile[[256, 128], pl.FP32] = pl.create_tile(
                [256, 128],
                dtype=pl.FP32,
                target_memory=pl.MemorySpace.Acc,
            )
            for c_n__tile_l0_ko, (c_n__tile_l0_c,) in pl.pipeline(0, 256, 64, stage=2, init_values=(c_n__tile_l0_init,)):
                c_n__tile_l0_a = pl.tile.extract(
                    lhs__ssa_v0_mat,
                    0,
                    c_n__tile_l0_ko,
                    [256, 64],
                    target_memory=pl.Mem.Left,
                )
                c_n__tile_l0_b = pl.tile.extract(
                    rhs_n__tile,
                    c_n__tile_l0_ko,
                    0,
                    [64, 128],
                    target_memory=pl.Mem.Right,
                )
                if c_n__tile_l0_ko == 0:
                    c_n__tile_l0_c_first: pl.Tile[[256, 128], pl.FP32] = pl.matmul(
                        c_n__tile_l0_a,
                        c_n__tile_l0_b,
                    )
                    c_n__tile_l0_c_phi = pl.yield_(c_n__tile_l0_c_first)
                else:
                    c_n__tile_l0_c_acc: pl.Tile[[256, 128], pl.FP32] = pl.matmul_acc(
                        c_n__tile_l0_c,
                        c_n__tile_l0_a,
                        c_n__tile_l0_b,
                    )
                    c_n__tile_l0_c_phi = pl.yield_(c_n__tile_l0_c_acc)
                c_n__tile = pl.yield_(c_n__tile_l0_c_phi)
            acc_next__tile = pl.store(c_n__tile, [0, n__idx_v0], acc)
            result = pl.yield_(acc_next__tile)
        return result
        # a comment at the tail of a block is dropped (PyPTO warns about it)

    @pl.function(type=pl.FunctionType.Orchestration)  # PyPTO drops a comment on the decorator line
    def main(
        self,
        rhs__ssa_v0: pl.Tensor[[256, 256], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
    ) -> pl.Tensor[[256, 256], pl.FP32]:
        fresh_lhs__ssa_v0: pl.Tensor[[256, 256], pl.BF16] = pl.create_tensor(
            [256, 256],
            dtype=pl.BF16,
        )
        result__ssa_v0 = self.kernel(fresh_lhs__ssa_v0, rhs__ssa_v0, out__ssa_v0)
        return result__ssa_v0
        # a comment at the tail of a block is dropped (PyPTO warns about it)
