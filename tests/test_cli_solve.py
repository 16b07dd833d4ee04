"""``tilemem solve``: --diff, --check, --in-place, --json, and batches (--out-dir, -j)."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import time

import pytest

import tilemem
from cli_helpers import CORPUS, DATA, REPO, run, run_in_process, tilemem_command

EXAMPLE = REPO / "examples" / "matmul_bias_relu.pto"      # needs moves
LOOP = REPO / "examples" / "accumulate_loop.pto"          # needs a retype
SOLVED = DATA / "verify" / "ok_matmul_add.pto"           # PyPTO's output: already solved
STATIONARY = CORPUS / "test_tensor_matmul_stationary_lhs_loads_once_1" / "before.pto"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")


def solved_text(path, backend=None) -> str:
    text = tilemem.solve(path, backend=backend).text
    return text if text.endswith("\n") else text + "\n"


# --------------------------------------------------------------------------- one file


def test_diff_is_a_unified_diff_that_patches_the_input(tmp_path):
    r = run("solve", EXAMPLE, "--backend", "910B", "--diff")
    assert r.returncode == 0 and r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0] == f"--- {EXAMPLE}" and lines[1] == f"+++ {EXAMPLE}"
    assert any(l.startswith("+") and "a_tile_Left" in l and "pl.tile.move" in l for l in lines)
    assert any(l.startswith("-") and "pl.tile.matmul(a_tile, b_tile)" in l for l in lines)
    if shutil.which("patch"):
        copy = tmp_path / "k.pto"
        shutil.copy(EXAMPLE, copy)
        diff = r.stdout.replace(str(EXAMPLE), str(copy))
        subprocess.run(["patch", "-s", "-p0", str(copy)], input=diff, text=True, check=True)
        assert copy.read_text() == solved_text(EXAMPLE, "910B")


def test_diff_of_a_solved_file_is_empty(capsys):
    assert run_in_process(capsys, "solve", SOLVED, "--diff") == (0, "", "")


def test_check_exits_1_with_the_diff_when_solving_changes_the_file(capsys):
    r = run("solve", LOOP, "--check")
    assert r.returncode == 1 and r.stderr == ""
    assert r.stdout.startswith(f"--- {LOOP}\n+++ {LOOP}\n@@ ")
    assert re.search(rf"^{re.escape(str(LOOP))}:\d+:\d+: error: solving would change this file$",
                     r.stdout, re.M)
    assert run_in_process(capsys, "solve", SOLVED, "--check") == (0, "", "")


def test_in_place_rewrites_atomically_and_keeps_the_mode(tmp_path, capsys):
    f = tmp_path / "k.pto"
    shutil.copy(EXAMPLE, f)
    os.chmod(f, 0o640)
    r = run("solve", f, "--backend", "910B", "--in-place")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert f.read_text() == solved_text(EXAMPLE, "910B")
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.pto"]     # no temp file left
    assert run_in_process(capsys, "solve", f, "--backend", "910B", "--check") == (0, "", "")


def test_in_place_leaves_an_unchanged_file_alone(tmp_path, capsys):
    f = tmp_path / "ok.pto"
    shutil.copy(SOLVED, f)
    before = f.stat().st_mtime_ns
    time.sleep(0.01)
    assert run_in_process(capsys, "solve", f, "--in-place") == (0, "", "")
    assert f.stat().st_mtime_ns == before


def test_json_schema():
    r = run("solve", EXAMPLE, "--backend", "910B", "--json")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    sol = tilemem.solve(EXAMPLE, backend="910B")
    expected_keys = {"schema", "path", "program", "reading", "backend", "changed", "spaces", "moves",
                     "warnings"}
    if getattr(sol, "residency", None) is not None:
        expected_keys.add("residency")
    assert set(doc) == expected_keys
    assert doc["schema"] == "tilemem-solution/1"
    assert (doc["path"], doc["backend"], doc["changed"]) == (str(EXAMPLE), "Ascend910B", True)
    assert (doc["program"], doc["reading"]) == (sol.program.name, "ir")
    assert doc["spaces"] == sol.spaces
    assert doc["spaces"]["kernel"]["c_tile"] == "Acc"
    assert doc["moves"] == [{"function": m.function, "name": m.name, "producer": m.producer,
                             "target": m.target, "consumer_line": m.consumer_line}
                            for m in sol.moves]
    assert {"function": "kernel", "name": "a_tile_Left", "producer": "a_tile",
            "target": "Left", "consumer_line": 10} in doc["moves"]


ONE_STATEMENT = DATA / "solve" / "one_statement_bodies.pto"   # PyPTO leaves operands unmoved


def test_contract_warnings_in_json_library_and_strict(tmp_path):
    """The one-statement-body operands PyPTO leaves in Mat: one warning each, in the
    library, in --json, and --strict turns them into exit status 1 (output unchanged)."""
    sol = tilemem.solve(ONE_STATEMENT)
    breaks = [w for w in sol.warnings if w.code == "contract-break"]
    assert [(w.line, w.var) for w in breaks] == [(11, "kernel:m"), (13, "kernel:m"),
                                                 (23, "kernel:n"), (26, "kernel:m")]
    assert breaks[0].message == ("tile.exp input 0 (m) stays in Mat: PyPTO inserts no tile.move "
                                 "into a one-statement loop body; TileMemoryInferred does not hold here")
    r = run("solve", ONE_STATEMENT, "--json")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert [(w["line"], w["column"], w["code"], w["message"]) for w in doc["warnings"]] == \
        [(w.line, w.col, w.code, w.message) for w in breaks]
    plain = run("solve", ONE_STATEMENT)
    strict = run("solve", ONE_STATEMENT, "--strict")
    assert (plain.returncode, strict.returncode) == (0, 1)
    assert strict.stdout == plain.stdout and "warning: tile.exp input 0 (m)" in strict.stderr
    # in a batch too
    batch = tmp_path / "in"
    batch.mkdir()
    shutil.copy(ONE_STATEMENT, batch / "a.pto")
    shutil.copy(SOLVED, batch / "b.pto")
    assert run("solve", batch, "--out-dir", tmp_path / "o1").returncode == 0
    assert run("solve", batch, "--out-dir", tmp_path / "o2", "--strict").returncode == 1
    # the result violates TileMemoryInferred exactly there
    out = tmp_path / "out.pto"
    out.write_text(plain.stdout)
    v = run("verify", out)
    assert v.returncode == 1 and v.stdout.count(": error: ") == len(breaks)


def test_json_includes_residency_records_when_the_solution_has_them(monkeypatch, capsys):
    """The lead's Solution.residency (a list of records) is passed through as objects."""
    from dataclasses import dataclass

    import tilemem.api as api

    @dataclass
    class Rec:
        function: str
        var: str
        decision: str
        reason: str

    real = api.solve_program          # what `tilemem solve FILE` calls per program

    def with_residency(*a, **kw):
        sol = real(*a, **kw)
        sol.residency = [Rec("kernel", "a_tile", "hoist", "loop-invariant Mat load")]
        return sol

    monkeypatch.setattr(api, "solve_program", with_residency)
    status, out, _ = run_in_process(capsys, "solve", EXAMPLE, "--json")
    assert status == 0
    assert json.loads(out)["residency"] == [
        {"function": "kernel", "var": "a_tile", "decision": "hoist", "reason": "loop-invariant Mat load"}]


