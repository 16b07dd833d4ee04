"""Every answer of ``tilemem why`` gives the pass's own reason: asked of every tile var
of every InCore function of the golden corpus and of the real kernels, no answer falls
back to rule comments, leaves a rule variable or a relation name in its paragraph, or
raises.

``--not`` is asked of every tile var of every 15th golden case, for every other space:
it names the rule that would give the space and what this program has instead, in at
most 8 lines, never a chain of failed premises.

By default every golden case and every 36th real kernel (of those under 200 KB); ``-m slow`` (or
``TILEMEM_WHY_ALL=1``) asks every real kernel.  ``TILEMEM_SHARED`` names the shared
folder when it is not ``../shared`` beside the repository; the tests skip cleanly
without it.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import tilemem
from tilemem.explain.answer import answer_not, answer_var

SHARED = Path(os.environ.get("TILEMEM_SHARED") or Path(__file__).resolve().parents[2] / "shared")
CORPUS, MODELS = SHARED / "corpus", SHARED / "corpus-models"
EVERY = 36

SPACES = {"Vec", "Mat", "Left", "Right", "Acc", "Bias", "DDR"}
#: a rule variable left in a sentence: a capitalised word of one to three characters
#: outside quotes that is no memory space ("of V", "at P", "Op")
RULE_VAR = re.compile(r"(?<![\w`.\[])[A-Z][A-Za-z0-9]{0,2}(?![\w`.(\]])")
#: a relation written as a fact: a snake_case name applied to arguments
#: capitalised words of sentences that are no rule variable
ENGLISH = {"And", "I", "For", "No", "The", "Its"}
RELATION = re.compile(r"\b[a-z]+_[a-z_]+\(")


#: the default sample leaves out the kernels larger than this (a 3 MB kernel has
#: thousands of tiles: minutes of answers), which ``-m slow`` asks too
SAMPLE_MAX_BYTES = 200_000


def _cases(folder: Path, every: int = 1) -> list[str]:
    if not folder.is_dir():
        return []
    names = sorted(p.name for p in folder.iterdir() if (p / "before.pto").is_file())
    if every == 1:
        return names
    return [n for n in names[::every] if (folder / n / "before.pto").stat().st_size <= SAMPLE_MAX_BYTES]


def paragraph_problem(summary: str) -> str | None:
    """What is wrong with an answer's paragraph (None: nothing): a rule variable or a
    relation name outside the quoted program text and names."""
    prose = re.sub(r"`[^`]*`", "", summary)
    words = [w for w in RULE_VAR.findall(prose) if w not in SPACES and w not in ENGLISH]
    if words:
        return f"rule variable(s) {words}"
    if RELATION.search(prose):
        return f"relation {RELATION.search(prose).group(0)}"
    if "written at a site" in prose:
        return "a declaration's comment"
    return None


#: a why-not paragraph in the rules' words: a chain of failed premises
FAILED_PREMISE = re.compile(r"fails on|does not hold|holds but must not|gets furthest|nearest rule")


def answer_problem(ans) -> str | None:
    """What is wrong with a ``why`` answer (None: nothing)."""
    if ans.data.get("fallback"):
        return f"no rule gave a reason: {ans.summary}"
    if ans.data.get("unfilled"):
        return f"unfilled {ans.data['unfilled']}: {ans.summary}"
    if FAILED_PREMISE.search(re.sub(r"`[^`]*`", "", ans.summary)):
        return f"failed premises: {ans.summary}"
    wrong = paragraph_problem(ans.summary)
    return f"{wrong}: {ans.summary}" if wrong else None


#: the most lines a ``--not`` answer prints
NOT_LINES = 8


def not_problem(ans) -> str | None:
    """What is wrong with a ``why --not`` answer (None: nothing): a paragraph in the
    rules' words, a rule variable or relation, or more than 8 lines."""
    prose = re.sub(r"`[^`]*`", "", ans.summary)
    if FAILED_PREMISE.search(prose):
        return f"failed premises: {ans.summary}"
    wrong = paragraph_problem(ans.summary)
    if wrong:
        return f"{wrong}: {ans.summary}"
    lines = ans.render().count("\n") + 1
    if lines > NOT_LINES:
        return f"{lines} lines: {ans.render()}"
    return None


def ask_every_tile(case: Path, ask_not: bool = False) -> tuple[int, list[str]]:
    """(answers, problems) of ``why`` asked of every tile var of the case's InCore
    functions, solved with the case's own backend (see :func:`ask_every_tile_of`)."""
    meta = case / "meta.json"
    backend = json.loads(meta.read_text()).get("backend") if meta.exists() else None
    sol = tilemem.solve(case / "before.pto", backend=backend)
    try:
        return ask_every_tile_of(sol, ask_not)
    finally:
        sol.close()


