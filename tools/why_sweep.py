#!/usr/bin/env python3
"""Ask ``why`` of every tile var of every InCore function of a corpus and report each
answer that is not the pass's own reason (issue 28's systematic check).

usage: nice .venv/bin/python tools/why_sweep.py [--not] [--backends meta,none] [--every N]
           [--max-bytes B] [--only SUBSTR] [FOLDER ...]

FOLDER defaults to ../shared/corpus and ../shared/corpus-models (every case folder with a
before.pto).  For each case, each backend of ``--backends`` (``meta``: the case's
meta.json backend; ``none``: no backend; or a backend's name) solves once and asks
every tile var; ``--not`` also asks, of every tile var, why it is not in each other
memory space.  What counts as a problem is the test's (tests/test_explain_reasons.py):
a declaration comment, a rule variable or a relation name in the paragraph, a template
slot left unfilled, an exception, and for ``--not`` a paragraph in the rules' words
(a failed premise) or an answer longer than 8 lines.  Prints one line per problem and a
count per corpus; exit code 1 when any.  One process, one case at a time: run it
under ``nice``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import tilemem  # noqa: E402
from test_explain_reasons import ask_every_tile_of  # noqa: E402


def backends_of(case: Path, which: list[str]) -> list:
    meta = case / "meta.json"
    own = json.loads(meta.read_text()).get("backend") if meta.exists() else None
    out = []
    for w in which:
        b = own if w == "meta" else None if w == "none" else w
        if b not in out:
            out.append(b)
    return out


def sweep_case(case: Path, backends: list, ask_not: bool) -> tuple[int, list[str]]:
    """(answers, problems) of the test's check of every tile var, once per backend
    (``--not`` without a backend and with the first one only)."""
    text = (case / "before.pto").read_text()
    n, problems = 0, []
    for backend in backends:
        try:
            sol = tilemem.solve(text, backend=backend)
        except tilemem.TilememError as e:       # not an explain problem: the case does not solve
            problems.append(f"[{backend}] solve: {e}")
            continue
        try:
            k, found = ask_every_tile_of(sol, ask_not and (backend is None or backend == backends[0]))
        finally:
            sol.close()
        n += k
        problems += [f"[{backend}] why {p}" for p in found]
    return n, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--not", dest="ask_not", action="store_true")
    ap.add_argument("--backends", default="meta,none")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--max-bytes", type=int, default=0)
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N cases (resume a run)")
    ap.add_argument("--only", default="")
    ap.add_argument("--smallest-first", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="only the counts and the problems")
    a = ap.parse_args(argv)
    shared = Path(os.environ.get("TILEMEM_SHARED") or ROOT.parent / "shared")
    folders = [Path(f) for f in a.folders] or [shared / "corpus", shared / "corpus-models"]
    which = a.backends.split(",")
    bad = 0
    for folder in folders:
        cases = sorted(p for p in folder.iterdir() if (p / "before.pto").is_file())
        if a.smallest_first:
            cases.sort(key=lambda c: (c / "before.pto").stat().st_size)
        cases = [c for c in cases[::a.every] if a.only in c.name
                 and (not a.max_bytes or (c / "before.pto").stat().st_size <= a.max_bytes)]
        cases = cases[a.skip:]
        answers = failing = 0
        t0 = time.time()
        for case in cases:
            n, problems = sweep_case(case, backends_of(case, which), a.ask_not)
            answers += n
            failing += bool(problems)
            bad += len(problems)
            for p in problems:
                print(f"{case.name}: {p}", flush=True)
            if not a.quiet:
                print(f"# {case.name}: {n} answers, {len(problems)} problems", file=sys.stderr, flush=True)
        print(f"== {folder.name}: {len(cases)} cases, {answers} answers, {failing} cases with problems "
              f"({time.time() - t0:.0f} s)", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
