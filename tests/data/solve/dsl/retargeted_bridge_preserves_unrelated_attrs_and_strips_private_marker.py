import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case retargeted_bridge_preserves_unrelated_attrs_and_strips_private_marker_1
@pl.program
class RetargetedBridgeAttrs:
    @pl.function(type=pl.FunctionType.InCore)  # PyPTO drops a comment on the decorator line
    def kernel(
        self,
        lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        for n__idx_v0, (out__iter_v1,) in pl.range(2, init_values=(out__ssa_v0,)):
            lhs_mat__ssa_v0 = pl.load(
                lhs__ssa_v0,
                [0, 0],
                [16, 128],
                attrs={"__compiler_tensor_to_tile_mat_bridge": True, "residency_test_sentinel": 7},
            )
            rhs_mat__ssa_v0 = pl.load(
                rhs__ssa_v0,
                [0, 0],
                [128, 128],
                target_memory=pl.MemorySpace.Mat,
            )
            lhs_left__ssa_v0 = pl.tile.extract(
                lhs_mat__ssa_v0,
                0,
                0,
                [16, 128],
                target_memory=pl.Mem.Left,
            )
            rhs_right__ssa_v0 = pl.move(rhs_mat__ssa_v0, target_memory=pl.Mem.Right)
            c__ssa_v0 = pl.matmul(lhs_left__ssa_v0, rhs_right__ssa_v0)
            out__ssa_v3: pl.Tensor[[16, 128], pl.FP32] = pl.store(c__ssa_v0, [0, 0], out__iter_v1)
            out__rv_v2 = pl.yield_(out__ssa_v3)
        return out__rv_v2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        lhs__ssa_v0: pl.Tensor[[16, 128], pl.BF16],
        rhs__ssa_v0: pl.Tensor[[128, 128], pl.BF16],
        out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        result__ssa_v0 = self.kernel(lhs__ssa_v0, rhs__ssa_v0, out__ssa_v0)
        return result__ssa_v0
