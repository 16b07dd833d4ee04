"""Printed IR is checked as strictly as hand-written DSL (issue #27): every op call by the
op table and the type rules, the program's structure, every problem of a file reported
with its position, and nothing written when a file is rejected."""
from __future__ import annotations

import pytest

from cli_helpers import run_in_process
from tilemem.errors import TilememError
from tilemem.frontend.check import MAX_PROBLEMS, ProgramErrors
from tilemem.frontend.reading import read_program

# PyPTO's print of a small matmul kernel (the golden case test_matmul_gets_acc_1)
KERNEL = """\
# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_0(x: pl.Tensor[[16, 128], pl.BF16], y: pl.Tensor[[128, 128], pl.BF16], out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        x_tile: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        y_tile: pl.Tile[[128, 128], pl.BF16, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_tile, y_tile)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(z_tile, [0, 0], out_0)
        return out_0
    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.BF16], y: pl.Tensor[[128, 128], pl.BF16]) -> pl.Tensor[[16, 128], pl.FP32]:
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tensor.create([16, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        z: pl.Tensor[[16, 128], pl.FP32] = self.main_incore_0(x, y, out_0)
        return z
"""

LOAD_X = "pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)"
LOAD_Y = "pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)"


def edited(*pairs) -> str:
    text = KERNEL
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def errors_of(text: str, rules=()) -> list[TilememError]:
    from tilemem.frontend.reading import declared_ops
    with pytest.raises(TilememError) as got:
        read_program(text, "k.pto", declared_ops=declared_ops(rules))
    return list(getattr(got.value, "errors", [got.value]))


def one_error(text: str) -> TilememError:
    errs = errors_of(text)
    assert len(errs) == 1, [e.format() for e in errs]
    return errs[0]


def test_the_kernel_itself_is_accepted():
    assert read_program(KERNEL, "k.pto").functions[0].name == "main_incore_0"


# -- the three edits of the issue: one located error each, exit 2 in every command, nothing written

