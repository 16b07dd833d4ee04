"""tilemem solve reproduces PyPTO's own output on the golden corpus.

Every case of ../shared/corpus: solving before.pto with the case's backend prints
after.pto exactly (trailing newline aside).  Skips when the corpus is absent.
"""
import json
from pathlib import Path

import pytest

import tilemem

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
CASES = sorted(p.parent for p in CORPUS.glob("*/before.pto")) if CORPUS.is_dir() else []


def _meta(case: Path) -> dict:
    return json.loads((case / "meta.json").read_text())


def _solve_case(case: Path) -> tuple[str, str]:
    meta = _meta(case)
    got = tilemem.solve((case / "before.pto").read_text(), backend=meta.get("backend")).text
    return got.rstrip("\n"), (case / "after.pto").read_text().rstrip("\n")


@pytest.mark.skipif(not CASES, reason="../shared/corpus not found next to the checkout")
@pytest.mark.parametrize("case", CASES, ids=[c.name[:80] for c in CASES])
def test_solve_matches_pypto(case):
    got, want = _solve_case(case)
    if got != want:
        gl, wl = got.splitlines(), want.splitlines()
        for i, (g, w) in enumerate(zip(gl, wl)):
            assert g == w, f"line {i + 1} differs"
        assert len(gl) == len(wl)


@pytest.mark.skipif(not CASES, reason="../shared/corpus not found next to the checkout")
def test_no_state_leaks_between_solves():
    """Two different programs solved one after the other, then the first again:
    each answer equals the answer of a fresh solve."""
    a = next(c for c in CASES if c.name.startswith("test_matmul_gets_acc"))
    b = next(c for c in CASES if c.name.startswith("test_tensor_matmul_stationary_lhs"))
    first_a = _solve_case(a)
    first_b = _solve_case(b)
    assert _solve_case(a) == first_a
    assert _solve_case(b) == first_b
    assert first_a[0] == first_a[1] and first_b[0] == first_b[1]
