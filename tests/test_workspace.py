"""tilemem.Workspace: after every edit, the same answer as tilemem.solve of the edited
text from scratch, with only the edited InCore functions solved again."""
from __future__ import annotations

import json

import pytest

import tilemem
from cli_helpers import CORPUS, REPO, SHARED
from tilemem.errors import TilememError

EXAMPLES = sorted((REPO / "examples").glob("*.pto"))
MODELS = SHARED / "corpus-models"


def _answer(sol) -> tuple:
    return (sol.text, [(f, list(vs.items())) for f, vs in sol.spaces.items()], sol.moves,
            sol.warnings, sol.residency, sol.program)


def _scratch(text: str, path: str, backend, **kw):
    try:
        return _answer(tilemem.solve(text, backend=backend, path=path, **kw))
    except TilememError as e:
        return e.format()


def _incremental(ws, change):
    try:
        return _answer(change())
    except TilememError as e:
        return e.format()


def _incore_body_lines(sol) -> list[int]:
    """The first body line (1-based) of each InCore function of a solved program."""
    return [fn.body[0].line for fn in sol.source.functions
            if fn.is_incore and fn.body and fn.body[0].line]


def _check_edits(text: str, path: str, backend, edits: int = 3, **kw) -> None:
    """Open ``text``, then edit one InCore function after another (a comment at the end
    of its first line; a line inserted, which moves every function below; a syntax
    error, then mended) and compare each answer with a solve from scratch."""
    ws = tilemem.Workspace(text, path=path, backend=backend, **kw)
    assert _incremental(ws, ws.solution) == _scratch(text, path, backend, **kw)
    try:
        lines = _incore_body_lines(ws.solution())
    except TilememError:
        return
    for n, line in enumerate(lines[:edits]):
        row = line - 1
        end = len(ws.text.split("\n")[row])
        got = _incremental(ws, lambda: ws.edit((row, end), (row, end), f"  # edit {n}"))
        assert ws.resolved_functions == 1
        # phase 4 and the printing per function too (not the pipeline's whole solve)
        assert ws.resolved_residency is not None or kw.get("rules")
        assert ws.reread_functions in (None, 1)     # printed IR: only that function read
        assert got == _scratch(ws.text, path, backend, **kw), (path, "comment", n)
        # a space in the line: the same IR, but the text (and so the columns) changed
        text = ws.text.split("\n")[row]
        if ", " in text:
            at = text.index(", ") + 1
            got = _incremental(ws, lambda: ws.edit((row, at), (row, at), " "))
            assert ws.resolved_functions == 1 and ws.reread_functions in (None, 1)
            assert got == _scratch(ws.text, path, backend, **kw), (path, "space", n)
    if lines and edits > 1:
        row = lines[-1] - 1
        indent = len(ws.text.split("\n")[row]) - len(ws.text.split("\n")[row].lstrip())
        got = _incremental(ws, lambda: ws.edit((row, 0), (row, 0), " " * indent + "pass\n"))
        assert got == _scratch(ws.text, path, backend, **kw), (path, "inserted line")
        good = ws.text
        bad = _incremental(ws, lambda: ws.edit((row, 0), (row, 0), " " * indent + "x = (\n"))
        assert isinstance(bad, str) and bad == _scratch(ws.text, path, backend, **kw)
        assert _incremental(ws, lambda: ws.set_text(good)) == _scratch(good, path, backend, **kw)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
@pytest.mark.parametrize("backend", [None, "910B"])
def test_examples_incremental_equals_from_scratch(example, backend):
    _check_edits(example.read_text(), str(example), backend)


def _cases(root, limit=None):
    if not root.is_dir():
        return []
    cases = sorted(p for p in root.iterdir() if (p / "before.pto").is_file())
    if limit:       # the smallest: the suite stays fast
        cases = sorted(cases, key=lambda p: (p / "before.pto").stat().st_size)[:limit]
    return cases


def _backend(case):
    meta = case / "meta.json"
    return json.loads(meta.read_text()).get("backend") if meta.is_file() else None


def test_hand_written_dsl_incremental_equals_from_scratch():
    src = REPO / "examples" / "kernels.py"
    for name in ("MatmulBiasRelu", "KLoopMatmul"):
        _check_edits(src.read_text(), str(src), "910B", edits=2, program=name)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")
def test_golden_corpus_incremental_equals_from_scratch():
    """Every third golden kernel (the suite stays fast; the others are alike): opened,
    one function edited, the whole text replaced by PyPTO's answer; every ninth: the
    whole series of edits."""
    for i, case in enumerate(_cases(CORPUS)):
        if i % 3:
            continue
        src = case / "before.pto"
        _check_edits(src.read_text(), str(src), _backend(case), edits=3 if i % 9 == 0 else 1)
        # the whole text replaced by PyPTO's answer: every function edited at once
        ws = tilemem.Workspace(src.read_text(), path=str(src), backend=_backend(case))
        after = (case / "after.pto").read_text()
        assert _incremental(ws, lambda: ws.set_text(after)) == _scratch(after, str(src),
                                                                         _backend(case))