def test_stdin_with_diff(capsys, monkeypatch):
    status, out, _ = run_in_process(capsys, "solve", "-", "--diff", "--backend", "910B",
                                    stdin=EXAMPLE.read_text(), monkeypatch=monkeypatch)
    assert status == 0 and out.startswith("--- <stdin>\n+++ <stdin>\n")


@pytest.mark.parametrize("args,message", [
    (["a.pto", "b.pto"], "several inputs: say what to do"),
    (["a.pto", "b.pto", "-o", "x.pto", "--check"], "-o/--output takes one input file"),
    (["a.pto", "--check", "--in-place"], "--check writes nothing"),
    (["a.pto", "--in-place", "--out-dir", "d"], "choose one of --in-place and --out-dir"),
    (["-", "--in-place"], "--in-place needs a file"),
    (["-", "a.pto", "--check"], "standard input (-) can only be solved on its own"),
    (["-", "--out-dir", "d"], "--out-dir needs files or directories"),
    (["a.pto", "--check", "-j", "-1"], "-j/--jobs must be"),
])
def test_option_conflicts_are_usage_errors(args, message, capsys):
    status, out, err = run_in_process(capsys, "solve", *args)
    assert status == 2 and out == ""
    assert err.startswith("tilemem: error: ") and message in err


