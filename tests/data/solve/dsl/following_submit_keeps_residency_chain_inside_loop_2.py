import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case following_submit_keeps_residency_chain_inside_loop_2
@pl.program
class MarkedFollowingSubmitResidency:
    @pl.function(type=pl.FunctionType.InCore)  # PyPTO drops a comment on the decorator line
    def task(
        self,
        out__ssa_v0: pl.InOut[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        return out__ssa_v0

    @pl.function(type=pl.FunctionType.InCore)
    def worker(
        self,
        lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.InOut[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        for n__idx_v0 in pl.range(2):
            lhs_mat__ssa_v0 = pl.load(
                lhs__ssa_v0,
                [0, 0],
                [16, 128],
                target_memory=pl.Mem.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            rhs_mat__ssa_v0 = pl.load(
                rhs__ssa_v0,
                [0, 0],
                [128, 128],
                target_memory=pl.MemorySpace.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            lhs_left__ssa_v0 = pl.move(lhs_mat__ssa_v0, target_memory=pl.MemorySpace.Left)
            rhs_right__ssa_v0 = pl.move(rhs_mat__ssa_v0, target_memory=pl.MemorySpace.Right)
            c__ssa_v0 = pl.matmul(lhs_left__ssa_v0, rhs_right__ssa_v0)
            with pl.scope(mode=pl.ScopeMode.MANUAL):
                _submit_tmp__ssa_v0: pl.Tuple[pl.Tensor[[16, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.task, out__ssa_v0)
                _result__ssa_v0 = _submit_tmp__ssa_v0[0]
                _tid__ssa_v0: pl.Scalar[pl.TASK_ID] = _submit_tmp__ssa_v0[1]
        return out__ssa_v0

    @pl.function(type=pl.FunctionType.Orchestration)  # PyPTO drops a comment on the decorator line
    def main(
        self,
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.InOut[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        fresh_lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16] = pl.create_tensor(
            [16, 128],
            dtype=pl.BF16,
        )
        result__ssa_v0 = self.worker(fresh_lhs__ssa_v0, rhs__ssa_v0, out__ssa_v0)
        return result__ssa_v0
