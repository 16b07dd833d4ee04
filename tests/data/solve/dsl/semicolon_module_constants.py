import pypto.language as pl; N = 16; M = N * 2;

# tilemem test: ';' between module-level statements (constants the signature reads) and around statements that build nothing (pl.static_assert, pl.static_print)


@pl.program
class SemiModule:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[N, M], pl.FP32], out: pl.Out[pl.Tensor[[N, M], pl.FP32]]) -> pl.Tensor[[N, M], pl.FP32]:
        pl.static_assert(N == 16); x = pl.load(a, [0, 0], [N, M]); pl.static_print(x);
        out = pl.store(x, [0, 0], out); return out
