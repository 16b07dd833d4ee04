"""The DSL reading: hand-written @pl.program text read as PyPTO's front end reads it.

The expected texts below were checked against PyPTO's own front end (the oracle build,
e2d0f78); they are written out here so the tests need nothing but tilemem.  Whole
programs (golden corpus programs rewritten by hand, error messages, a .py module with
several programs) are pairs under tests/data/solve/dsl/.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import tilemem
from tilemem.errors import TilememError
from tilemem.frontend.reading import input_form, read_program, read_programs
from tilemem.ir.printer import print_program

from cli_helpers import run_in_process

DATA = Path(__file__).parent / "data" / "solve" / "dsl"


def fmt(src: str, **kw) -> str:
    return print_program(read_program(textwrap.dedent(src), "k.py", **kw))


def body(src: str) -> list[str]:
    """The printed body lines of the first function (indent removed)."""
    lines = fmt(src).splitlines()
    i = next(i for i, l in enumerate(lines) if l.lstrip().startswith("def "))
    out = []
    for l in lines[i + 1:]:
        if l.startswith("    @pl.function") or l.lstrip().startswith("def "):
            break
        out.append(l[8:])
    return out


KERNEL_HEAD = """\
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
"""


def kernel(*stmts: str) -> str:
    """A kernel whose body is ``stmts`` (the first on line 7), then ``return o``."""
    return KERNEL_HEAD + "".join(f"        {s}\n" for s in stmts) + "        return o\n"


# ----------------------------------------------------------------------------- the reading rule

def test_reading_rule():
    assert input_form("# pypto.program: X\nimport pypto.language as pl\n") == "ir"
    assert input_form("\n\n# pypto.program: X\n") == "ir"
    assert input_form("import pypto.language as pl\n@pl.program\nclass X: ...\n") == "dsl"
    assert input_form("# a comment\n# pypto.program: X\n") == "dsl"
    assert input_form("# pypto.program: X\n", "dsl") == "dsl"
    assert input_form("import x\n", "ir") == "ir"


def test_same_line_two_readings():
    """A load without target_memory: in printed IR a compiler-built load (no kwarg: the
    pass decides its space), in hand-written DSL a Vec load (PyPTO's front end fills the
    default in)."""
    printed = textwrap.dedent("""\
        # pypto.program: P
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
            def k(a: pl.Tensor[[16, 64], pl.BF16]) -> pl.Tensor[[16, 64], pl.BF16]:
                x: pl.Tile[[16, 64], pl.BF16] = pl.tile.load(a, [0, 0], [16, 64], [16, 64])
                return a""")
    as_ir = print_program(tilemem.parse(printed))
    as_dsl = print_program(tilemem.parse(printed, form="dsl"))
    assert "pl.tile.load(a, [0, 0], [16, 64], [16, 64])\n" in as_ir + "\n"
    assert ("x: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], "
            "target_memory=pl.Mem.Vec)") in as_dsl
    assert (tilemem.parse(printed).reading, tilemem.parse(printed, form="dsl").reading) == ("ir", "dsl")


# ----------------------------------------------------------------------------- what the front end stores

def test_defaults_filled_and_types_deduced():
    got = body(kernel("t = pl.load(a, [0, 0], [16, 64])",
                      "u = pl.add(t, 2)",
                      "o = pl.store(u, [0, 0], o)"))
    assert got[:3] == [
        "t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)",
        "u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 2.0)",
        "o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], o)",
    ]


def test_decorator_level_role_and_self():
    text = fmt(kernel("pass"))
    assert "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)" in text
    assert "    def k(a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):" in text


def test_matmul_result_and_annotation_merge():
    got = body(kernel("x = pl.load(a, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)",
                      "c: pl.Tile[[16, 16], pl.FP32] = pl.matmul(x, pl.tile.transpose_view(x))",
                      "d = pl.add(c, c)"))
    assert got[1].startswith("c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x, pl.tile.transpose_view(x))")
    assert got[2] == ("d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, "
                      "slayout=pl.TileLayout.row_major)] = pl.tile.add(c, c)")


def test_names_of_reused_and_scoped_vars():
    got = body(kernel("for i in pl.range(2):",
                      "    pass",
                      "for i in pl.range(2):",
                      "    pass",
                      "z = i"))
    assert got == ["for i in pl.range(2):", "    pass", "for i_1 in pl.range(2):", "    pass",
                   "z: pl.Scalar[pl.INDEX] = i_1", "return o"]


def test_iter_arg_names():
    got = body(kernel("acc = pl.load(a, [0, 0], [16, 64])",
                      "for i, (acc,) in pl.range(4, init_values=(acc,)):",
                      "    acc = pl.add(acc, acc)",
                      "    acc = pl.yield_(acc)",
                      "o = pl.store(acc, [0, 0], o)"))
    assert got[1] == "for i, (acc_2,) in pl.range(4, init_values=(acc,)):"
    assert got[2].startswith("    acc_3: ") and got[2].endswith("= pl.tile.add(acc_2, acc_2)")
    assert got[3].startswith("    acc_1: ") and got[3].endswith("= pl.yield_(acc_3)")
    assert got[4].endswith("pl.tile.store(acc_1, [0, 0], o)")


def test_a_bound_yield_of_nothing_prints_bare_and_its_return_var_stays_defined():
    """``out = pl.yield_()`` ending a carried loop: PyPTO's printer writes the binding only
    for a yield of some values (python_printer.cpp VisitStmtBody), so it prints
    ``pl.yield_()``; the loop's return var ``out`` is still defined after the loop."""
    src = kernel("c = pl.load(a, [0, 0], [16, 64])",
                 "for i, (it,) in pl.range(2, init_values=(c,)):",
                 "    t = pl.add(it, it)",
                 "    out = pl.yield_()",
                 "o = pl.store(out, [0, 0], o)")
    got = body(src)
    assert got[3] == "    pl.yield_()"
    assert got[4].endswith("= pl.tile.store(out, [0, 0], o)")
    solved = tilemem.solve(src).text.splitlines()
    assert "            pl.yield_()" in solved
    assert not any("= pl.yield_()" in l for l in solved)
    # the same loop yielding a value keeps its binding
    assert body(src.replace("out = pl.yield_()", "out = pl.yield_(t)"))[3].startswith("    out: ")