# --------------------------------------------------------------------------- batches


@pytest.fixture
def tree(tmp_path):
    """in/a/m.pto (changes), in/b/c/loop.pto (changes), in/b/ok.pto (solved), notes.txt."""
    root = tmp_path / "in"
    (root / "a").mkdir(parents=True)
    (root / "b" / "c").mkdir(parents=True)
    shutil.copy(EXAMPLE, root / "a" / "m.pto")
    shutil.copy(LOOP, root / "b" / "c" / "loop.pto")
    shutil.copy(SOLVED, root / "b" / "ok.pto")
    (root / "notes.txt").write_text("not a program\n")
    return root


def _broken(root):
    (root / "broken.pto").write_text("import pypto.language as pl\n@pl.program\nclass P:\n    def f(:\n")


SUMMARY = re.compile(r"^tilemem: (\d+) files?, (\d+) (?:changed|would change), (\d+) failed, [\d.]+s, [\d.]+ files/s$")


def _summary(stderr):
    m = SUMMARY.match(stderr.splitlines()[-1])
    assert m, stderr
    return tuple(int(x) for x in m.groups())


def test_batch_out_dir_mirrors_the_tree_and_survives_a_bad_file(tree, tmp_path):
    _broken(tree)
    out = tmp_path / "out"
    r = run("solve", tree, "--out-dir", out)
    assert r.returncode == 2                              # some input error
    assert r.stdout == ""
    err = r.stderr.splitlines()
    assert len([l for l in err if ": error: " in l]) == 1  # one line for the bad file
    assert re.match(rf"^{re.escape(str(tree / 'broken.pto'))}:4:\d+: error: ", err[0])
    assert _summary(r.stderr) == (4, 2, 1)
    got = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert got == ["a/m.pto", "b/c/loop.pto", "b/ok.pto"]
    assert (out / "a" / "m.pto").read_text() == solved_text(EXAMPLE)
    assert (out / "b" / "ok.pto").read_text() == SOLVED.read_text()
    assert (tree / "a" / "m.pto").read_text() == EXAMPLE.read_text()   # inputs untouched


def test_batch_check_prints_diffs_in_input_order_and_exits_1(tree, capsys):
    status, out, err = run_in_process(capsys, "solve", tree, "--check")
    assert status == 1
    heads = [l[4:] for l in out.splitlines() if l.startswith("--- ")]
    assert heads == [str(tree / "a" / "m.pto"), str(tree / "b" / "c" / "loop.pto")]
    assert re.search(rf"^{re.escape(str(tree / 'a' / 'm.pto'))}:\d+:\d+: error: solving would change "
                     "this file$", out, re.M)                 # a diagnostic: on stdout
    assert _summary(err) == (3, 2, 0)


def test_batch_workers_give_the_same_output(tree, capsys):
    files = [tree / "b" / "ok.pto", tree / "a" / "m.pto", tree / "b" / "c" / "loop.pto"]
    one = run_in_process(capsys, "solve", *files, "--diff", "-q")
    two = run("solve", *files, "--diff", "-q", "-j", "2")
    assert one[0] == two.returncode == 0
    assert one[1] == two.stdout and two.stdout
    heads = [l[4:] for l in two.stdout.splitlines() if l.startswith("--- ")]
    assert heads == [str(files[1]), str(files[2])]        # the order given, not completion order
    assert one[2] == two.stderr == ""                     # -q: no summary


def test_batch_progress_bar_on_a_terminal(tree, tmp_path):
    master, slave = os.openpty()
    try:
        proc = subprocess.run(tilemem_command() + ["solve", str(tree), "--out-dir", str(tmp_path / "o")],
                              stdout=subprocess.PIPE, stderr=slave, timeout=300)
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    err = b"".join(chunks).decode()
    assert proc.returncode == 0
    assert "\r\x1b[K[" in err and "3/3" in err               # the bar, redrawn in place
    assert re.search(r"tilemem: 3 files, 2 changed, 0 failed, [\d.]+s", err)


