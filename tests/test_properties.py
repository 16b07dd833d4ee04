"""Properties of the solver over random well-typed kernels (``tests/gen_kernels.py``).

For every generated program:

* the text is canonical, and parse -> print -> parse gives the same IR (dataclass equality);
* solving never crashes; every InCore tile of the output carries a memory space;
* strict programs: the output verifies (``rules/verify.dl``: ``unannotated_tile`` and
  ``operand_violation`` are empty) and solving the output changes nothing;
* the output is byte-identical from run to run, in this process and in fresh processes
  with different ``PYTHONHASHSEED`` values.

Hypothesis draws every decision of the generator, so a failure shrinks to a small
program (printed with the failure).  The CI run uses fixed examples (profile
``tilemem-ci`` in conftest.py: derandomized); ``--fuzz-long`` / ``TILEMEM_FUZZ_LONG=1``
explores ten times as many new ones.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, note, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import tilemem  # noqa: E402
from tilemem import ir  # noqa: E402
from tilemem.ir.printer import print_program  # noqa: E402

from gen_kernels import GenOptions, HypothesisChoices, RandomChoices, generate  # noqa: E402

LONG = os.environ.get("TILEMEM_FUZZ_LONG", "") not in ("", "0")
REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
BACKENDS = (None, "910B", "950")


def examples(n: int) -> int:
    return n * 10 if LONG else n


def _draw_program(data, strict=True, max_stmts=5, max_kernels=2):
    ch = HypothesisChoices(data)
    backend = BACKENDS[ch.integer(0, 2)]
    text = generate(ch, GenOptions(strict=strict, max_stmts=max_stmts, max_kernels=max_kernels))
    note(f"backend={backend}\n{text}")
    return text, backend


def _verify(program: ir.Program) -> list[str]:
    """The TileMemoryInferred violations of a program, as messages (rules/verify.dl)."""
    try:
        from tilemem.tools.verify import verify
    except ImportError:            # before `tilemem verify` existed: the relations directly
        from tilemem.infer.solver import derive
        _, db = derive(program, None, keep_db=True)
        try:
            return [f"unannotated_tile{r}" for r in db.relation("unannotated_tile")] + \
                   [f"operand_violation{r}" for r in db.relation("operand_violation")]
        finally:
            db.close()
    return [str(v) for v in verify(program, "out.pto")]


def _incore_tiles_without_space(program: ir.Program) -> list[str]:
    """Tile-typed assignments of InCore functions whose annotation has no space."""
    missing = []
    for fn in program.functions:
        if not fn.is_incore:
            continue
        stack = [fn.body]
        while stack:
            for s in stack.pop():
                if isinstance(s, ir.Assign) and isinstance(s.type, ir.TileType) and s.type.space is None:
                    missing.append(f"{fn.name}:{s.targets[0]}")
                for body in (getattr(s, "body", None), getattr(s, "then_body", None),
                             getattr(s, "else_body", None)):
                    if body:
                        stack.append(body)
    return missing


def _round_trip(text: str) -> ir.Program:
    p1 = tilemem.parse(text)
    printed = print_program(p1)
    p2 = tilemem.parse(printed)
    assert p1 == p2, "parse -> print -> parse changed the IR"
    assert print_program(p2) == printed, "printing is not a fixed point"
    return p1


# ----------------------------------------------------------------------------- text only


@settings(max_examples=examples(500))
@given(st.data())
def test_generated_text_is_canonical_and_round_trips(data):
    """No solving: the generator writes PyPTO's canonical text, and the IR round-trips."""
    text, _ = _draw_program(data, strict=data.draw(st.booleans()), max_stmts=4)
    prog = _round_trip(text)
    assert print_program(prog) + "\n" == text


# ----------------------------------------------------------------------------- solving


