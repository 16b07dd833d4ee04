import pypto.language as pl

# tilemem test: a comprehension in a with header's deps= (a manual scope fencing on earlier
# scopes) is unrolled as PyPTO unrolls it, wrapped over lines or filtered (expected outputs: PyPTO's)

K = 3


@pl.program
class WithDeps:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        tids = pl.array.create(K, pl.TASK_ID)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="p0") as t0:
            y0: pl.Tensor[[64], pl.FP32] = x
        tids[0] = t0
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="p1") as t1:
            y1: pl.Tensor[[64], pl.FP32] = y0
        tids[1] = t1
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="p2") as t2:
            y2: pl.Tensor[[64], pl.FP32] = y1
        tids[2] = t2
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="c1", deps=[tids[k] for k in range(K) if k != 1]):
            z: pl.Tensor[[64], pl.FP32] = y2
        with pl.at(
            level=pl.Level.CORE_GROUP,
            name_hint="c2",
            deps=[tids[k]
                  for k in range(K)],
        ):
            w: pl.Tensor[[64], pl.FP32] = z
        return w
