import pypto.language as pl


@pl.program
class AtNoLevel:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(name_hint="body"):
            y = pl.add(x, x)
        return y
