import pypto.language as pl


@pl.program
class BadCmpMode:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src_t: pl.Tensor[[16, 64], pl.FP32], kv: pl.Scalar[pl.FP32]):
        src = pl.load(src_t, [0, 0], [16, 64])
        tmp = pl.tile.create([16, 64], pl.UINT8)
        dst, cnt = pl.tile.gather_compare(src, kv, tmp, cmp_mode="gte", out_cols=8)
