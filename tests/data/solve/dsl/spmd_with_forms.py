import pypto.language as pl


@pl.program
class SpmdForms:
    """with pl.spmd(...) in the shapes PyPTO's printer gives back."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[512, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i * 128, 0], [128, 128])
        out = pl.store(t, [i * 128, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def leading_index(self, a: pl.Tensor[[512, 128], pl.FP32],
                      out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        # the block index read first: printed back as a loop
        with pl.spmd(core_num=4, name_hint="rows"):
            i = pl.tile.get_block_idx()
            t = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(pl.add(t, t), [i * 128, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def later_index(self, a: pl.Tensor[[512, 128], pl.FP32],
                    out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        with pl.spmd(4, optimizations=[pl.split(pl.SplitMode.NONE, slot_num=4)]):
            n = 128
            i = pl.tile.get_block_idx()  # not first: the InCore scope is printed
            t = pl.load(a, [i * n, 0], [128, 128])
            out = pl.store(t, [i * n, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def dispatch(self, a: pl.Tensor[[512, 128], pl.FP32],
                 out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        pl.dump_tag(a)
        with pl.spmd(4) as tid:
            out = self.kernel(a, out)
        with pl.at(pl.Level.CORE_GROUP, no_dep_args=[]):
            t = pl.load(a, [0, 0], [128, 128])
            out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def inline_tid(self, a: pl.Tensor[[512, 128], pl.FP32],
                   out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        with pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]) as tid:
            i = pl.tile.get_block_idx()
            t = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        return out
