import pypto.language as pl


@pl.program
class BadGemvBias:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 128], pl.FP16], b: pl.Tensor[[128, 128], pl.FP16], c: pl.Tensor[[2, 128], pl.FP32]):
        a_l1 = pl.load(a, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
        b_l1 = pl.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        c_l1 = pl.load(c, [0, 0], [2, 128], target_memory=pl.Mem.Mat)
        lhs = pl.move(a_l1, target_memory=pl.Mem.Left)
        rhs = pl.move(b_l1, target_memory=pl.Mem.Right)
        bias = pl.move(c_l1, target_memory=pl.Mem.Bias)
        r = pl.gemv_bias(lhs, rhs, bias)
