import pypto.language as pl


@pl.program
class BatchAcc:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 32, 16], pl.FP16], out: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        lhs = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        rhs = pl.tile.load(b, [0, 0, 0], [2, 32, 16], target_memory=pl.Mem.Mat)
        acc = pl.tile.batch_matmul(lhs, rhs)
        acc2 = pl.tile.batch_matmul_acc(lhs, acc, rhs)
        out = pl.store(acc2, [0, 0, 0], out)
        return out
