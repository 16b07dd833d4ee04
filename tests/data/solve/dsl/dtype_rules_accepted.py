import pypto.language as pl


@pl.program
class DtypeRules:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP16], m: pl.Tensor[[16, 64], pl.INT16],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP16]], bits: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
        x = pl.load(a, [0, 0], [16, 64])
        # log and div take FP16; a Python int fill value stays an int
        y = pl.log(x)
        z = pl.div(y, pl.tile.full([16, 64], dtype=pl.FP16, value=2))
        w = pl.load(m, [0, 0], [16, 64])
        n = pl.tile.not_(pl.tile.shls(w, 1))
        pl.store(n, [0, 0], bits)
        return pl.store(z, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, c: pl.Tensor[[16, 64], pl.INT32]) -> pl.Tensor[[16, 64], pl.FP32]:
        # tensor.exp of an integer tensor is FP32
        e = pl.exp(c)
        r = pl.sqrt(e)
        return r
