import pypto.language as pl


@pl.program
class InitCond:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        acc = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k in pl.range(2):
            x = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            y = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            acc = pl.matmul_acc(acc, x, y, init_cond=k)
        return pl.store(acc, [0, 0], out)