def test_a_read_of_a_name_only_a_branch_yield_of_nothing_binds_names_it_as_written():
    """``p = pl.yield_()`` in both branches binds no return var; reading ``p`` after the
    ``if`` is an undefined name, reported as the user wrote it (never the reader's
    internal ``p#3`` key)."""
    src = kernel("c = pl.load(a, [0, 0], [16, 64])",
                 "if 1 > 0:",
                 "    p = pl.yield_()",
                 "else:",
                 "    p = pl.yield_()",
                 "o = pl.store(p, [0, 0], o)")
    with pytest.raises(TilememError) as e:
        tilemem.solve(src)
    assert e.value.message.endswith("reads undefined name 'p'"), e.value.message


def test_scalar_promotion_and_folding():
    got = body(kernel("n: pl.Scalar[pl.INT32] = 4",
                      "m = n + 1",
                      "k = [0, 64 * 2]"))
    assert got[:3] == ["n: pl.Scalar[pl.INT32] = pl.const(4, pl.INT32)",
                       "m: pl.Scalar[pl.INDEX] = pl.cast(n, pl.INDEX) + 1",
                       "k: pl.Tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]] = [0, 128]"]


def test_module_constants_are_folded():
    src = """\
        import pypto.language as pl
        N = 16
        M = N * 2

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[N, M], pl.FP32]):
                y = N + 1
                return a
        """
    text = fmt(src)
    assert "def k(a: pl.Tensor[[16, 32], pl.FP32]):" in text
    assert "y: pl.Scalar[pl.INDEX] = 17" in text


