import pypto.language as pl


@pl.program
class GatherRows:
    @pl.function(type=pl.FunctionType.InCore)
    def tile_rows(self, src: pl.Tensor[[256, 64], pl.FP16], n: pl.Tensor[[1], pl.INT32],
                  out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]) -> pl.Tensor[[16, 64], pl.FP16]:
        rows = pl.cast(pl.read(n, [0]), pl.INDEX)
        acc = pl.tile.create([16, 64], dtype=pl.FP16, target_memory=pl.Mem.Mat)
        # one GM row per step, written in place; valid_shape narrows only the transfer
        for i, (a,) in pl.range(16, init_values=(acc,)):
            a2 = pl.gather_row(a, src, [i, 0], [i * 2, 0], [1, 64], valid_shape=[1, rows])
            filled = pl.yield_(a2)
        acc2 = pl.tile.gather_row(filled, src, [0, 0], [8, 0], [1, 64], transpose=False)
        out = pl.store(acc2, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def tensor_rows(self, src: pl.Tensor[[256, 32], pl.BF16]) -> pl.Tensor[[32, 16], pl.BF16]:
        # the tensor form: an L1 accumulator filled by transposing gathers
        kv = pl.create_l1([32, 16], pl.BF16, transpose=True)
        kv = pl.gather_row(kv, src, [0, 0], [4, 0], [1, 32], transpose=True, valid_shape=[1, 16])
        kv = pl.tensor.gather_row(kv, src, [0, 1], [5, 0], [1, 32], transpose=True)
        return kv
