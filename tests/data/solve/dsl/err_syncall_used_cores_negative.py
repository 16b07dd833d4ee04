import pypto.language as pl

# tilemem test: a soft syncall's constant used_cores lies in the INT32 range [0, 2**31 - 1]
# (language/op/system_ops.py; ranges.txt), and an expression there is an INT32 scalar
# (dtypes.txt; test_dsl.py): -3 is an error

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_syncall_soft(
        self,
        x: pl.Tensor[[16, 16], pl.FP32],
        out: pl.Tensor[[16, 16], pl.FP32],
        ws: pl.Tensor[[16], pl.INT32],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        tile: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        pl.system.syncall(mode="soft", core_type="aiv_only", gm_workspace=ws, used_cores=-3)
        updated: pl.Tensor[[16, 16], pl.FP32] = pl.store(tile, [0, 0], out)
        return updated