def test_names_are_those_bound_when_the_class_runs():
    """PyPTO reads a program when its class statement runs (decorator.py:1150): at module
    level it sees the names bound above the class; in a function, the function's names
    bound above it and every module-level name (the function runs after its module).
    Each outcome below is PyPTO's (oracle build)."""
    later = """\
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[{sig}, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
                t: pl.Tile[[{body}, 64], pl.FP32] = pl.load(a, [0, 0], [{body}, 64])
                return a

        N = 16
        """
    with pytest.raises(TilememError, match=r"NameError: name 'N' is not defined") as e:
        fmt(later.format(sig="N", body=16))
    assert (e.value.line, e.value.col) == (6, 31)
    with pytest.raises(TilememError, match=r"Undefined variable 'N'"):
        fmt(later.format(sig=16, body="N"))
    in_function = """\
        import pypto.language as pl

        def make():
            K = 32

            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a: pl.Tensor[[N, K], pl.FP32]) -> pl.Tensor[[N, K], pl.FP32]:
                    return a
            K = 8
            return P

        N = 16
        """
    assert "def k(a: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:" in fmt(in_function)


# ----------------------------------------------------------------------------- comments

def test_comments_as_pypto_attaches_them():
    src = """\
        import pypto.language as pl

        # above the class: never printed
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)  # on the decorator: never printed
            def k(self, a: pl.Tensor[[16], pl.FP32]):  # on the def line: goes to the first statement
                \"\"\"Docstring line.\"\"\"
                t = pl.load(a, [0], [16])  # trailing: printed above t
                # above u
                u = pl.exp(t)
                return a
                # tail of the block: dropped
        """
    assert body(src) == ["# on the def line: goes to the first statement", "# Docstring line.",
                         "# trailing: printed above t",
                         "t: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0], [16], [16], target_memory=pl.Mem.Vec)",
                         "# above u",
                         "u: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)",
                         "return a"]


def test_comments_survive_solve_on_statements_not_rebuilt():
    src = kernel("t = pl.load(a, [0, 0], [16, 64])",
                 "pl.store(t, [0, 0], o)  # keeps its comment (an EvalStmt is copied)")
    out = tilemem.solve(textwrap.dedent(src)).text.splitlines()
    i = out.index("        # keeps its comment (an EvalStmt is copied)")
    assert out[i + 1].lstrip().startswith("pl.tile.store(t, [0, 0], o)")


# ----------------------------------------------------------------------------- modules

MODULE = """\
    import os
    import pypto.language as pl

    os.system("touch {marker}")
    open("{marker}", "w").write("ran")

    def make():
        @pl.program
        class Inner:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[16], pl.FP32]):
                x = pl.load(a, [0], [16])  # line 12
                return a
        return Inner

    @pl.program
    class Outer:
        @pl.function
        def f(self, a: pl.Tensor[[16], pl.FP32]):
            return a
    """


def test_module_programs_found_and_nothing_run(tmp_path):
    marker = tmp_path / "ran"
    src = textwrap.dedent(MODULE.format(marker=marker))
    progs = read_programs(src, "m.py")
    assert [p.name for p in progs] == ["Inner", "Outer"]
    assert not marker.exists()
    # positions are in the user's file, nested class included
    x = progs[0].functions[0].body[0]
    assert (x.line, x.col) == (12, 13)
    assert read_programs(src, "m.py", program="Outer")[0].name == "Outer"
    with pytest.raises(TilememError, match="no program named 'Nope'"):
        read_programs(src, "m.py", program="Nope")
    with pytest.raises(TilememError, match="2 programs in this file"):
        read_program(src, "m.py")


