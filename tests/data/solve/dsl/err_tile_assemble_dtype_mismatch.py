import pypto.language as pl

# tilemem test: tile.assemble's source has the target's dtype, except an FP32 source into a
# BF16 / FP16 target (the Acc->Mat FIXPIPE downcast; tile_ops/transform.cpp, dtypes.txt):
# an FP16 source into an FP32 target is an error


@pl.program
class Before:
    @pl.function(type=pl.FunctionType.AIV)
    def main(
        self,
        source_input: pl.Tensor[[64, 64], pl.FP16],
        input_b: pl.Tensor[[64, 64], pl.FP32],
        output: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        target = pl.tile.create([64, 64], pl.FP32)
        source = pl.load(source_input, [0, 0], [64, 64])
        _assembled = pl.tile.assemble(target, source, [0, 0])
        next_value = pl.load(input_b, [0, 0], [64, 64])
        return pl.store(next_value, [0, 0], output)
