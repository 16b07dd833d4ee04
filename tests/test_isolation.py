"""Solves do not see each other: answers are the same whether a program is solved alone in
a fresh process, after thousands of other solves, or in several threads at once; memory
does not grow from one solve to the next; no process-wide state is left changed.

``--fuzz-long`` / ``TILEMEM_FUZZ_LONG=1`` raises the in-process run to 3,000 solves.
"""
from __future__ import annotations

import gc
import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tilemem
from tilemem.errors import TilememError

from gen_kernels import GenOptions, RandomChoices, generate

LONG = os.environ.get("TILEMEM_FUZZ_LONG", "") not in ("", "0")
REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _programs() -> list[tuple[str, str, str | None]]:
    """(name, text, backend): corpus cases, generated kernels, and inputs that fail."""
    out = []
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        for i, d in enumerate(sorted(p for p in corpus.iterdir() if p.is_dir())):
            if i % 9 == 0:
                backend = json.loads((d / "meta.json").read_text()).get("backend")
                out.append((d.name, (d / "before.pto").read_text(), backend))
    for k in range(8):
        opts = GenOptions(max_stmts=4, strict=k % 3 != 2)
        out.append((f"gen_{k}", generate(RandomChoices(500 + k), opts), (None, "910B", "950")[k % 3]))
    base = out[-1][1]
    out.append(("bad_syntax", base.replace("pl.tile.", "pl.tile.(", 1), None))
    out.append(("bad_name", base.replace("pl.tile.store(", "pl.tile.store(nowhere, ", 1), "910B"))
    out.append(("deep", base.replace("return out_0", "k: pl.Scalar[pl.INDEX] = " + "(" * 300 + "1"
                                     + ")" * 300 + "\n        return out_0", 1), None))
    return out


PROGRAMS = _programs()


def answer(text: str, backend) -> str:
    """A digest of everything a solve returns (text, spaces, moves), or of the error."""
    try:
        sol = tilemem.solve(text, backend=backend, path="p.pto")
    except TilememError as e:
        return "error " + e.format()
    blob = json.dumps([sol.text, sol.spaces, [repr(m) for m in sol.moves]], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


_FRESH_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from test_isolation import PROGRAMS, answer
print(json.dumps({name: answer(text, backend) for name, text, backend in PROGRAMS[::-1]}))
"""


@pytest.fixture(scope="module")
def fresh_answers() -> dict[str, str]:
    """Each program solved once, in a fresh interpreter (in reverse order)."""
    r = subprocess.run([sys.executable, "-c", _FRESH_SCRIPT, str(Path(__file__).parent)],
                       capture_output=True, text=True, timeout=600, cwd=str(REPO))
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_threads_give_the_fresh_answers(fresh_answers):
    jobs = [(name, text, backend) for name, text, backend in PROGRAMS for _ in range(3)]
    random.Random(3).shuffle(jobs)
    limit = sys.getrecursionlimit()
    with ThreadPoolExecutor(8) as ex:
        got = list(ex.map(lambda j: (j[0], answer(j[1], j[2])), jobs))
    bad = [name for name, a in got if a != fresh_answers[name]]
    assert not bad, f"different answers in threads for: {sorted(set(bad))}"
    assert sys.getrecursionlimit() == limit
    assert gc.isenabled()


def test_many_solves_in_one_process(fresh_answers):
    n = 3_000 if LONG else 120
    rng = random.Random(5)
    order = [PROGRAMS[rng.randrange(len(PROGRAMS))] for _ in range(n)]
    limit = sys.getrecursionlimit()
    for i, (name, text, backend) in enumerate(order):
        a = answer(text, backend)
        assert a == fresh_answers[name], f"solve #{i} of {name} differs from a fresh solve"
    assert sys.getrecursionlimit() == limit
    assert gc.isenabled()


def test_memory_does_not_grow_between_solves():
    """Net memory retained across further solves (after a warm-up) stays small."""
    progs = [p for p in PROGRAMS if p[0].startswith("gen_")][:4] + [PROGRAMS[-2]]
    for name, text, backend in progs * 2:          # warm-up: caches, parser tables, rules
        answer(text, backend)
    gc.collect()
    tracemalloc.start(1)
    try:
        gc.collect()
        before = tracemalloc.take_snapshot()
        for _ in range(6 if LONG else 2):
            for name, text, backend in progs:
                answer(text, backend)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    stats = after.compare_to(before, "lineno")
    growth = sum(s.size_diff for s in stats)
    top = "\n".join(str(s) for s in stats[:8])
    # one solve of these programs allocates several MB; a leak of any solve's database,
    # facts or IR would retain hundreds of KB per solve
    assert growth < 256 * 1024, f"memory grew by {growth} bytes over the solves:\n{top}"


def test_concurrent_parse_and_print_round_trip():
    """The parser's state is per call: texts parsed at once in threads print back exactly."""
    from tilemem.ir.printer import print_program
    texts = [t for name, t, _ in PROGRAMS if not name.startswith("bad")]
    # long texts, so that threads switch in the middle of a parse
    texts.append(generate(RandomChoices(77), GenOptions(max_kernels=6, max_stmts=40)))
    texts.append(texts[-1].replace("return out_0", "return (out_0", 1))       # an error
    expected = {}
    for t in texts:
        try:
            expected[t] = print_program(tilemem.parse(t))
        except TilememError as e:
            expected[t] = e.format()

    def one(t):
        try:
            return print_program(tilemem.parse(t))
        except TilememError as e:
            return e.format()
    jobs = texts * 10
    random.Random(9).shuffle(jobs)
    with ThreadPoolExecutor(8) as ex:
        got = list(ex.map(one, jobs))
    assert [g == expected[t] for g, t in zip(got, jobs)] == [True] * len(jobs)


def test_solution_query_after_other_solves():
    """A Solution's query reads its own program, whatever was solved since."""
    name, text, backend = next(p for p in PROGRAMS if p[0].startswith("gen_"))
    sol = tilemem.solve(text, backend=backend)
    cols, rows = sol.query("space(V, S)")
    for other in PROGRAMS[:5]:
        try:
            tilemem.solve(other[1], backend=other[2])
        except TilememError:
            pass
    assert sol.query("space(V, S)") == (cols, rows)
    barrier = threading.Barrier(4)

    def q(_):
        barrier.wait()
        return sol.query("space(V, S)")
    with ThreadPoolExecutor(4) as ex:
        assert list(ex.map(q, range(4))) == [(cols, rows)] * 4


def test_recursion_limit_is_restored_after_concurrent_deep_work():
    """Parsing and printing deeply nested programs in threads at once leaves the
    process's recursion limit as it was, and every thread gets the full answer."""
    from tilemem.ir.printer import print_program
    base = next(t for name, t, _ in PROGRAMS if name.startswith("gen_"))
    deep = base.replace("return out_0", "k: pl.Scalar[pl.INDEX] = " + "-(" * 480 + "1" + ")" * 480
                        + "\n        return out_0", 1)
    expected = print_program(tilemem.parse(deep))
    limit = sys.getrecursionlimit()
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)                  # switch threads often, inside parse/print
    try:
        with ThreadPoolExecutor(8) as ex:
            got = list(ex.map(lambda _: print_program(tilemem.parse(deep)), range(64)))
    finally:
        sys.setswitchinterval(old_interval)
    assert got == [expected] * 64
    assert sys.getrecursionlimit() == limit
