import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case load_default_vec_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)  # PyPTO drops a comment on the decorator line
    def main_incore_0(
        self,
        x: pl.Tensor[[64], pl.FP32],
        out_0: pl.Out[pl.Tensor[[64], pl.FP32]],
    ) -> pl.Tensor[[64], pl.FP32]:
        x_tile = pl.load(x, [0], [64])
        out_0: pl.Tensor[[64], pl.FP32] = pl.store(x_tile, [0], out_0)
        return out_0

    @pl.function
    def main(
        self,
        x: pl.Tensor[[64], pl.FP32],
    ) -> pl.Tensor[[64], pl.FP32]:
        out_0: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        y = self.main_incore_0(x, out_0)
        return y
        # a comment at the tail of a block is dropped (PyPTO warns about it)