EDITS = {
    "misspelled op": (("pl.tile.matmul(", "pl.tile.matmull("),),
    "misspelled keyword": ((LOAD_X, LOAD_X.replace("target_memory=", "target_memroy=")),),
    "load shape under another annotation": ((LOAD_X, LOAD_X.replace("[16, 128], [16, 128]", "[16, 64], [16, 64]")),),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("command", [("solve",), ("solve", "--strict"), ("verify",), ("why",), ("fmt",)])
def test_issue_edits_fail_every_command(tmp_path, capsys, edit, command):
    src = tmp_path / "k.pto"
    src.write_text(edited(*EDITS[edit]))
    out = tmp_path / "out.pto"
    args = list(command) + [src] + (["-o", out] if command[0] == "solve" else ["z_tile"] if command[0] == "why" else [])
    status, stdout, stderr = run_in_process(capsys, *args)
    assert status == 2, (stdout, stderr)
    report = stderr if command[0] != "verify" else stdout       # verify reports on stdout
    located = [line for line in report.splitlines() if ": error: " in line]
    assert len(located) == 1 and located[0].startswith(f"{src}:"), report
    assert report.rstrip().endswith("^")           # the caret line
    assert not out.exists()
    if command[0] == "fmt":
        assert src.read_text() == edited(*EDITS[edit])


def test_misspelled_op_names_the_op_it_meant():
    e = one_error(edited(("pl.tile.matmul(", "pl.tile.matmull(")))
    assert e.message == "unknown operation 'pl.tile.matmull' (did you mean 'pl.tile.matmul'?)"
    assert (e.line, e.col) == (10, 59)


def test_misspelled_keyword_points_at_the_keyword():
    e = one_error(edited((LOAD_X, LOAD_X.replace("target_memory=", "target_memroy="))))
    assert e.message == ("pl.tile.load: load() got an unexpected keyword argument 'target_memroy' "
                         "(did you mean 'target_memory'?)")
    assert e.source_line[e.col - 1:].startswith("target_memroy=")


def test_repeated_keyword():
    e = one_error(edited((LOAD_X, LOAD_X.replace(")", ", target_memory=pl.Mem.Mat)"))))
    assert e.message == "pl.tile.load: keyword argument 'target_memory' repeated"


def test_arguments_bound_as_pypto_binds_them():
    # PyPTO reads a printed call through its DSL wrapper: Python's binding, Python's words
    e = one_error(edited(("pl.tile.matmul(x_tile, y_tile)", "pl.tile.matmul(x_tile, y_tile, y_tile)")))
    assert e.message == "pl.tile.matmul: matmul() takes 2 positional arguments but 3 were given"
    e = one_error(edited(("pl.tile.matmul(x_tile, y_tile)", "pl.tile.matmul(x_tile)")))
    assert e.message == "pl.tile.matmul: matmul() missing 1 required positional argument: 'rhs'"


def test_annotation_against_the_deduced_shape():
    e = one_error(edited((LOAD_X, LOAD_X.replace("[16, 128], [16, 128]", "[16, 64], [16, 64]"))))
    assert e.message.startswith("Type annotation for 'x_tile' has shape dimension 1 = 128 but expression "
                                "has shape dimension 1 = 64")
    assert (e.line, e.col) == (8, 17)       # the annotation


def test_annotation_against_the_deduced_dtype():
    e = one_error(edited(("z_tile: pl.Tile[[16, 128], pl.FP32", "z_tile: pl.Tile[[16, 128], pl.FP16")))
    assert e.message.startswith("Type annotation for 'z_tile' has dtype fp16 but expression has dtype fp32")


def test_matmul_inner_dimensions_name_what_the_op_got():
    e = one_error(edited(
        (LOAD_Y, LOAD_Y.replace("[128, 128], [128, 128]", "[64, 128], [64, 128]")),
        ("y_tile: pl.Tile[[128, 128]", "y_tile: pl.Tile[[64, 128]")))
    assert "tile.matmul requires matching physical inner dimensions (physical K), but got lhs K=128 and rhs K=64" \
        in e.message
    assert e.message.endswith("(operands: x_tile [16, 128] BF16 Vec; y_tile [64, 128] BF16 Vec)")


def test_swapped_matmul_operands():
    e = one_error(edited(("pl.tile.matmul(x_tile, y_tile)", "pl.tile.matmul(y_tile, x_tile)")))
    assert "physical inner dimensions" in e.message


# -- structure


def test_undefined_and_later_defined_names_all_reported():
    errs = errors_of(edited(("pl.tile.matmul(x_tile, y_tile)", "pl.tile.matmul(w_tile, q_tile)"),
                            ("pl.tile.store(z_tile,", "pl.tile.store(z_tile2,")))
    assert [e.message for e in errs] == [
        "InCore function 'main_incore_0' reads undefined name 'w_tile'",
        "InCore function 'main_incore_0' reads undefined name 'q_tile'",
        "InCore function 'main_incore_0' reads undefined name 'z_tile2'"]
    assert isinstance(errs, list) and [e.line for e in errs] == [10, 10, 11]


def test_a_name_assigned_again_is_a_new_var():
    # PyPTO's reader binds a re-assigned name to a new var; so does tilemem's printed reading
    text = edited(("        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store",
                   "        x_tile: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec] = pl.tile.muls(x_tile, 2.0)"
                   "\n        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store"))
    assert read_program(text, "k.pto") is not None
    # and a tensor takes its writer's result under its own name:
    # out_0 = pl.tile.store(z_tile, [0, 0], out_0) in KERNEL


def test_call_to_an_undefined_function_and_wrong_argument_count():
    errs = errors_of(edited(("self.main_incore_0(x, y, out_0)", "self.main_incore(x, y, out_0)")))
    assert [e.message for e in errs] == [
        "call to 'self.main_incore': the program defines no function 'main_incore' "
        "(did you mean 'self.main_incore_0'?)"]
    e = one_error(edited(("self.main_incore_0(x, y, out_0)", "self.main_incore_0(x, y)")))
    assert e.message == "'self.main_incore_0' takes 3 argument(s) (x, y, out_0), got 2"


LOOP = """\
# pypto.program: Loop
import pypto.language as pl

@pl.program
class Loop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a,)):
            b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, a)
            if i == 0:
                c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(b)
            else:
                c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc)
            r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(c)
        out: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(r, [0, 0], out)
        return out
"""


def test_loop_and_branch_yields_are_accepted():
    assert read_program(LOOP, "l.pto").name == "Loop"


def test_init_values_against_iter_args():
    errs = errors_of(LOOP.replace("init_values=(a,)", "init_values=(a, a)"))
    assert [e.message for e in errs] == ["the loop has 1 iter-arg(s) (acc) but 2 init_values"]


def test_loop_yield_count():
    errs = errors_of(LOOP.replace("r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(c)", "r, s = pl.yield_(c, c)"))
    assert [e.message for e in errs] == ["pl.yield_ yields 2 value(s) but the loop at line 9 has 1 iter-arg(s) (acc)"]


def test_branch_yields_disagree():
    errs = errors_of(LOOP.replace("c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc)", "d, e = pl.yield_(acc, acc)"))
    assert errs[0].message.startswith("the else branch yields 2 value(s) into (d, e) but the then branch (line 12) yields 1")


def test_elementwise_shapes_must_agree():
    text = LOOP.replace("pl.tile.add(acc, a)", "pl.tile.add(acc, q)").replace(
        "        for i,", "        q: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 32], [8, 32], "
                         "target_memory=pl.Mem.Vec)\n        for i,")
    e = one_error(text)
    assert e.message.startswith("pl.tile.add: ") and "q [8, 32] FP32 Vec" in e.message


def test_what_another_program_passed_decides_nothing_here():
    # the checks keep what passed from one program to the next (the same call, the same
    # operand types): the same call text over other operand types is checked again
    from tilemem.frontend.check import calls
    shapes = {n: LOOP.replace("pl.tile.add(acc, a)", "pl.tile.add(acc, q)").replace(
        "        for i,", f"        q: pl.Tile[[{n}], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [{n}], "
                         f"[{n}], target_memory=pl.Mem.Vec)\n        for i,") for n in ("1, 64", "8, 32")}
    calls._tables.clear()
    alone = [e.format() for e in errors_of(shapes["8, 32"])]
    calls._tables.clear()
    read_program(shapes["1, 64"], "k.pto")
    assert [e.format() for e in errors_of(shapes["8, 32"])] == alone
    read_program(shapes["1, 64"], "k.pto")


# -- every problem, in the order of the text, up to a cap


def test_every_problem_in_text_order_up_to_the_cap():
    body = "".join(f"        t{i}: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmull(x_tile, y_tile)\n"
                   for i in range(MAX_PROBLEMS + 5))
    text = edited(("        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store", body +
                   "        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store"))
    with pytest.raises(ProgramErrors) as got:
        read_program(text, "k.pto")
    err = got.value
    shown = len(err.errors)
    assert 1 < shown <= MAX_PROBLEMS and shown + err.dropped == MAX_PROBLEMS + 5
    assert len(err.format()) < 4096          # the report is bounded, however many problems
    assert [e.line for e in err.errors] == list(range(11, 11 + shown))
    assert (err.line, err.col) == (11, text.splitlines()[10].index("pl.tile.matmull") + 1)
    assert err.format().splitlines()[-1] == \
        f"k.pto: note: {err.dropped} more problem(s) not shown (the first {shown} are)"


# -- ops of a --rules file are known ops


def test_an_op_a_rules_file_declares_is_known(tmp_path):
    rules = tmp_path / "my_ops.dl"
    rules.write_text('op("tile.my_relu", "TileOp").\nop_output_fixed("tile.my_relu", "Vec").\n')
    text = edited(("pl.tile.matmul(x_tile, y_tile)", "pl.tile.my_relu(x_tile, 2, alpha=1)"),
                  ("z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc]", "z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]"))
    assert errors_of(text)[0].message.startswith("unknown operation 'pl.tile.my_relu'")
    from tilemem.frontend.reading import declared_ops
    assert declared_ops([str(rules)]) == frozenset({"tile.my_relu"})
    fn = read_program(text, "k.pto", declared_ops=declared_ops([str(rules)])).functions[0]
    assert fn.body[2].value.func == "pl.tile.my_relu"      # read as written: its annotation is its type


def test_verify_lists_every_problem(tmp_path, capsys):
    src = tmp_path / "k.pto"
    src.write_text(edited(("pl.tile.matmul(x_tile, y_tile)", "pl.tile.matmull(x_tile, y_tile)"),
                          (LOAD_X, LOAD_X.replace("target_memory=", "target_memroy="))))
    status, stdout, _ = run_in_process(capsys, "verify", src)
    assert status == 2
    assert [line.split(": error: ")[0] for line in stdout.splitlines() if ": error: " in line] == \
        [f"{src}:8:105", f"{src}:10:59"]


# -- what the printed checks accept and check_program refuses: the walk that judged the
# functions for check_program (not walked again when they pass) hands on no such function

WELLFORMED_EDITS = {
    "unknown space in an annotation": (("z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc]",
                                        "z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Accc]"),),
    "unknown space in a keyword": ((LOAD_Y, LOAD_Y.replace("pl.Mem.Vec", "pl.Mem.Vecc")),),
    "unknown layout in an expression": (("        return out_0\n",
                                         "        k: pl.Scalar[pl.INDEX] = pl.TileLayout.bogus\n        return out_0\n"),),
    "int64 overflow in an InCore expression": (("        return out_0\n",
                                                "        k: pl.Scalar[pl.INDEX] = 99999999999999999999999\n"
                                                "        return out_0\n"),),
    "int64 overflow in an orchestration annotation": (("z: pl.Tensor[[16, 128], pl.FP32] = self",
                                                       "z: pl.Tensor[[16, 99999999999999999999999], pl.FP32] = self"),),
}


@pytest.mark.parametrize("edit", sorted(WELLFORMED_EDITS))
def test_check_program_after_the_printed_checks_refuses_as_alone(edit):
    from tilemem.frontend.parser import parse
    from tilemem.frontend.wellformed import check_program
    text = edited(*WELLFORMED_EDITS[edit])
    with pytest.raises(TilememError) as alone:
        check_program(parse(text, "k.pto"), "k.pto")
    program = read_program(text, "k.pto")           # the printed checks pass it
    with pytest.raises(TilememError) as after:
        check_program(program, "k.pto")
    assert after.value.format() == alone.value.format()
    assert check_program(read_program(KERNEL, "k.pto"), "k.pto") is None
