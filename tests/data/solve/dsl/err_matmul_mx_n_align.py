import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP8E4M3FN], a_scale: pl.Tensor[[16, 2], pl.FP8E8M0, pl.MX_A_ZZ],
          b: pl.Tensor[[64, 16], pl.FP8E4M3FN], b_scale: pl.Tensor[[2, 16], pl.FP8E8M0, pl.MX_B_NN]):
        lhs = pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        lhs_scale = pl.move(pl.load(a_scale, [0, 0], [16, 2], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        rhs = pl.move(pl.load(b, [0, 0], [64, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        rhs_scale = pl.move(pl.load(b_scale, [0, 0], [2, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
        c = pl.matmul_mx(lhs, lhs_scale, rhs, rhs_scale)