@pytest.mark.skipif(not MODELS.is_dir(), reason="../shared/corpus-models not present")
@pytest.mark.parametrize("case", _cases(MODELS, 8), ids=lambda p: p.name)
def test_real_kernels_incremental_equals_from_scratch(case):
    src = case / "before.pto"
    _check_edits(src.read_text(), str(src), _backend(case))


def test_an_unchanged_function_is_not_solved_again():
    text = (REPO / "examples" / "matmul_bias_relu.pto").read_text()
    ws = tilemem.Workspace(text, backend="910B")
    ws.solution()
    assert ws.resolved_functions == 1 and ws.reread_functions == 2
    ws.set_text(text + "\n")
    assert ws.resolved_functions == 0 and ws.reread_functions == 1   # the last one's text
    ws.set_text(text.replace("    @pl.function", "    # a comment\n    @pl.function", 1))
    assert ws.reread_functions is None                      # a comment: read whole
    assert ws.solution().text == tilemem.solve(text + "\n", backend="910B").text


def test_edit_positions_are_an_editors_range():
    ws = tilemem.Workspace("ab\ncd\n")
    assert ws.text == "ab\ncd\n"
    ws.text = "ab\ncd\n"
    with pytest.raises(ValueError):
        ws.edit((1, 1), (0, 0), "x")
    from tilemem.workspace import _offset
    lines = "ab\ncd\n".split("\n")
    assert _offset(lines, 1, 1) == 4 and _offset(lines, 0, 99) == 2 and _offset(lines, 9, 0) == 6


def _non_incore_body_lines(sol) -> list[int]:
    return [fn.body[0].line for fn in sol.source.functions
            if not fn.is_incore and fn.body and fn.body[0].line]


def _check_each_function(case, limit: int = 3) -> None:
    """A kernel edited (solved again with its callers), an orchestration function
    edited (its callees' verdicts read its call sites), and a kernel's parameter
    direction changed (what its callers read of it changes: the whole program is solved
    again) -- each answer the one of a solve from scratch."""
    src = case / "before.pto"
    text, backend = src.read_text(), _backend(case)
    ws = tilemem.Workspace(text, path=str(src), backend=backend)
    assert _incremental(ws, ws.solution) == _scratch(text, str(src), backend)
    try:
        sol = ws.solution()
    except TilememError:
        return
    n = len(sol.source.functions)
    for line in _incore_body_lines(sol)[:limit] + _non_incore_body_lines(sol)[:limit]:
        row = line - 1
        end = len(ws.text.split("\n")[row])
        got = _incremental(ws, lambda: ws.edit((row, end), (row, end), "  # edited"))
        assert got == _scratch(ws.text, str(src), backend), (case.name, line)
        assert ws.resolved_residency is not None and ws.resolved_residency <= n
    lines = ws.text.split("\n")
    for fn in sol.source.functions:
        row = (fn.line or 0) - 1
        if fn.is_incore and 0 <= row < len(lines) and "pl.Out[" in lines[row]:
            at = lines[row].index("pl.Out[")
            got = _incremental(ws, lambda: ws.edit((row, at), (row, at + len("pl.Out")), "pl.InOut"))
            assert got == _scratch(ws.text, str(src), backend), (case.name, "InOut")
            assert isinstance(got, str) or backend is None or ws.resolved_residency == n  # whole
            break
    # nothing changed: nothing solved again
    got = _incremental(ws, lambda: ws.set_text(ws.text))
    assert isinstance(got, str) or ws.resolved_residency == 0
    assert got == _scratch(ws.text, str(src), backend)


@pytest.mark.skipif(not MODELS.is_dir(), reason="../shared/corpus-models not present")
@pytest.mark.parametrize("case", [c for c in _cases(MODELS)[5::45]
                                  if (c / "before.pto").stat().st_size < 150_000],
                         ids=lambda p: p.name)
def test_callers_and_callees_edited_incrementally_equal_from_scratch(case):
    _check_each_function(case)


RANDOM = SHARED / "corpus-random"


@pytest.mark.skipif(not RANDOM.is_dir(), reason="../shared/corpus-random not present")
def test_random_programs_edited_incrementally_equal_from_scratch():
    """Every 25th generated program (several functions calling each other, loads
    hoisted out of loops, refusals worded from call sites): every function edited."""
    for case in _cases(RANDOM)[3::25]:
        _check_each_function(case, limit=4)
