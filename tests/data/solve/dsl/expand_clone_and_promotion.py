import pypto.language as pl


@pl.program
class ExpandClone:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[1, 4, 8], pl.FP16], target: pl.Tensor[[2, 4, 8], pl.FP32],
          a: pl.Tensor[[4, 8], pl.UINT32], b: pl.Tensor[[4, 8], pl.INT32]) -> pl.Tensor[[4, 8], pl.INT32]:
        # the target's shape, the promoted dtype (FP16 with FP32: FP32)
        y = pl.expand_clone(src, target)
        z = pl.tensor.expand_clone(src, src)
        # equal widths: the signed integer wins, whichever side it is on
        s = pl.add(a, b)
        t = pl.add(b, a)
        u = pl.add(s, t)
        return u
