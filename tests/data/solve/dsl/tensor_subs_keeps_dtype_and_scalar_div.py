import pypto.language as pl


@pl.program
class SubsAndDiv:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[32, 64], pl.INT16], cfg: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[32, 64], pl.INT16]:
        # tensor.subs keeps the tensor's dtype against a float scalar
        r = pl.sub(src, 2.0)
        a = pl.tensor.read(cfg, [0])
        b = pl.tensor.read(cfg, [1])
        # two scalars divide as Python numbers
        c = pl.div(a, b)
        return r
