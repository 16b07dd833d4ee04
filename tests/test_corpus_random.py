"""tilemem reproduces PyPTO on ../shared/corpus-random: 400 generated programs (8 to ~900
statements, no backend / 910B / 950) with PyPTO's own answers (commit e2d0f78).

Each case folder holds several (input, expected) pairs; ``PAIRS`` lists the ones checked
here.  The printed form is ``before.pto -> after.pto``; the hand-written DSL reading adds
``("before_dsl.pto", "after_dsl.pto")`` to the list, and the same tests run it.

Size.  By default a fixed, deterministic sample runs: every ``SAMPLE_STEP``-th case in name
order (100 of the 400; about half a minute with the default engine on a loaded 2-core
machine), so that the whole suite stays well under ten minutes.  The sample is the same
every run and cuts across sizes and backends (the generator's seeds are random, names are
not ordered by content).  ``pytest --corpus-random=all`` (or ``TILEMEM_CORPUS_RANDOM=all``)
runs every case (about two minutes).  The engine-agreement check solves a smaller sample
with both engines: every 30th of the programs of at most 100 statements (pyDatalog is
several times slower; the whole corpus agrees, checked when the rules change).  Skips
when the corpus is absent.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import tilemem

RANDOM = Path(__file__).resolve().parents[1].parent / "shared" / "corpus-random"

# (input file, PyPTO's answer) of a case.
PAIRS = [("before.pto", "after.pto")]

SAMPLE_STEP = 4            # the default sample: every 4th case
ENGINE_SAMPLE_STEP = 30    # both engines: every 30th of the cases of at most ENGINE_MAX_STMTS
ENGINE_MAX_STMTS = 100     # (the generator's statement count, meta.json "stmts")


def _run_all(config) -> bool:
    return (config.getoption("--corpus-random", default="sample") == "all"
            or os.environ.get("TILEMEM_CORPUS_RANDOM", "") == "all")


def _cases() -> list[Path]:
    if not RANDOM.is_dir():
        return []
    return sorted(p for p in RANDOM.iterdir() if (p / "meta.json").is_file())


CASES = _cases()
needs_corpus = pytest.mark.skipif(not CASES, reason="../shared/corpus-random not present")


def pytest_generate_tests(metafunc):
    if "random_pair" not in metafunc.fixturenames:
        return
    step = 1 if _run_all(metafunc.config) else SAMPLE_STEP
    params = [pytest.param((case, src, want), id=f"{case.name}:{src}")
              for i, case in enumerate(CASES) if i % step == 0
              for src, want in PAIRS if (case / src).is_file()]
    metafunc.parametrize("random_pair", params or [pytest.param(None, marks=needs_corpus)])


def _backend(case: Path):
    return json.loads((case / "meta.json").read_text()).get("backend")


def _first_difference(got: str, want: str) -> str:
    gl, wl = got.splitlines(), want.splitlines()
    for i, (g, w) in enumerate(zip(gl, wl)):
        if g != w:
            return f"line {i + 1}:\n  want: {w}\n  got:  {g}"
    return f"length: want {len(wl)} lines, got {len(gl)}"


@needs_corpus
def test_solve_matches_pypto(random_pair):
    case, src, want = random_pair
    got = tilemem.solve((case / src).read_text(), backend=_backend(case),
                        path=str(case / src)).text.rstrip("\n")
    expected = (case / want).read_text().rstrip("\n")
    assert got == expected, f"{case.name}/{src}: {_first_difference(got, expected)}"


def _small(case: Path) -> bool:
    return json.loads((case / "meta.json").read_text()).get("stmts", 0) <= ENGINE_MAX_STMTS


@needs_corpus
@pytest.mark.parametrize("case", [c for c in CASES if _small(c)][::ENGINE_SAMPLE_STEP],
                         ids=lambda c: c.name)
def test_engines_agree(case):
    for src, want in PAIRS:
        if not (case / src).is_file():
            continue
        text = (case / src).read_text()
        answers = {e: tilemem.solve(text, backend=_backend(case), engine=e).text
                   for e in ("pydatalog", "clingo")}
        assert answers["pydatalog"] == answers["clingo"], f"{case.name}/{src}"
