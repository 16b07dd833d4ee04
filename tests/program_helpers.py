"""Small test programs written out in printed IR: one InCore function ``k`` of a program ``T``."""
import textwrap


def incore_program(body: str, sig: str) -> str:
    """The program whose InCore function has signature ``sig`` (``def k(...) -> ...:``)
    and ``body`` (indented as written, any common indent removed)."""
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return (
        "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n"
        "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n"
        f"    {sig}\n{body}\n"
    )


# A Mat matmul whose result is added (so the Acc result moves to Vec) and stored.
MATMUL_ADD = """
    a: pl.Tile[[16, 128], pl.BF16] = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
    b: pl.Tile[[128, 128], pl.BF16] = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
    c: pl.Tile[[16, 128], pl.FP32] = pl.tile.matmul(a, b)
    d: pl.Tile[[16, 128], pl.FP32] = pl.tile.add(c, c)
    out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(d, [0, 0], out_0)
    return out_0
"""
