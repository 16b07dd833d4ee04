import pypto.language as pl


@pl.program
class BadMrgsort:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[1, 128], pl.FP32], b: pl.Tensor[[1, 128], pl.FP32], c: pl.Tensor[[1, 128], pl.FP16]) -> pl.Tensor[[1, 384], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.tensor.mrgsort(a, b, c)
        return r