def test_cli_solves_each_program_of_a_module(tmp_path, capsys):
    f = tmp_path / "m.py"
    f.write_text(textwrap.dedent(MODULE.format(marker=tmp_path / "ran")))
    status, out, err = run_in_process(capsys, "solve", str(f))
    assert status == 0, err
    assert out.count("# pypto.program: ") == 2
    status, out, err = run_in_process(capsys, "solve", str(f), "--program", "Outer", "--json")
    assert status == 0 and '"program": "Outer"' in out and '"reading": "dsl"' in out
    status, out, err = run_in_process(capsys, "solve", str(f), "--in-place")
    assert status == 2 and "hand-written DSL" in err
    assert not (tmp_path / "ran").exists()


# ----------------------------------------------------------------------------- rejections

@pytest.mark.parametrize("stmt,message", [
    ("x = pl.tile.matmull(a, a)", "Unknown pl.tile operation: matmull"),
    ("x = pl.expp(a)", "Unknown operation 'pl.expp'"),
    ("x = pl.load(a, [0, 0])", "pl operation 'load': load() missing 1 required positional argument: 'shapes'"),
    ("x = pl.load(a, [0, 0], [16, 64], foo=1)", "pl operation 'load': load() got an unexpected keyword argument 'foo'"),
    ("x = pl.tile.exp(a, a, a)", "pl.tile operation 'exp': exp() takes 1 positional argument but 3 were given"),
    ("x += 1", "Unsupported statement type: AugAssign"),
    ("x = y", "Undefined variable 'y'"),
    ("x = a if a else a", "Unsupported expression type: IfExp"),
    ("break", "'break' outside loop"),
])
def test_front_end_rejections(stmt, message):
    with pytest.raises(TilememError) as e:
        read_program(textwrap.dedent(kernel(stmt)), "k.py")
    assert message in e.value.message
    assert e.value.line == 7


def test_rules_file_declares_an_op(tmp_path):
    rules = tmp_path / "my_ops.dl"
    rules.write_text('op("tile.my_relu", "TileOp").\nop_builtin("tile.my_relu").\n'
                     'op_input("tile.my_relu", 0, 0, "Vec").\nop_output_fixed("tile.my_relu", "Vec").\n')
    src = textwrap.dedent(kernel("t = pl.load(a, [0, 0], [16, 64])",
                                 "u: pl.Tile[[16, 64], pl.FP32] = pl.tile.my_relu(t)"))
    with pytest.raises(TilememError, match="Unknown pl.tile operation: my_relu"):
        tilemem.parse(src)
    prog = tilemem.parse(src, rules=[str(rules)])
    assert any("pl.tile.my_relu(t)" in line for line in print_program(prog).splitlines())


def test_declared_op_without_annotation_takes_its_first_tile_arguments_shape(tmp_path):
    """Issue #27: an op of a --rules file is a known op; unannotated, its result is a tile
    of its first tile argument's shape and dtype, in the space its op_output_* row says."""
    rules = tmp_path / "my_ops.dl"
    rules.write_text('op("tile.my_relu", "TileOp").\nop_output_fixed("tile.my_relu", "Vec").\n')
    src = textwrap.dedent(kernel("t = pl.load(a, [0, 0], [16, 64])", "n = 2",
                                 "u = pl.tile.my_relu(n, t)",
                                 "r: pl.Tile[[16, 1], pl.FP32] = pl.tile.my_relu(u)",
                                 "o = pl.store(u, [0, 0], o)"))
    from tilemem import ir
    u = next(s for s in tilemem.parse(src, rules=[str(rules)]).functions[0].body
             if type(s) is ir.Assign and s.targets == ["u"])
    assert isinstance(u.type, ir.TileType)
    assert [d.value for d in u.type.shape] == [16, 64] and u.type.dtype == "FP32"
    out = tilemem.solve(src, rules=[str(rules)]).text
    assert "u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.my_relu(n, t)" in out
    # an annotation says more: taken as written, not checked against the first argument
    assert "r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.my_relu(u)" in out


