import pypto.language as pl


# tilemem test: a hand-written DSL version of the golden case matmul_gets_acc_1
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)  # PyPTO drops a comment on the decorator line
    def main_incore_0(
        self,
        x: pl.Tensor[[16, 128], pl.BF16],
        y: pl.Tensor[[128, 128], pl.BF16],
        out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        x_tile = pl.load(x, [0, 0], [16, 128])
        y_tile = pl.load(y, [0, 0], [128, 128])
        z_tile: pl.Tile[[16, 128], pl.FP32] = pl.matmul(x_tile, y_tile)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.store(z_tile, [0, 0], out_0)
        return out_0
        # a comment at the tail of a block is dropped (PyPTO warns about it)

    @pl.function  # PyPTO drops a comment on the decorator line
    def main(
        self,
        x: pl.Tensor[[16, 128], pl.BF16],
        y: pl.Tensor[[128, 128], pl.BF16],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.create_tensor([16, 128], dtype=pl.FP32)
        z = self.main_incore_0(x, y, out_0)
        return z
