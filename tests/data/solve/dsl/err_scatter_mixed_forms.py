import pypto.language as pl

# tilemem test: pl.tensor.scatter mixing the index and mask forms


@pl.program
class G:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32], kv: pl.Scalar[pl.FP32], dst: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = pl.tensor.scatter(src, dim=-1, index=idx, src=idx, mask_pattern=1)
        return src
