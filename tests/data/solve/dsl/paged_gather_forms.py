import pypto.language as pl


@pl.program
class PagedGather:
    @pl.function(type=pl.FunctionType.InCore)
    def to_l1(self, src: pl.Tensor[[256, 128], pl.FP16], idx: pl.Tensor[[16], pl.INT32],
              bt: pl.Tensor[[8], pl.INT32]) -> pl.Tensor[[16, 128], pl.FP16]:
        # rows through a block table straight into L1: a [max_indices, size] tensor
        out = pl.paged_gather(src, idx, bt, block_size=128, size=128, max_indices=16)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def to_ub_cols(self, src: pl.Tensor[[256, 128], pl.BF16], idx: pl.Tensor[[1, 16], pl.INT32],
                   bt: pl.Tensor[[1, 8], pl.INT32]) -> pl.Tensor[[32, 64], pl.BF16]:
        # transposed into L1, or rows into UB from a column offset
        t = pl.tensor.paged_gather(src, idx, bt, block_size=128, size=64, max_indices=32, is_trans=True)
        v = pl.paged_gather(src, idx, bt, block_size=128, size=64, max_indices=32, space=pl.Mem.Vec, col_off=64)
        return v
