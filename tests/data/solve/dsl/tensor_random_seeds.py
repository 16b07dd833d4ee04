import pypto.language as pl


@pl.program
class TensorRandom:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 256], pl.INT32], seed: pl.Scalar[pl.INT32]) -> pl.Tensor[[4, 256], pl.INT32]:
        # the seeds are INT32 constants (or INT32 scalars); dtype / rounds default to UINT32 / 10
        a = pl.random(0x1234, 0x5678, 1, 2, 3, 4, [4, 256])
        r = pl.tensor.random(seed, 2, 3, 4, 5, 6, [4, 256], dtype=pl.INT32, rounds=7)
        y = pl.add(r, x)
        return y
