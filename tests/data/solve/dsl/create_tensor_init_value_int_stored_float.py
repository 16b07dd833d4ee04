import pypto.language as pl


@pl.program
class C:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        t = pl.create_tensor([16], dtype=pl.FP32, init_value=0)
        return t