def test_declared_op_without_annotation_or_tile_argument_is_an_error(tmp_path):
    rules = tmp_path / "my_ops.dl"
    rules.write_text('op("tile.my_fill", "TileOp").\nop_builtin("tile.my_fill").\n')
    src = textwrap.dedent(kernel("u = pl.tile.my_fill(2)"))
    with pytest.raises(TilememError, match="cannot deduce the result type of pl.tile.my_fill") as e:
        tilemem.parse(src, rules=[str(rules)])
    assert e.value.line == 7


def test_pypto_op_the_reading_does_not_know_is_an_error_not_an_unknown_type():
    # tile.tget_scale_addr is in PyPTO's op table, but the DSL reading has no signature for it:
    # an error, never a `pl.UnknownType` annotation
    src = textwrap.dedent(kernel("t = pl.tile.tget_scale_addr(a)"))
    with pytest.raises(TilememError, match="pl.tile.tget_scale_addr is a PyPTO op that tilemem's DSL "
                                           "reading does not read yet"):
        tilemem.parse(src)


ORCH = '''\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        with pl.spmd(4{kw}):
{body}
        return out
'''


@pytest.mark.parametrize("kw, body, message", [
    ("", "            t = pl.load(a, [0, 0], [128, 128])\n            out = pl.store(t, [0, 0], out)",
     "`with pl.spmd(...)` body neither reads the per-block index via `pl.tile.get_block_idx()` "
     "nor dispatches a `self.<kernel>(...)` call, so every block would run identical work."),
    (", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]",
     "            with pl.at(level=pl.Level.CORE_GROUP):\n                i = pl.tile.get_block_idx()",
     "`optimizations=` belongs on the InCore scope, but the body already provides one as the inner "
     "`pl.at(level=pl.Level.CORE_GROUP, ...)`"),
    (", optimizations=[pl.cross_core_slot(slot_num=4), pl.cross_core_slot(slot_num=8)]",
     "            i = pl.tile.get_block_idx()", "Duplicate 'pl.cross_core_slot(...)' in optimizations=[...]"),
])
def test_spmd_with_form_rejections(kw, body, message):
    # the first message checked against PyPTO's front end (same text, same 9:9)
    with pytest.raises(TilememError) as e:
        read_program(ORCH.format(kw=kw, body=body), "k.py")
    assert e.value.message == message
    assert e.value.line is not None and e.value.line >= 9


def test_predicate_prints_parenthesised_in_both_readings():
    # PyPTO prints a dispatch predicate as `predicate=(<e>)`; the printed reading keeps it
    canon = (DATA / "submit_predicate.fmt.pto").read_text()
    assert "predicate=(pl.cast(" in canon
    assert print_program(tilemem.parse(canon)) + "\n" == canon


def test_dtype_table_rows_name_registered_ops_and_fire():
    # dtypes.txt: every row is about an op of PyPTO's table, and each op's first row rejects
    # a dtype it does not list (a table the reader silently ignored would pass the goldens)
    from tilemem.frontend.dsl.operand_rules import dtype_rules
    ops = {line.split("\t", 1)[0] for line in
           (Path(__file__).resolve().parents[1] / "rules" / "ops" / "op.facts").read_text().splitlines()}
    rules = dtype_rules()
    assert len(rules) > 20 and set(rules) <= ops
    src = textwrap.dedent(kernel("t = pl.load(a, [0, 0], [16, 64])", "u = pl.tile.sin(t)"))
    read_program(src, "k.py")                      # FP32: accepted
    with pytest.raises(TilememError, match="tile.sin is FP32-only, but got input with dtype fp16") as e:
        read_program(src.replace("pl.FP32", "pl.FP16"), "k.py")
    assert e.value.line == 8


