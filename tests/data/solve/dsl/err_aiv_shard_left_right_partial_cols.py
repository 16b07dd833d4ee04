import pypto.language as pl


@pl.program
class RaggedColumns:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self,
        a: pl.Tensor[[128, 128], pl.FP32],
        b: pl.Tensor[[128, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        a_mat: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(
            a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat
        )
        b_mat: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(
            b, [0, 0], [128, 128], [128, 64], target_memory=pl.Mem.Mat
        )
        qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            res: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(qk)
        stored: pl.Tensor[[128, 64], pl.FP32] = pl.tile.store(res, [0, 0], out)
        return stored
