import pypto.language as pl


@pl.program
class NoDep:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        x: pl.Tensor[[16], pl.FP32],
        out: pl.Out[pl.Tensor[[16], pl.FP32]],
        task: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[16], pl.FP32]:
        t = pl.load(x, [0], [16])
        return pl.store(t, [0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[16], pl.FP32],
        out: pl.Out[pl.Tensor[[16], pl.FP32]],
        task: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[16], pl.FP32]:
        pl.dump_tag(x)
        a = self.k(pl.no_dep(x), out, task, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing, pl.adir.scalar], "tag": 3})
        with pl.manual_scope():
            b, t1 = pl.submit(self.k, x, pl.no_dep(pl.no_dep(a)), task)
            c, t2 = pl.submit(
                self.k,
                pl.no_dep(x),
                b,
                task,
                deps=[t1],
                dumps=[x],
                attrs={"tag": 1, "arg_directions": [pl.adir.input, pl.adir.output_existing, pl.adir.scalar]},
            )
        return c
