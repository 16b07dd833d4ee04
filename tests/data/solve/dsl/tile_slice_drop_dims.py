import pypto.language as pl


@pl.program
class SliceDropDims:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], row: pl.Scalar[pl.INDEX],
          dst: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 32])
        # a rank-reducing window stays 2-D (a unit axis in front); an empty valid_shape is none
        a = pl.tile.slice(t, [1, 32], [row, 0], [], [0])
        b = pl.tile.slice(t, [1, 32], [row, 0], drop_dims=[0])
        # a subscript with a scalar index is the same slice, also as another op's operand
        c = pl.add(a, t[row])
        d = pl.add(b, c)
        return pl.store(d, [0, 0], dst)
