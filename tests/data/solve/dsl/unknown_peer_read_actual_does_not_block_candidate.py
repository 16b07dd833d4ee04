import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case unknown_peer_read_actual_does_not_block_candidate_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def worker(
        self,
        lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[128, 256], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 256], pl.FP32]],
    ) -> pl.Tensor[[16, 256], pl.FP32]:
        for n__idx_v0, (acc,) in pl.range(0, 256, 128, init_values=(out__ssa_v0,)):
            rhs_n__tile = pl.load(
                rhs__ssa_v0,
                [0, n__idx_v0],
                [128, 128],
                target_memory=pl.Mem.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            lhs__ssa_v0_mat: pl.Tile[[16, 128], pl.BF16] = pl.load(
                lhs__ssa_v0,
                [0, 0],
                [16, 128],
                target_memory=pl.MemorySpace.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            c_n__tile: pl.Tile[[16, 128], pl.FP32] = pl.matmul(lhs__ssa_v0_mat, rhs_n__tile)
            acc_next__tile = pl.store(c_n__tile, [0, n__idx_v0], acc)
            result = pl.yield_(acc_next__tile)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        backing_rhs__ssa_v0: pl.Tensor[[256, 256], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 256], pl.FP32]],
    ) -> pl.Tensor[[16, 256], pl.FP32]:
        fresh_lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16] = pl.create_tensor(
            [16, 128],
            dtype=pl.BF16,
        )
        result__ssa_v0 = self.worker(fresh_lhs__ssa_v0, pl.tensor.slice(backing_rhs__ssa_v0, [128, 256], [0, 0]), out__ssa_v0)
        return result__ssa_v0
        # a comment at the tail of a block is dropped (PyPTO warns about it)
