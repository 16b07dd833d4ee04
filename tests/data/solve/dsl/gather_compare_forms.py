import pypto.language as pl


@pl.program
class GatherCompare:
    @pl.function(type=pl.FunctionType.InCore)
    def tiles(self, src_t: pl.Tensor[[16, 64], pl.FP32], kv: pl.Scalar[pl.FP32],
              out: pl.Out[pl.Tensor[[16, 8], pl.INT32]]) -> pl.Tensor[[16, 8], pl.INT32]:
        src = pl.load(src_t, [0, 0], [16, 64])
        tmp = pl.tile.create([16, 64], pl.UINT8)
        # a (dst, cdst) pair: the indices and the per-row counts; cmp_mode is stored as its number
        dst, cnt = pl.tile.gather_compare(src, kv, tmp, cmp_mode="ge", out_cols=8)
        dst2, cnt2 = pl.tile.gather_compare(src, kv, tmp, cmp_mode=3, offset=4, out_cols=8, count_dtype=pl.UINT32)
        both = pl.add(dst, dst2)
        out = pl.store(both, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Opaque)
    def tensors(self, src: pl.Tensor[[16, 64], pl.INT16], kv_buf: pl.Tensor[[1], pl.INT16],
                out_cdst: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            kv = pl.tensor.read(kv_buf, [0])
            # the compare form of gather: kvalue, cmp_mode and out_cols
            dst, cdst = pl.gather(src, kvalue=kv, cmp_mode="lt", out_cols=4)
            out_cdst = pl.assemble(out_cdst, cdst, [0, 0])
        return out_cdst
