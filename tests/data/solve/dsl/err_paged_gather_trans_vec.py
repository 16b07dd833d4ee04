import pypto.language as pl


@pl.program
class BadPagedGather:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[256, 128], pl.FP16], idx: pl.Tensor[[16], pl.INT32],
          bt: pl.Tensor[[8], pl.INT32]) -> pl.Tensor[[128, 16], pl.FP16]:
        out = pl.paged_gather(src, idx, bt, block_size=128, size=128, max_indices=16, space=pl.Mem.Vec, is_trans=True)
        return out
