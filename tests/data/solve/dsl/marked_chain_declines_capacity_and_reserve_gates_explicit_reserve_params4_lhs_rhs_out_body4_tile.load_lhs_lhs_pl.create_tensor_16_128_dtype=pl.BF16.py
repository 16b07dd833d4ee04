import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case marked_chain_declines_capacity_and_reserve_gates_explicit_reserve_params4_lhs_rhs_out_body4_tile.load_lhs_lhs_pl.create_tensor_16_128_dtype=pl.BF16_1
@pl.program
class MarkedResidencyGate:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        reserved__ssa_v0: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='residency_test', size=4096, base=-1)
        for n__idx_v0 in pl.range(2):
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
            rhs_right__ssa_v0 = pl.move(rhs_mat__ssa_v0, target_memory=pl.MemorySpace.Right)
            c__ssa_v0 = pl.matmul(lhs_left__ssa_v0, rhs_right__ssa_v0)
        return out__ssa_v0

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        lhs__ssa_v0 = pl.create_tensor([16, 128], dtype=pl.BF16)
        result__ssa_v0 = self.kernel(lhs__ssa_v0, rhs__ssa_v0, out__ssa_v0)
        return result__ssa_v0
