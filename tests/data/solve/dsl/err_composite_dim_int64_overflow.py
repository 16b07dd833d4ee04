import pypto.language as pl
# tilemem test: an integer literal past int64 inside a composite dim is rejected where it is written
# (PyPTO cannot build the ConstInt; tilemem printed it)

K = pl.dynamic("K")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[K * 100000000000000000000000000000, 64], pl.FP32]) -> pl.Tensor[[K * 100000000000000000000000000000, 64], pl.FP32]:
        return x
