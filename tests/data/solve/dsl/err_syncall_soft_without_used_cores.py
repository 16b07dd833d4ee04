import pypto.language as pl


@pl.program
class SoftSync:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], ws: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.system.syncall(mode="soft", core_type="aiv_only", gm_workspace=ws)
        return x