def test_value_table_rows_name_registered_ops_and_bound_by_rank():
    # ranges.txt: every row is about an op of PyPTO's table; a rank-relative bound follows the
    # operand's rank (tensor.gather dim in [-rank, rank - 1]: -2 and 1 accepted, 2 and -3 not)
    from tilemem.frontend.dsl.operand_rules import range_rules
    ops = {line.split("\t", 1)[0] for line in
           (Path(__file__).resolve().parents[1] / "rules" / "ops" / "op.facts").read_text().splitlines()}
    rules = range_rules()
    assert len(rules) > 10 and set(rules) <= ops
    src = (DATA / "err_gather_dim_past_rank.py").read_text()
    assert "dim=2" in src
    for ok in ("-2", "1"):
        read_program(src.replace("dim=2", f"dim={ok}"), "k.py")
    for bad in ("2", "-3"):
        with pytest.raises(TilememError, match=rf"requires dim in \[-2, 1\], but got dim={bad}$"):
            read_program(src.replace("dim=2", f"dim={bad}"), "k.py")


def test_tile_assemble_takes_the_targets_dtype_or_the_fixpipe_downcast():
    # dtypes.txt's two tile.assemble rows (PyPTO, measured with the oracle): an FP32 source into
    # a BF16 / FP16 target is accepted (Acc->Mat FIXPIPE), an FP16 source into FP32 is not, nor
    # an FP32 source into an INT32 target
    src = (DATA / "err_tile_assemble_dtype_mismatch.py").read_text()
    fp32_src = src.replace("[[64, 64], pl.FP16]", "[[64, 64], pl.FP32]")
    assert fp32_src != src
    for target in ("BF16", "FP16", "FP32"):
        read_program(fp32_src.replace("tile.create([64, 64], pl.FP32)", f"tile.create([64, 64], pl.{target})"), "k.py")
    with pytest.raises(TilememError, match="but got int32 and fp32$"):
        read_program(fp32_src.replace("tile.create([64, 64], pl.FP32)", "tile.create([64, 64], pl.INT32)"), "k.py")
    with pytest.raises(TilememError, match="but got fp32 and fp16$"):
        read_program(src, "k.py")


def test_a_flattened_load_with_a_partial_nd_valid_shape_may_be_stored_but_not_computed_on():
    # PyPTO (oracle): the 3-D valid_shape under the 2D annotation is kept; storing or renaming
    # the tile is accepted, an op whose deducer resolves its valid region rejects it
    src = (DATA / "err_flattened_load_partial_valid_shape.py").read_text()
    add = "        r = pl.tile.add(t, t)\n"
    assert add in src
    stored = src.replace(add, "").replace("tile.store(r,", "tile.store(t,")
    assert "TileView(valid_shape=[2, 2, 4])" in print_program(read_program(stored, "k.py"))
    with pytest.raises(TilememError, match=r"valid_shape rank \(3\) must match the physical shape rank \(2\)"):
        read_program(src.replace(add, "        r = pl.tile.exp(t)\n"), "k.py")


@pytest.mark.parametrize("used,ok", [("3", True), ("pl.const(3, pl.INT32)", True),
                                      ("pl.const(3, pl.INT16)", False), ("2.5", False)])
def test_a_soft_syncalls_used_cores_is_an_int32(used, ok):
    # dtypes.txt's kwarg row (PyPTO, oracle: an INT16 scalar and a float are rejected)
    src = (DATA / "err_syncall_used_cores_negative.py").read_text().replace("used_cores=-3", f"used_cores={used}")
    if ok:
        read_program(src, "k.py")
    else:
        with pytest.raises(TilememError, match="soft syncall used_cores must be an INT32 scalar"):
            read_program(src, "k.py")


