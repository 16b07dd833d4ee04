import pypto.language as pl


@pl.program
class ScatterIdx:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(
        self,
        x: pl.Tensor[[16, 64], pl.FP16],
        idx: pl.Tensor[[16, 64], pl.INT32],
        src: pl.Tensor[[16, 64], pl.FP16],
    ) -> pl.Tensor[[16, 64], pl.FP16]:
        # a 2-byte input takes 2-byte indices
        y = pl.tensor.scatter(x, dim=1, index=idx, src=src)
        return y
