import pypto.language as pl

# tilemem test: simple statements separated by ';' (PyPTO reads them with Python's ast): comments above, between and after them, a trailing ';', a return after one


@pl.program
class Semi:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        # above the first line
        x = pl.load(a, [0, 0], [16, 128]); y = pl.exp(x)  # after both
        # between lines
        z = pl.add(x, y);  # trailing semicolon
        w = pl.mul(z, z) ; v = pl.sub(w, x) ;
        out = pl.store(v, [0, 0], out); return out

    @pl.function
    def main(self, a: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        out = pl.create_tensor([16, 128], dtype=pl.FP32); r = self.kernel(a, out); return r
