import pypto.language as pl


@pl.program
class BadGatherDtype:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[256, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat]:
        acc = pl.tile.create([16, 64], dtype=pl.FP16, target_memory=pl.Mem.Mat)
        acc = pl.gather_row(acc, src, [0, 0], [0, 0], [1, 64])
        return acc
