import pypto.language as pl

# tilemem test: a subscript's implicit extent comes from the tensor's type, whose dim may be
# a symbol named otherwise than its variable (NR = pl.dynamic("world_size")) or a scalar of
# the body (expected outputs: PyPTO's)

NR = pl.dynamic("world_size")


@pl.program
class Sub:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[NR, 4, NR, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[NR, 4, NR, 64], pl.FP32]:
        a = x[0]
        b = x[1, 2]
        m = n + 1
        y = pl.create_tensor([m, 64], dtype=pl.FP32)
        c = y[1:]
        return x
