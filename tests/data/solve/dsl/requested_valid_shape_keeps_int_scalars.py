import pypto.language as pl


@pl.program
class RequestedValid:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], rows: pl.Scalar[pl.INT32], cols: pl.Scalar[pl.INT64],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        # the requested extents are kept as written; only derived index arithmetic casts
        t = pl.load(x, [0, 0], [64, 64], valid_shape=[rows, cols])
        return pl.store(t, [0, 0], out)
