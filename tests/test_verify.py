"""``tilemem verify`` and ``tilemem.tools.verify``: the TileMemoryInferred property (rules/verify.dl)."""
from __future__ import annotations

import pytest

from cli_helpers import CORPUS, DATA, run, run_in_process
from tilemem.frontend.parser import parse
from tilemem.tools.verify import verify

VDATA = DATA / "verify"

# file -> the one-line messages, in source order (the column is the offending argument's,
# or the statement's for a var without a space)
EXPECTED = {
    "left_operand_in_vec.pto": [
        "12:74: error: tile.matmul input 0 (x_left) requires Left but is in Vec",
    ],
    "store_from_mat.pto": [
        "15:62: error: tile.store input 0 (w_tile) requires Vec/Acc but is in Mat",
    ],
    "unannotated_tile.pto": [
        "13:9: error: tile var z_tile_Vec (defined by tile.move) has no memory space",
    ],
    "loop_body_violations.pto": [
        "13:13: error: tile var c_n__tile (defined by tile.matmul) has no memory space",
        "13:91: error: tile.matmul input 1 (rhs_n__tile_Right) requires Right but is in Mat",
    ],
}


def _verify_file(name, rules=()):
    path = VDATA / name
    return verify(parse(path.read_text(), str(path)), str(path), rules)


@pytest.mark.parametrize("name", ["ok_matmul_add.pto", "ok_resident_lhs.pto"])
def test_pass_output_holds_the_property(name):
    assert _verify_file(name) == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_copies_report_each_violation(name):
    got = [str(v) for v in _verify_file(name)]
    assert got == [f"{VDATA / name}:{m}" for m in EXPECTED[name]]


def test_violation_fields():
    (v,) = _verify_file("store_from_mat.pto")
    assert (v.kind, v.function, v.var, v.op, v.slot, v.allowed, v.space) == (
        "operand", "main_incore_0", "w_tile", "tile.store", 0, ("Vec", "Acc"), "Mat")
    (u,) = _verify_file("unannotated_tile.pto")
    assert (u.kind, u.var, u.op, u.space) == ("unannotated", "z_tile_Vec", "tile.move", None)


def test_extra_rules_declare_own_ops():
    assert _verify_file("custom_op_mat_operand.pto") == []      # unknown op: unconstrained
    (v,) = _verify_file("custom_op_mat_operand.pto", [str(VDATA / "my_ops.dl")])
    assert (v.op, v.slot, v.var, v.allowed, v.space) == ("tile.my_add", 1, "y_mat", ("Vec",), "Mat")


# --------------------------------------------------------------------------- the command


def test_cli_ok_is_silent(capsys):
    assert run_in_process(capsys, "verify", VDATA / "ok_matmul_add.pto") == (0, "", "")


def test_cli_reports_with_source_line_and_caret():
    path = VDATA / "left_operand_in_vec.pto"
    r = run("verify", path)
    assert r.returncode == 1 and r.stderr == ""          # diagnostics are the output (stdout)
    lines = r.stdout.splitlines()
    assert lines[0] == f"{path}:12:74: error: tile.matmul input 0 (x_left) requires Left but is in Vec"
    assert lines[1].strip().startswith("z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_left")
    assert lines[2].index("^") == 73 and lines[1][73:79] == "x_left"
    assert lines[-1] == "Found 1 violation of TileMemoryInferred in 1 file (checked 1 file)"


def test_cli_quiet_and_stdin(capsys, monkeypatch):
    text = (VDATA / "loop_body_violations.pto").read_text()
    status, out, err = run_in_process(capsys, "verify", "-", "-q", stdin=text, monkeypatch=monkeypatch)
    assert (status, err) == (1, "")
    assert out.splitlines() == [f"<stdin>:{m}" for m in EXPECTED["loop_body_violations.pto"]]
    status, out, err = run_in_process(capsys, "verify", "-", "-q", "--stdin-filename", "k/x.pto",
                                      stdin=text, monkeypatch=monkeypatch)
    assert out.splitlines() == [f"k/x.pto:{m}" for m in EXPECTED["loop_body_violations.pto"]]


def test_cli_rules_option(capsys):
    path = VDATA / "custom_op_mat_operand.pto"
    status, out, _ = run_in_process(capsys, "verify", path)     # without its rule file: an unknown op
    assert status == 2 and f"{path}:14:59: error: unknown operation 'pl.tile.my_add'" in out
    r = run("verify", path, "--rules", VDATA / "my_ops.dl", "-q")
    assert r.returncode == 1
    assert r.stdout == f"{path}:14:86: error: tile.my_add input 1 (y_mat) requires Vec but is in Mat\n"


def test_cli_input_errors_exit_2(tmp_path, capsys):
    """An input that cannot be read or parsed is a diagnostic too (stdout), exit 2."""
    status, out, _ = run_in_process(capsys, "verify", tmp_path / "missing.pto")
    assert status == 2 and "no such file" in out
    bad = tmp_path / "bad.pto"
    bad.write_text("import pypto.language as pl\n@pl.program\nclass P:\n    def f(:\n")
    status, out, _ = run_in_process(capsys, "verify", bad)
    assert status == 2 and out.startswith(f"{bad}:4:")


def test_cli_solve_then_verify_round_trip(tmp_path, capsys):
    """What `solve` prints holds the property even when the input did not."""
    src = VDATA / "left_operand_in_vec.pto"
    out = tmp_path / "solved.pto"
    assert run_in_process(capsys, "solve", src, "-o", out) == (0, "", "")
    assert run_in_process(capsys, "verify", out) == (0, "", "")


# --------------------------------------------------------------------------- the corpus

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")


@needs_corpus
def test_every_corpus_after_holds_the_property():
    failing = {}
    for after in sorted(CORPUS.glob("*/after.pto")):
        found = verify(parse(after.read_text(), str(after)), str(after))
        if found:
            failing[after.parent.name] = [str(v) for v in found]
    assert failing == {}


@needs_corpus
def test_corpus_before_needing_moves_fails():
    before = CORPUS / "test_matmul_moves_are_inserted_at_first_consumer_1" / "before.pto"
    got = [(v.op, v.slot, v.var, v.space) for v in verify(parse(before.read_text()), str(before))]
    assert got == [("tile.matmul", 0, "lhs_tile", "Mat"), ("tile.matmul", 1, "rhs0_tile", "Mat"),
                   ("tile.matmul", 0, "lhs_tile", "Mat"), ("tile.matmul", 1, "rhs1_tile", "Mat")]
