import pypto.language as pl


@pl.program
class DumpInKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        # a dump marker means something only where tasks are dispatched
        pl.dump_tag(a)
        x = pl.load(a, [0, 0], [16, 64])
        return pl.store(x, [0, 0], out)
