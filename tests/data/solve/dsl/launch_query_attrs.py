import pypto.language as pl


@pl.program
class LaunchQueries:
    # a launch width as a function attr: the query call itself, printed in the body's pl.func_attr
    @pl.function(type=pl.FunctionType.Spmd, attrs={"core_num": pl.system.available_aiv_count()})
    def vec_kernel(self, x: pl.Tensor[[4], pl.FP16]) -> pl.Tensor[[4], pl.FP16]:
        return x

    @pl.function(type=pl.FunctionType.Spmd)
    def cube_kernel(self, x: pl.Tensor[[4], pl.FP16]) -> pl.Tensor[[4], pl.FP16]:
        pl.func_attr({"core_num": pl.system.available_cluster_count()})
        return x
