"""A test module as PyPTO users write them: programs at module level and inside test
functions, with Python around them.  tilemem reads the programs with Python's ast and
never runs the module (running it would raise at once)."""
import pytest

import pypto.language as pl

raise RuntimeError("tilemem must never run this module")

ROWS = 16          # a module constant the programs use
COLS = ROWS * 8


def helper(x):
    return x + 1


@pl.program
class AddOne:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
               out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [0, 0], [ROWS, COLS])      # Vec by default
        u = pl.add(t, 1.0)
        out = pl.store(u, [0, 0], out)
        return out


class TestKernels:
    def test_matmul(self):
        @pl.program
        class Matmul:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(
                self,
                a: pl.Tensor[[16, 64], pl.BF16],
                b: pl.Tensor[[64, 32], pl.BF16],
                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
            ) -> pl.Tensor[[16, 32], pl.FP32]:
                # both operands staged in Mat
                am = pl.load(a, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
                bm = pl.load(b, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat)
                c = pl.matmul(am, bm)
                out = pl.store(c, [0, 0], out)
                return out

        assert helper(1) == 2
        pytest.fail(str(Matmul))


def test_nested_in_a_function():
    @pl.program
    class Scale:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            acc = pl.create_tile([16, 64], dtype=pl.FP32)
            for i, (a,) in pl.range(4, init_values=(acc,)):
                t = pl.load(x, [0, 0], [16, 64])
                s = pl.add(a, t)
                r = pl.yield_(s)
            out = pl.store(r, [0, 0], out)
            return out

    return Scale
