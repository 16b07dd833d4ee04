"""Parse then print every golden program: the text must come back byte for byte.

The corpora live in the shared folder next to the repository (``../shared``):
``corpus`` (PyPTO's unit-test programs for the pass) and ``corpus-models`` (real
models).  Files over ``SLOW_LINES`` lines are marked ``slow`` and skipped unless a
``-m`` marker expression is given; run everything with
``pytest tests/test_roundtrip.py -m "slow or not slow"`` (or only them with ``-m slow``).

The friendly hand-written programs under ``tests/data/friendly`` must print as their
``*.expected.pto`` canonical form, which itself must round-trip.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tilemem.frontend.parser import parse
from tilemem.ir.printer import print_program

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared"
CORPORA = ("corpus", "corpus-models")
SLOW_LINES = 3000
FRIENDLY = Path(__file__).resolve().parent / "data" / "friendly"


def _corpus_params():
    params = []
    for name in CORPORA:
        base = SHARED / name
        if not base.is_dir():
            continue
        for path in sorted(base.glob("*/*.pto")):
            if path.name not in ("before.pto", "after.pto"):
                continue
            lines = path.read_bytes().count(b"\n") + 1
            marks = [pytest.mark.slow] if lines > SLOW_LINES else []
            params.append(pytest.param(path, bool(marks), id=f"{name}/{path.parent.name}/{path.name}",
                                       marks=marks))
    if not params:
        params.append(pytest.param(None, False, id="no-corpus"))
    return params


@pytest.mark.parametrize("path,slow", _corpus_params())
def test_corpus_roundtrip(path, slow, request):
    if path is None:
        pytest.skip(f"golden corpora not found under {SHARED.resolve()} (expected {', '.join(CORPORA)})")
    if slow and not request.config.getoption("markexpr", default=""):
        pytest.skip(f"large model file (> {SLOW_LINES} lines): run with -m slow")
    text = path.read_text(encoding="utf-8")
    out = print_program(parse(text, str(path)))
    expected = text[:-1] if text.endswith("\n") else text
    if out != expected:
        # Report the first differing line instead of a 5 MB diff.
        for i, (a, b) in enumerate(zip(expected.split("\n"), out.split("\n")), 1):
            if a != b:
                pytest.fail(f"{path}:{i}: round trip differs\n  input:   {a[:400]}\n  printed: {b[:400]}")
        pytest.fail(f"{path}: round trip differs in length "
                    f"({expected.count(chr(10)) + 1} vs {out.count(chr(10)) + 1} lines)")


def _friendly_params():
    return [pytest.param(p, id=p.stem) for p in sorted(FRIENDLY.glob("*.pto"))
            if not p.name.endswith(".expected.pto")]


def test_friendly_examples_exist():
    assert len(_friendly_params()) >= 3


@pytest.mark.parametrize("path", _friendly_params())
def test_friendly_canonical_form(path):
    expected_path = path.with_name(path.stem + ".expected.pto")
    expected = expected_path.read_text(encoding="utf-8").rstrip("\n")
    out = print_program(parse(path.read_text(encoding="utf-8"), str(path)))
    assert out == expected
    # the canonical form is a fixed point
    assert print_program(parse(expected, str(expected_path))) == expected


SUBMIT_PREDICATE = """\
# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        return x
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.k, x, predicate=(n > 0))
        b: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.k, x, core_num=1, predicate=(n + 1 > 2))
        y: pl.Tensor[[16, 16], pl.FP32] = b[0]
        return y
"""


def test_submit_predicate_prints_in_parentheses():
    """PyPTO prints a submit's predicate= in parentheses, however simple (printer.md §5)."""
    assert print_program(parse(SUBMIT_PREDICATE)) + "\n" == SUBMIT_PREDICATE
