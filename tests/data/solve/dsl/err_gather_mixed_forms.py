import pypto.language as pl

# tilemem test: pl.tensor.gather mixing the index and compare forms (PyPTO's wrapper refuses it)


@pl.program
class G:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32], kv: pl.Scalar[pl.FP32], dst: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = pl.tensor.gather(src, dim=-1, index=idx, kvalue=kv, cmp_mode="eq", out_cols=8)
        return src
