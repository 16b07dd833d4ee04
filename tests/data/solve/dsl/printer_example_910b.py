# printer.md §7: a small program read as PyPTO's front end reads it (no import line:
# the front end provides `pl`), solved with and without a backend.
@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, b: pl.Tensor[[16, 128], pl.FP32], m: pl.Tensor[[16, 128], pl.FP32],
          out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        b_tile: pl.Tile[[16, 128], pl.FP32] = pl.load(b, [0, 0], [16, 128])
        m_tile: pl.Tile[[16, 128], pl.FP32] = pl.load(m, [0, 0], [16, 128], target_memory=pl.MemorySpace.Mat)
        s: pl.Tile[[16, 128], pl.FP32] = pl.tile.add(b_tile, m_tile)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.store(s, [0, 0], out_0)
        return out_0
