import pypto.language as pl


@pl.program
class BadGatherTranspose:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[256, 64], pl.FP16], n: pl.Scalar[pl.INDEX]) -> pl.Tile[[64, 16], pl.FP16, pl.Mem.Mat]:
        acc = pl.tile.create([64, 16], dtype=pl.FP16, target_memory=pl.Mem.Mat, transpose=True)
        acc = pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, 64], transpose=True, valid_shape=[1, n])
        return acc
