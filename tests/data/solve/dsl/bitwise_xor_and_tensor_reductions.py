import pypto.language as pl


@pl.program
class XorAndReductions:
    @pl.function(type=pl.FunctionType.InCore)
    def mix(self, a: pl.Tensor[[32, 32], pl.INT32], b: pl.Tensor[[32, 32], pl.INT32],
            out: pl.Out[pl.Tensor[[32, 32], pl.INT32]]) -> pl.Tensor[[32, 32], pl.INT32]:
        x = pl.load(a, [0, 0], [32, 32])
        y = pl.load(b, [0, 0], [32, 32])
        tmp = pl.tile.create([32, 32], dtype=pl.INT32)
        # pl.xor dispatches on the right operand: a tile, or a scalar (xors)
        z = pl.xor(x, y, tmp)
        w = pl.xors(z, 255, tmp)
        return pl.store(w, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.INT32]:
        p = pl.row_prod(s)
        m = pl.col_max(s)
        i = pl.col_argmax(s)
        return i