def test_a_tile_reduction_whose_wrapper_takes_a_required_tmp_tile_needs_one():
    # read from the tile wrapper's signature in ops.txt: row_max(tile, tmp_tile), col_sum(tile, tmp_tile=None)
    load = "t = pl.load(a, [0, 0], [16, 64])"
    with pytest.raises(TilememError, match="pl.row_max: Tile inputs require tmp_tile"):
        read_program(textwrap.dedent(kernel(load, "u = pl.row_max(t)")), "k.py")
    assert "pl.tile.col_sum(t)" in print_program(read_program(textwrap.dedent(kernel(load, "u = pl.col_sum(t)")), "k.py"))


@pytest.mark.parametrize("value", ["[]", "'s'"])
def test_a_list_or_string_where_a_number_attribute_goes_is_a_located_error(value):
    # found by a literal sweep: a keyword's list or string where an int attribute goes
    # reached the float formatter and crashed (PyPTO's builders reject it too)
    src = (DATA / "distributed_collectives.py").read_text()
    assert "core_num=2" in src
    with pytest.raises(TilememError) as e:
        read_program(src.replace("core_num=2", f"core_num={value}", 1), "k.py")
    assert "'core_num'" in e.value.message and e.value.line == src[:src.index("core_num=2")].count("\n") + 1


@pytest.mark.parametrize("old,new", [
    # a sels source that is not a tile has no dtype for the scalar (it crashed reading one)
    ("pl.tile.sels(t, t, t, 3.0)", "pl.tile.sels(t, [[1]], t, 3.0)"),
    ("pl.tile.sels(t, t, t, 3.0)", "pl.tile.sels(t, pl.FP32, t, 3.0)"),
])
def test_sels_source_that_is_not_a_tile_is_a_located_error(old, new):
    src = (DATA / "sels_integral_float_on_unsigned_src.py").read_text()
    assert old in src
    with pytest.raises(TilememError) as e:
        read_program(src.replace(old, new), "k.py")
    assert e.value.line == src[:src.index(old)].count("\n") + 1


def test_empty_remote_load_valid_shape_is_a_rank_error():
    # valid_shape=[] was taken for "no valid shape" and crashed indexing it
    src = (DATA / "distributed_remote_tiles.py").read_text()
    old = "valid_shape=[1, valid_cols]"
    assert old in src
    with pytest.raises(TilememError) as e:
        read_program(src.replace(old, "valid_shape=[]"), "k.py")
    assert "valid_shape rank (0) must match target tensor rank (2)" in e.value.message


def test_slice_of_a_tensor_whose_valid_shape_has_another_rank_is_an_error():
    # a TensorView valid_shape of rank 1 on a 2-D parameter crashed the slice's window read
    src = (DATA / "tensor_views.py").read_text()
    old = "valid_shape=[20, 32]"
    assert old in src
    with pytest.raises(TilememError) as e:
        read_program(src.replace(old, "valid_shape=[20]"), "k.py")
    assert "tensor.slice source valid_shape rank 1 does not match its shape rank 2" in e.value.message


@pytest.mark.parametrize("value,fits", [(str(2 ** 63 - 1), True), (str(2 ** 63), False), ("1" + "0" * 400, False)])
def test_integer_constants_are_64_bit_as_pyptos_constint(value, fits):
    # PyPTO's ConstInt constructor rejects a Python int outside int64; a 400-digit offset
    # reached the index-bound arithmetic and crashed converting it to a float (long fuzz run)
    src = (DATA / "clamp_valid_index_vars_are_nonnegative.py").read_text()
    old = "[i * 64, 0]"
    assert old in src
    text = src.replace(old, f"[i * {value}, 0]", 1)
    if fits:
        assert "pl.tile.load" in print_program(read_program(text, "k.py"))
        return
    with pytest.raises(TilememError) as e:
        read_program(text, "k.py")
    assert "does not fit in a 64-bit ConstInt" in e.value.message
    assert (e.value.line, e.value.col) == (src[:src.index(old)].count("\n") + 1,
                                           src.index(old) - src.rindex("\n", 0, src.index(old)) + 5)