def test_batch_in_place_and_files_given_one_by_one(tree, capsys):
    m, ok = tree / "a" / "m.pto", tree / "b" / "ok.pto"
    status, out, err = run_in_process(capsys, "solve", m, ok, "--in-place", "--backend", "910B")
    assert status == 0 and out == ""
    assert m.read_text() == solved_text(EXAMPLE, "910B")
    assert ok.read_text() == SOLVED.read_text()
    assert _summary(err) == (2, 1, 0)


def test_batch_out_dir_for_files_uses_their_common_directory(tree, tmp_path, capsys):
    out = tmp_path / "o"
    status, _, _ = run_in_process(capsys, "solve", tree / "a" / "m.pto", tree / "b" / "c" / "loop.pto",
                                  "--out-dir", out, "-q")
    assert status == 0
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.pto")) == ["a/m.pto", "b/c/loop.pto"]


def test_batch_json(tree, capsys):
    _broken(tree)
    status, out, _ = run_in_process(capsys, "solve", tree, "--json", "-q")
    assert status == 2
    doc = json.loads(out)
    assert doc["schema"] == "tilemem-batch/1"
    assert doc["summary"] == {"files": 4, "changed": 2, "failed": 1}
    paths = [f["path"] for f in doc["files"]]
    assert paths == [str(tree / p) for p in ("a/m.pto", "b/c/loop.pto", "b/ok.pto", "broken.pto")]
    assert doc["files"][0]["schema"] == "tilemem-solution/1" and doc["files"][0]["changed"] is True
    assert doc["files"][2]["changed"] is False
    assert set(doc["files"][3]) == {"path", "error"} and ": error: " in doc["files"][3]["error"]


def test_batch_internal_error_exits_3_and_the_rest_is_done(tree, tmp_path, capsys, monkeypatch):
    import tilemem.api as api
    real = api.solve

    def flaky(text, *a, path=None, **kw):
        if path and path.endswith("loop.pto"):
            raise RuntimeError("boom")
        return real(text, *a, path=path, **kw)

    monkeypatch.setattr(api, "solve", flaky)
    out = tmp_path / "o"
    status, _, err = run_in_process(capsys, "solve", tree, "--out-dir", out)
    assert status == 3
    assert f"tilemem: internal error: {tree / 'b' / 'c' / 'loop.pto'}: RuntimeError: boom" in err
    assert (out / "a" / "m.pto").exists() and (out / "b" / "ok.pto").exists()
    assert _summary(err) == (3, 1, 1)


def test_batch_bad_rule_file_fails_once_before_any_work(tree, tmp_path, capsys):
    bad = tmp_path / "bad.dl"
    bad.write_text("this is not datalog\n")
    status, _, err = run_in_process(capsys, "solve", tree, "--check", "--rules", bad)
    assert status == 2 and str(bad) in err
    assert "files," not in err                            # stopped before the batch


def test_batch_directory_without_programs(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    status, _, err = run_in_process(capsys, "solve", tmp_path / "empty", "--check")
    assert status == 2 and "no *.pto files" in err


@needs_corpus
def test_batch_over_a_slice_of_the_corpus(tmp_path, capsys):
    cases = [p for p in sorted(CORPUS.iterdir()) if p.is_dir()][:6]
    status, _, err = run_in_process(capsys, "solve", *cases, "--out-dir", tmp_path / "o", "-j", "2")
    assert status == 0
    files, changed, failed = _summary(err)
    assert (files, failed) == (12, 0) and changed > 0
    for c in cases:
        assert (tmp_path / "o" / c.name / "before.pto").is_file()


@needs_corpus
def test_batch_over_the_whole_corpus(tmp_path, request):
    """`tilemem solve ../shared/corpus --out-dir D`: every file solved (slow: run with -m slow)."""
    if not request.config.getoption("markexpr", default=""):
        pytest.skip("whole-corpus batch: run with -m slow")
    out = tmp_path / "o"
    r = run("solve", CORPUS, "--out-dir", out, "-j", "2")
    assert r.returncode == 0, r.stderr
    n = len(list(CORPUS.glob("*/*.pto")))
    files, _, failed = _summary(r.stderr)
    assert (files, failed) == (n, 0)
    assert len(list(out.rglob("*.pto"))) == n


test_batch_over_the_whole_corpus = pytest.mark.slow(test_batch_over_the_whole_corpus)
