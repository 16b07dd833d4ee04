import pypto.language as pl


@pl.program
class GemvAcc:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, acc_in: pl.Tensor[[16, 32], pl.FP32], a: pl.Tensor[[1, 16], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        acc: pl.Tile[[16, 32], pl.FP32] = pl.load(acc_in, [0, 0], [16, 32])
        x: pl.Tile[[1, 16], pl.FP32] = pl.load(a, [0, 0], [1, 16])
        w: pl.Tile[[16, 32], pl.FP32] = pl.load(b, [0, 0], [16, 32])
        c = pl.gemv_acc(acc, x, w)
        out = pl.store(c, [0, 0], out)
        return out
