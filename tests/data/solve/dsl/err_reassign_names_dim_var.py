import pypto.language as pl

tokens = pl.dynamic("TOKENS_DYN")


@pl.program
class Reassign:
    @pl.function(type=pl.FunctionType.Inline)
    def layer(self, h: pl.Tensor[[tokens, 128], pl.BF16], out: pl.Tensor[[tokens, 128], pl.BF16]) -> pl.Tensor[[tokens, 128], pl.BF16]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, h: pl.Tensor[[tokens, 128], pl.BF16]) -> pl.Tensor[[tokens, 128], pl.BF16]:
        n = pl.tensor.dim(h, 1)
        for _ in pl.range(2):
            nxt = pl.create_tensor([n, 128], dtype=pl.BF16)
            h = self.layer(h, nxt)
        return h
