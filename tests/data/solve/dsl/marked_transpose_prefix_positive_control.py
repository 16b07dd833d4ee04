import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case marked_transpose_prefix_positive_control_1
@pl.program
class MarkedResidencyGate:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        lhs__ssa_v0: pl.Tensor[[128, 16], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        for n__idx_v0 in pl.range(2):
            lhs_mat__ssa_v0 = pl.load(
                lhs__ssa_v0,
                [0, 0],
                [128, 16],
                target_memory=pl.Mem.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            lhs_t__ssa_v0: pl.Tile[[16, 128], pl.BF16] = pl.tile.transpose_view(lhs_mat__ssa_v0)
            rhs_mat__ssa_v0 = pl.load(
                rhs__ssa_v0,
                [0, 0],
                [128, 128],
                target_memory=pl.Mem.Mat,
                attrs={"__compiler_tensor_to_tile_mat_bridge": True},
            )
            lhs_left__ssa_v0 = pl.move(lhs_t__ssa_v0, target_memory=pl.Mem.Left)
            rhs_right__ssa_v0 = pl.move(rhs_mat__ssa_v0, target_memory=pl.MemorySpace.Right)
            c__ssa_v0 = pl.matmul(lhs_left__ssa_v0, rhs_right__ssa_v0)
        return out__ssa_v0
        # a comment at the tail of a block is dropped (PyPTO warns about it)

    @pl.function(type=pl.FunctionType.Orchestration)  # PyPTO drops a comment on the decorator line
    def main(
        self,
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        lhs__ssa_v0 = pl.create_tensor([128, 16], dtype=pl.BF16)
        result__ssa_v0 = self.kernel(lhs__ssa_v0, rhs__ssa_v0, out__ssa_v0)
        return result__ssa_v0
