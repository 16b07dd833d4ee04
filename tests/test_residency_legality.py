"""Phase 4 legality is defined once: a considered statement is hoisted exactly when no
refusal rule holds for it, on every program of the corpora (``../shared``; skipped
when absent).  The golden corpus always runs; corpus-random and the real models with
``-m slow`` (every 4th random program runs by default).

Checked at both ends: the derived relations (``hoist`` / ``refusal`` /
``residency_hoisted`` / ``residency_refusal``), and the verdicts the library returns
(``Solution.residency``: hoisted, or its refusals, most fundamental first).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tilemem.backends import normalize_backend
from tilemem.errors import read_source
from tilemem.frontend.parser import parse
from tilemem.infer.emitter import Solution3, emit
from tilemem.infer.solver import derive, derive_residency
from tilemem.residency.verdicts import decisions

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RELATIONS = ("considered", "hoist", "refusal", "residency_hoisted", "residency_refusal",
             "total_footprint", "backend_capacity")


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


def _check(case, request, slow: bool = False):
    if case is None:
        pytest.skip("corpus not found next to the checkout")
    if slow and "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("run with -m slow")
    res = _phase4(case)
    refused = {}
    for pos, rank, code, detail in res.rel("refusal"):
        refused.setdefault(pos, []).append((rank, code))
    hoist = set(res.rel("hoist"))
    considered = res.rel("considered")
    assert considered or not hoist
    for pos, var, loop in considered:
        assert ((pos, loop) in hoist) == (pos not in refused), (var, refused.get(pos))
    assert {(p, l) for p, _, l in res.rel("residency_hoisted")} == hoist
    assert {(p, r, c) for p, _, _, r, c, _ in res.rel("residency_refusal")} == \
        {(p, r, c) for p, rs in refused.items() for r, c in rs}
    # each code has one rank: the order of reasons is the rules' alone
    ranks = {}
    for rank, code in (x for rs in refused.values() for x in rs):
        assert ranks.setdefault(code, rank) == rank, code
    # the verdicts the library returns say the same
    for d in decisions(res.facts, res.rel):
        assert d.hoisted == (not d.refusals)
        assert [r.rank for r in d.refusals] == sorted(r.rank for r in d.refusals)
        assert d.hoisted or d.code == d.refusals[0].code


@pytest.mark.parametrize("case", _cases("corpus"))
def test_golden_hoisted_exactly_when_no_refusal(case, request):
    _check(case, request)


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
    sol = tilemem.solve(str(case / "before.pto"), backend="910B")
    d = next(d for d in sol.residency
             if (d.function, d.var) == ("s4_q_nope_latent_proj", "w_qn_h_chunk__tile"))
    assert [r.code for r in d.refusals] == ["loop_variant", "external_source"]
    assert d.code == "loop_variant" and "`q0__idx_v0` is the loop variable" in d.reason
    assert d.fix is None
    # the same order in the relation the rules derive
    cols, rows = sol.query('residency_refusal(P, "s4_q_nope_latent_proj:w_qn_h_chunk__tile", L, R, C, D)')
    assert [c for _, _, _, c, _ in sorted(rows, key=lambda r: r[2])] == ["loop_variant", "external_source"]
    sol.close()
