import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case iter_initializer_helper_keeps_residency_chain_inside_loop_1
@pl.program
class MarkedIterInitializerResidency:
    @pl.function(type=pl.FunctionType.InCore)
    def barrier(
        self,
        seed__ssa_v0: pl.Tensor[[16, 128], pl.FP32],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        fence__ssa_v0: pl.UnknownType = pl.system.fence()
        return seed__ssa_v0

    @pl.function(type=pl.FunctionType.InCore)
    def worker(
        self,
        lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        seed__ssa_v0: pl.Tensor[[16, 128], pl.FP32],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        for n__idx_v0, (carry,) in pl.range(2, init_values=(self.barrier(seed__ssa_v0),)):
            lhs_mat__ssa_v0 = pl.load(
                lhs__ssa_v0,
                [0, 0],
                [16, 128],
                target_memory=pl.MemorySpace.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            rhs_mat__ssa_v0 = pl.load(
                rhs__ssa_v0,
                [0, 0],
                [128, 128],
                target_memory=pl.Mem.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            lhs_left__ssa_v0 = pl.move(lhs_mat__ssa_v0, target_memory=pl.Mem.Left)
            rhs_right__ssa_v0 = pl.move(rhs_mat__ssa_v0, target_memory=pl.Mem.Right)
            c__ssa_v0 = pl.matmul(lhs_left__ssa_v0, rhs_right__ssa_v0)
            result = pl.yield_(seed__ssa_v0)
        return result
        # a comment at the tail of a block is dropped (PyPTO warns about it)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        seed__ssa_v0: pl.Tensor[[16, 128], pl.FP32],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        fresh_lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16] = pl.create_tensor(
            [16, 128],
            dtype=pl.BF16,
        )
        result__ssa_v0 = self.worker(fresh_lhs__ssa_v0, rhs__ssa_v0, seed__ssa_v0)
        return result__ssa_v0
