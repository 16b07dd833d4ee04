import pypto.language as pl


@pl.program
class SplitInAic:
    """A bare pl.split_aiv loop opens its own InCore scope unless the function is InCore
    (or a scope already is): an AIC or AIV function gets the wrapper too."""

    @pl.function(type=pl.FunctionType.AIV)
    def main(
        self,
        a: pl.Tensor[[256, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            row = lane * 128
            t: pl.Tile[[128, 64], pl.FP32] = pl.load(a, [row, 0], [128, 64])
            out = pl.store(pl.exp(t), [row, 0], out)
        return out
