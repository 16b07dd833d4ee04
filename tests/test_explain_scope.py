"""Every fact an answer shows belongs to the function of the var asked about.

Walks every tile var of multi-function real kernels (``../shared/corpus-models``; skips
when absent): ``tilemem why VAR`` and ``tilemem why VAR --not SPACE`` (a space it is not
in), and checks the functions of every fact in the answer's deciding steps and in its
why-not search (:class:`tilemem.explain.scope.Scope`): the var's function, or one it
calls or is called by.  Two DeepSeek kernels always run; every multi-function kernel
with ``-m slow``.  The multi-function case that showed a loop of another function is
kept as a test of its own.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tilemem.explain import Session
from tilemem.explain.answer import answer_not, answer_var

MODELS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus-models"
ALWAYS = ("pypto_lib_models_deepseek_v3_2_decode_back_910B_001",
          "pypto_lib_models_deepseek_v3_2_decode_front_910B_001")


def _multi_function_kernels():
    if not MODELS.is_dir():
        return [pytest.param(None, id="corpus-models-absent")]
    out = []
    for case in sorted(p.parent for p in MODELS.glob("*/before.pto")):
        text = (case / "before.pto").read_text()
        if text.count("pl.FunctionType.InCore") < 2 or len(text) > 200_000:
            continue
        marks = [] if case.name in ALWAYS else [pytest.mark.slow]
        out.append(pytest.param(case, marks=marks, id=case.name[:80]))
    return out


def _facts(d, out):
    """Every (pred, args) in an answer's JSON."""
    if isinstance(d, dict):
        if isinstance(d.get("pred"), str) and isinstance(d.get("args"), list):
            out.append((d["pred"], tuple(d["args"])))
        for v in d.values():
            _facts(v, out)
    elif isinstance(d, list):
        for v in d:
            _facts(v, out)
    return out


def _check_kernel(case):
    meta = json.loads((case / "meta.json").read_text())
    ses = Session.from_text((case / "before.pto").read_text(), str(case / "before.pto"),
                            backend=meta.get("backend"))
    with ses:
        x = ses.phase3()
        scope = x.scope
        n = 0
        for vid in sorted(ses.facts.vars):
            if not x.holds("tile_var", (vid,)):
                continue
            fn = vid.split(":", 1)[0]
            allowed = scope.around(fn)
            spaces = [r[1] for r in x.rel.match("space", (vid, None))]
            other = "Mat" if spaces[:1] == ["Vec"] else "Vec"
            for ans in (answer_var(ses, vid), answer_not(ses, vid, other)):
                d = ans.to_dict()
                shown = _facts({"steps": d["steps"], "why_not": d.get("why_not")}, [])
                for pred, args in shown:
                    fns = scope.of_fact(pred, args)
                    assert fns <= allowed, (vid, ans.question, pred, args, fns)
            n += 1
        return n


@pytest.mark.parametrize("case", _multi_function_kernels())
def test_answers_show_only_facts_of_the_var_s_function(case, request):
    if case is None:
        pytest.skip("../shared/corpus-models not found next to the checkout")
    if case.name not in ALWAYS and "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("run with -m slow")
    assert _check_kernel(case) > 0


def test_why_not_cites_no_loop_of_another_function():
    """The reported case: o_acc__tile of incore_0, asked why not Vec, showed a
    loop_promotion fact of a loop in incore_2."""
    case = MODELS / ALWAYS[0]
    if not case.is_dir():
        pytest.skip("../shared/corpus-models not found next to the checkout")
    ses = Session.from_text((case / "before.pto").read_text(), str(case / "before.pto"))
    with ses:
        fn = "deepseek_v3_2_decode_back_layer_incore_0"
        ans = answer_not(ses, f"{fn}:o_acc__tile", "Vec")
        tree = ans.trees[0][1]
        text = tree.render(None)
        assert "incore_2" not in text and "incore_1" not in text
        assert ans.summary.startswith(f"`o_acc__tile` (in {fn}) is not in Vec")
