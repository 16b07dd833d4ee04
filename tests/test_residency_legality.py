"""Phase 4 legality is defined once: a considered statement is hoisted exactly when no
refusal rule holds for it, on every program of the corpora (``../shared``; skipped
when absent).  The golden corpus always runs; corpus-random and the real models with
``-m slow`` (every 4th random program runs by default).

Checked at both ends: the derived relations (``hoist`` / ``refusal`` /
``residency_hoisted`` / ``residency_refusal``), and the verdicts the library returns
(``Solution.residency``: hoisted, or its refusals, most fundamental first).  The check
is shown to fail on results whose relations were tampered with, and not to be vacuous
(the golden corpus hoists some candidates and refuses others).  The golden programs
without a backend have no phase 4 (none has a candidate under Ascend910B either).
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from tilemem.backends import normalize_backend
from tilemem.input_text import read_source
from tilemem.frontend.parser import parse
from tilemem.infer.emitter import Solution3, emit
from tilemem.infer.solver import derive
from tilemem.residency.solve import derive_residency
from tilemem.residency.verdicts import VERDICT_RELATIONS, decisions

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RELATIONS = ("considered", "hoist", "refusal", *VERDICT_RELATIONS)


def _cases(corpus: str, every: int = 1, slow_rest: bool = False):
    base = SHARED / corpus
    if not base.is_dir():
        return [pytest.param(None, id=f"{corpus}-absent")]
    out = []
    for i, case in enumerate(sorted(p.parent for p in base.glob("*/before.pto"))):
        meta = case / "meta.json"
        backend = json.loads(meta.read_text()).get("backend") if meta.exists() else None
        if not backend:
            continue                       # phase 4 runs only with a backend
        marks = [pytest.mark.slow] if slow_rest and i % every else []
        out.append(pytest.param(case, marks=marks, id=case.name[:80]))
    return out


def _phase4(case: Path):
    path = str(case / "before.pto")
    backend = normalize_backend(json.loads((case / "meta.json").read_text())["backend"])
    program = parse(read_source(path), path)
    derived, _ = derive(program, backend, engine="clingo", origins=False)
    out, _ = emit(program, derived.facts, Solution3.from_relations(derived.rel))
    return derive_residency(out, backend, engine="clingo", origins=False, relations=RELATIONS)[0]


def legality_problems(res) -> list[str]:
    """What disagrees with "hoisted exactly when no refusal holds" in one phase-4 result
    (empty when legality is defined once)."""
    problems = []
    refused: dict = {}
    ranks = {(p, c): r for p, _, _, r, c, _, _ in res.rel("residency_refusal")}
    for pos, code, _, _ in res.rel("refusal"):
        refused.setdefault(pos, []).append((ranks.get((pos, code)), code))
    hoist = set(res.rel("hoist"))
    considered = res.rel("considered")
    candidates = {(pos, loop) for pos, _, loop in considered}
    for pos, var, loop in considered:
        if ((pos, loop) in hoist) == (pos in refused):
            problems.append(f"{var}: hoisted={(pos, loop) in hoist}, refusals={refused.get(pos)}")
    problems += [f"hoist {h} of a statement not considered" for h in sorted(hoist - candidates)]
    problems += [f"refusal of {p}, a statement not considered"
                 for p in sorted(set(refused) - {p for p, _ in candidates})]
    if {(p, l) for p, _, l in res.rel("residency_hoisted")} != hoist:
        problems.append("residency_hoisted is not hoist")
    if {(p, r, c) for p, _, _, r, c, _, _ in res.rel("residency_refusal")} != \
            {(p, r, c) for p, rs in refused.items() for r, c in rs}:
        problems.append("residency_refusal is not refusal")
    # each code has one rank: the order of reasons is the rules' alone
    ranks: dict = {}
    for rank, code in (x for rs in refused.values() for x in rs):
        if ranks.setdefault(code, rank) != rank:
            problems.append(f"refusal code {code} has ranks {ranks[code]} and {rank}")
    # the verdicts the library returns say the same
    for d in decisions(res.facts, res.rel):
        if d.hoisted == bool(d.refusals):
            problems.append(f"verdict of {d.var}: hoisted={d.hoisted} with refusals {d.refusals}")
        if [r.rank for r in d.refusals] != sorted(r.rank for r in d.refusals):
            problems.append(f"verdict of {d.var}: refusals out of rank order")
        if not d.hoisted and d.refusals and d.code != d.refusals[0].code:
            problems.append(f"verdict of {d.var}: its code is not its first refusal's")
    return problems


# the golden corpus is small: its results are kept for the tests that read them again
_golden_phase4 = functools.lru_cache(maxsize=None)(_phase4)


def _check(case, request, slow: bool = False, phase4=_phase4):
    if case is None:
        pytest.skip("corpus not found next to the checkout")
    if slow and "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("run with -m slow")
    assert not legality_problems(phase4(case))


@pytest.mark.parametrize("case", _cases("corpus"))
def test_golden_hoisted_exactly_when_no_refusal(case, request):
    _check(case, request, phase4=_golden_phase4)


def _golden_results():
    cases = [c.values[0] for c in _cases("corpus")]
    if cases == [None]:
        pytest.skip("corpus not found next to the checkout")
    return [(case, _golden_phase4(case)) for case in cases]


def test_the_golden_corpus_has_candidates_of_both_verdicts():
    """The check above is not vacuous: the golden corpus considers statements, hoists
    some and refuses others (the 57 cases with a backend: 209 considered, 26 hoisted)."""
    results = [res for _, res in _golden_results()]
    considered = sum(len(r.rel("considered")) for r in results)
    hoisted = sum(len(r.rel("hoist")) for r in results)
    assert hoisted > 0 and considered - hoisted > 0, (considered, hoisted)


class _Tampered:
    """A phase-4 result with some relation rows changed: what the check must catch."""

    def __init__(self, res, **rows):
        self.facts, self._res, self._rows = res.facts, res, rows

    def rel(self, name):
        return self._rows[name] if name in self._rows else self._res.rel(name)


def test_the_check_catches_a_hoist_that_disagrees_with_its_refusals():
    case, res = next(((c, r) for c, r in _golden_results() if r.rel("hoist") and r.rel("refusal")),
                     (None, None))
    if res is None:
        pytest.skip("no golden case both hoists and refuses")
    assert legality_problems(res) == []
    refusals, hoists = res.rel("refusal"), res.rel("hoist")
    refused_pos = refusals[0][0]
    loop = next(l for p, _, l in res.rel("considered") if p == refused_pos)
    # a refused statement hoisted anyway
    assert legality_problems(_Tampered(res, hoist=hoists + [(refused_pos, loop)]))
    # a refusal dropped (the statement neither hoisted nor refused)
    assert legality_problems(_Tampered(res, refusal=[r for r in refusals if r[0] != refused_pos]))
    # a hoisted statement refused too
    hp = hoists[0][0]
    assert legality_problems(_Tampered(res, refusal=refusals + [(hp, "x", "", -1)]))
    # a hoist of something residency never considered
    assert legality_problems(_Tampered(res, hoist=hoists + [(-1, loop)]))


@pytest.mark.parametrize("case", _cases("corpus-random", every=4, slow_rest=True))
def test_random_hoisted_exactly_when_no_refusal(case, request):
    marked = any(m.name == "slow" for m in getattr(request.node, "own_markers", []))
    _check(case, request, slow=marked)


@pytest.mark.slow
@pytest.mark.parametrize("case", _cases("corpus-models"))
def test_models_hoisted_exactly_when_no_refusal(case, request):
    _check(case, request, slow=True)


def test_loop_variance_is_reported_before_the_missing_alias_proof():
    """On the DeepSeek decode kernel a Mat load is refused both because its offset is the
    loop variable and because nothing proves its source unaliased; the loop variance is
    what truly blocks it (no aliasing proof would help), so it comes first everywhere."""
    case = SHARED / "corpus-models" / "pypto_lib_models_deepseek_v3_2_decode_front_910B_001"
    if not case.is_dir():
        pytest.skip("../shared/corpus-models not found next to the checkout")
    import tilemem
    sol = tilemem.solve(case / "before.pto", backend="910B")
    d = next(d for d in sol.residency
             if (d.function, d.var) == ("s4_q_nope_latent_proj", "w_qn_h_chunk__tile"))
    assert [r.code for r in d.refusals] == ["loop_variant", "external_source"]
    assert d.code == "loop_variant" and "`q0__idx_v0` is the loop variable" in d.reason
    assert d.fix is None
    # the same order in the relation the rules derive
    cols, rows = sol.query('residency_refusal(P, "s4_q_nope_latent_proj:w_qn_h_chunk__tile", L, R, C, N, A)')
    assert [c for _, _, _, c, _, _ in sorted(rows, key=lambda r: r[2])] == ["loop_variant", "external_source"]
    sol.close()
