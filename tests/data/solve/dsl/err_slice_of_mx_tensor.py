import pypto.language as pl


@pl.program
class MxSlice:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: pl.Tensor[[16, 8], pl.FP8E8M0, pl.MX_A_ZZ]) -> pl.Tensor[[16, 8], pl.FP8E8M0, pl.MX_A_ZZ]:
        part = pl.slice(s, [8, 8], [8, 0])
        return s