def ask_every_tile_of(sol, ask_not: bool = False) -> tuple[int, list[str]]:
    """(``why`` answers, problems) of ``why`` asked of every tile var of a solution's
    InCore functions (and, with ``ask_not``, of why it is not in each other space)."""
    problems, n = [], 0
    ses = sol.session()
    for vid in sorted(ses.facts.vars):
        if ses.var_kind(vid) != "tile":
            continue
        n += 1
        try:
            wrong = answer_problem(answer_var(ses, vid))
        except Exception as e:               # noqa: BLE001 - every failure is reported
            wrong = f"{type(e).__name__}: {e}"
        if wrong:
            problems.append(f"{vid}: {wrong}")
        if not ask_not:
            continue
        rows = list(ses.phase3().rel.match("space", (vid, None)))
        have = rows[0][1] if rows else None
        for space in sorted(SPACES - {have, "DDR"}):
            try:
                wrong = not_problem(answer_not(ses, vid, space))
            except Exception as e:           # noqa: BLE001
                wrong = f"{type(e).__name__}: {e}"
            if wrong:
                problems.append(f"{vid} --not {space}: {wrong}")
    return n, problems


def test_paragraph_problems_are_found():
    """The checks themselves: what the issue found is caught, a good answer passes."""
    assert paragraph_problem("`x` is in Mat because of line 11: the space written at a site "
                             "of V (\"none\" when that site resolves nothing).")
    assert paragraph_problem("`x` is in Acc (op table: op_output_fixed(tile.matmul, Acc)).")
    assert paragraph_problem("`x` is in Mat because of line 8 (`x = pl.tile.load(A, B)`): "
                             "`tile.load` is given target_memory=Mat.") is None


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")
@pytest.mark.parametrize("name", _cases(CORPUS))
def test_every_golden_tile_has_a_reason(name):
    n, problems = ask_every_tile(CORPUS / name)
    assert not problems, "\n".join(problems[:5])


#: --not is asked of every tile var of every NOT_EVERY-th golden case (each answer asks
#: the rules why not, for every other space: the slowest question)
NOT_EVERY = 15


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")
@pytest.mark.parametrize("name", _cases(CORPUS, NOT_EVERY))
def test_why_not_says_the_rule_and_the_fact(name):
    n, problems = ask_every_tile(CORPUS / name, ask_not=True)
    assert not problems, "\n".join(problems[:5])


def test_not_problems_are_found():
    """The --not check itself: a chain of failed premises is caught."""
    from tilemem.explain import Answer
    chain = Answer("q", "`phi` is not in Acc: For Acc, the rule that gets furthest (rules/p1_resolve.dl:318) "
                        "fails on `space_written(phi, end of line 11, Acc)`, which does not hold.")
    assert not_problem(chain)
    good = Answer("q", "`c` is not in Left: `c` is in Acc because of line 10: `tile.matmul` always "
                       "produces its result in Acc. For Left, the pass would need: “`tile.matmul` always "
                       "produces its result in Left” (rules/p1_resolve.dl:106); here, line 10 gives it Acc.")
    assert not_problem(good) is None


_ALL = bool(os.environ.get("TILEMEM_WHY_ALL"))


@pytest.mark.skipif(not MODELS.is_dir(), reason="../shared/corpus-models not present")
@pytest.mark.parametrize("name", _cases(MODELS, 1 if _ALL else EVERY))
def test_real_kernel_tiles_have_a_reason(name):
    n, problems = ask_every_tile(MODELS / name)
    assert n > 0 and not problems, "\n".join(problems[:5])


@pytest.mark.slow
@pytest.mark.skipif(not MODELS.is_dir(), reason="../shared/corpus-models not present")
@pytest.mark.parametrize("name", sorted(set(_cases(MODELS)) - set(_cases(MODELS, EVERY))))
def test_every_real_kernel_tile_has_a_reason(name, request):
    if "slow" not in (request.config.getoption("markexpr", default="") or ""):
        pytest.skip("every real kernel: run with -m slow")
    n, problems = ask_every_tile(MODELS / name)
    assert n > 0 and not problems, "\n".join(problems[:5])


#: refusal codes no valid program reaches: tile.load's source must be a tensor (the
#: printed-IR checks reject any other), so source_not_tensor is a guard, not a verdict
UNREACHABLE_REFUSALS = {"source_not_tensor"}


def test_every_refusal_kind_has_a_golden_answer():
    """Each refusal of phase 4 (a refusal_words fact of rules/p4_residency/) is said in a
    golden ``why`` answer under tests/data/solve: the longest literal piece of its words
    appears in one of them."""
    rules = Path(__file__).resolve().parents[1] / "rules"
    words = {}
    for f in sorted((rules / "p4_residency").glob("*.dl")):
        for code, text in re.findall(r'^refusal_words\("(\w+)", "\w+", "((?:[^"\\]|\\.)*)"', f.read_text(), re.M):
            words.setdefault(code, []).append(text)
    assert len(words) >= 25, sorted(words)
    goldens = " ".join(re.sub(r"\s+", " ", p.read_text())
                       for p in (Path(__file__).parent / "data" / "solve").rglob("*.why.txt"))
    missing = []
    for code, texts in sorted(words.items()):
        if code in UNREACHABLE_REFUSALS:
            continue
        pieces = [max(re.split(r"\{[^}]*\}", t), key=len).strip() for t in texts]
        if not any(p and p in goldens for p in pieces):
            missing.append(f"{code}: {pieces}")
    assert not missing, "refusals no golden answer says:\n" + "\n".join(missing)
