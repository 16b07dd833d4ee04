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
        # a positional literal is an IR constant: the registry declares dim an int
        y = pl.tensor.scatter(x, 1, idx, src)
        return y
