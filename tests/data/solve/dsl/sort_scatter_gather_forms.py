import pypto.language as pl


@pl.program
class SortScatterGather:
    @pl.function(type=pl.FunctionType.Orchestration)
    def tensors(self, src: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 64], pl.UINT32],
                base: pl.Tensor[[16, 32], pl.FP32], index: pl.Tensor[[16, 32], pl.INT32],
                val: pl.Tensor[[16, 32], pl.FP32], dst: pl.Tensor[[16, 64], pl.FP32],
                rows: pl.Tensor[[4, 32], pl.INT32]) -> pl.Tensor[[8, 128], pl.FP32]:
        s = pl.sort32(src, idx)                          # the last dim doubles
        m1 = pl.mrgsort(s, block_len=64)                 # format1
        m2 = pl.tensor.mrgsort(src, src, exhausted=True)  # format2: the lists' lengths add up
        a = pl.tensor.scatter(base, dim=-1, index=index, src=val)
        b = pl.scatter(base, mask_pattern=pl.tile.MaskPattern.P0101, dst=dst)
        g = pl.gather(base, mask_pattern=pl.tile.MaskPattern.P0001)
        h = pl.tensor.gather(base, mask_pattern=7, output_dtype=pl.INT32)
        u = pl.scatter_update(base, -2, rows, val)
        return m1

    @pl.function(type=pl.FunctionType.InCore)
    def tiles(self, x: pl.Tensor[[1, 128], pl.FP32], y: pl.Tensor[[1, 128], pl.FP32],
              out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        a = pl.load(x, [0, 0], [1, 128])
        b = pl.load(y, [0, 0], [1, 128])
        t = pl.tile.create([1, 256], dtype=pl.FP32)
        one = pl.tile.mrgsort(a, block_len=64)
        two = pl.mrgsort(one, b, tmp=t)
        out = pl.store(two, [0, 0], out)
        return out
