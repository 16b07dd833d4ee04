import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class WorldSizeInScope:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pld.world_size()
        return x