@settings(max_examples=examples(100))
@given(st.data())
def test_strict_programs_solve_verify_and_are_fixed_points(data):
    text, backend = _draw_program(data, strict=True)
    sol = tilemem.solve(text, backend=backend)
    out = sol.text
    note(f"output:\n{out}")
    program = _round_trip(out)
    assert _incore_tiles_without_space(program) == []
    # the output satisfies TileMemoryInferred except exactly where PyPTO's own answer
    # breaks it, which the solve warned about (a consumer alone in its body)
    from tilemem.tools.verify import verify
    broken = sorted((v.function, v.var) for v in verify(program, "out.pto"))
    assert broken == sorted(tuple(w.var.split(":", 1)) for w in sol.warnings
                            if w.code == "contract-break")
    again = tilemem.solve(out, backend=backend)
    assert again.text == out, "solving the output changed it"
    assert again.moves == [], "solving the output inserted moves"


@settings(max_examples=examples(120))
@given(st.data())
def test_programs_solve_to_valid_programs(data):
    """Strict and wild programs: a solution whose text parses, round-trips and (strict)
    types every InCore tile; the spaces and moves it reports are real spaces."""
    strict = data.draw(st.booleans())
    text, backend = _draw_program(data, strict=strict, max_stmts=4)
    sol = tilemem.solve(text, backend=backend)
    program = _round_trip(sol.text)
    if strict:
        assert _incore_tiles_without_space(program) == []
    # every space the solution names is a real one, every move goes to a real space
    from tilemem.ir.views import SPACES
    assert {s for f in sol.spaces.values() for s in f.values()} <= set(SPACES)
    assert all(m.target in SPACES for m in sol.moves)


@settings(max_examples=examples(70))
@given(st.data())
def test_wild_programs_never_crash(data):
    """Programs outside the strict subset (divergent branches, iter-arg aliases, unknown
    ops, colliding names, annotations in any space) still solve."""
    text, backend = _draw_program(data, strict=False, max_stmts=5)
    sol = tilemem.solve(text, backend=backend)
    _round_trip(sol.text)


# ----------------------------------------------------------------------------- determinism

_DIGEST_SCRIPT = r"""
import hashlib, json, pathlib, sys
import tilemem
jobs = json.loads(sys.stdin.read())
print(json.dumps([hashlib.sha256(tilemem.solve(pathlib.Path(p), backend=b).text.encode()).hexdigest()
                  for p, b in jobs]))
"""


def _determinism_jobs(tmp_path) -> list[tuple[str, str | None]]:
    jobs = []
    for k in range(40 if LONG else 16):
        opts = GenOptions(strict=k % 4 != 0, max_stmts=6)
        p = tmp_path / f"gen_{k}.pto"
        p.write_text(generate(RandomChoices(9000 + k), opts))
        jobs.append((str(p), BACKENDS[k % 3]))
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        for i, d in enumerate(sorted(x for x in corpus.iterdir() if x.is_dir())):
            if i % (3 if LONG else 15) == 0:
                backend = json.loads((d / "meta.json").read_text()).get("backend")
                jobs.append((str(d / "before.pto"), backend))
    return jobs


def test_output_is_byte_identical_across_hash_seeds(tmp_path):
    jobs = _determinism_jobs(tmp_path)
    here = [hashlib.sha256(tilemem.solve(Path(p), backend=b).text.encode()).hexdigest() for p, b in jobs]
    assert here == [hashlib.sha256(tilemem.solve(Path(p), backend=b).text.encode()).hexdigest()
                    for p, b in jobs], "two solves in one process differ"
    seeds = ["0", "1", "4242", "4294967295"] + (["random"] * 4 if LONG else [])

    def run(seed):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        r = subprocess.run([sys.executable, "-c", _DIGEST_SCRIPT], input=json.dumps(jobs),
                           capture_output=True, text=True, env=env, timeout=900, cwd=str(REPO))
        assert r.returncode == 0, r.stderr[-3000:]
        return seed, json.loads(r.stdout)
    with ThreadPoolExecutor(2) as ex:
        results = list(ex.map(run, seeds))
    for seed, digests in results:
        diff = [jobs[i][0] for i, (a, b) in enumerate(zip(here, digests)) if a != b]
        assert not diff, f"PYTHONHASHSEED={seed}: different output for {diff}"
