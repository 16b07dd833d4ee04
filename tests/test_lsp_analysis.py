"""The language server's analysis and features, in process (no client): what a document
version makes, the answers built from it, and the edge cases an editor produces (a
half-typed module, a bad pyproject.toml, an edit in one function, non-ASCII text)."""
from __future__ import annotations

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402

from cli_helpers import DATA, REPO  # noqa: E402
from tilemem.lsp.analysis import Workspaces, analyse  # noqa: E402
from tilemem.lsp.explain import linked  # noqa: E402
from tilemem.lsp.hover import hover_markdown  # noqa: E402
from tilemem.lsp.positions import char_col, position, span_range  # noqa: E402
from tilemem.lsp.settings import ClientSettings  # noqa: E402

STATIONARY = DATA / "solve" / "dsl" / "stationary_lhs_dsl.py"
EXAMPLE_PTO = REPO / "examples" / "matmul_bias_relu.pto"


def test_residency_notes_at_bridge_marked_loads_and_in_the_hover():
    text = STATIONARY.read_text()
    doc = analyse(text, str(STATIONARY), ClientSettings(backend="910B"))
    notes = {p.line: p.message for p in doc.all_problems() if p.code == "residency"}
    lines = text.splitlines()
    hoisted = [line for line, m in notes.items() if "is hoisted out of the loop" in m]
    stays = [line for line, m in notes.items() if "stays in the loop" in m]
    assert hoisted and stays
    # each note sits on the load it judges
    assert all("lhs_mat" in lines[line - 1] for line in hoisted)
    pa = doc.programs[0]
    fn = pa.function_at(stays[0]).function.name
    md = hover_markdown(doc, pa, fn, "rhs_n", stays[0], "file:///k.py")
    assert "Residency (Ascend910B): stays in the loop" in md
    assert "loop variable" in md


def test_without_a_backend_no_residency_notes():
    doc = analyse(STATIONARY.read_text(), str(STATIONARY), ClientSettings())
    assert not [p for p in doc.all_problems() if p.code == "residency"]
    assert doc.status()["backend"] is None


def test_a_half_typed_module_is_one_error_where_python_says():
    text = STATIONARY.read_text()
    lines = text.split("\n")
    k = next(i for i, l in enumerate(lines) if "pl.matmul" in l or "pl.tile.matmul" in l)
    lines[k] = lines[k][: lines[k].index("(") + 1]            # the call left open
    doc = analyse("\n".join(lines), str(STATIONARY), ClientSettings())
    [err] = [p for p in doc.all_problems() if p.severity == "error"]
    assert err.code == "input-error" and err.line is not None
    assert not doc.solved


def test_a_bad_pyproject_is_a_warning_and_the_program_still_solves(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tilemem]\nbackendd = '910B'\n")
    path = tmp_path / "k.pto"
    path.write_text(EXAMPLE_PTO.read_text())
    doc = analyse(path.read_text(), str(path), ClientSettings())
    [w] = [p for p in doc.all_problems() if p.code == "config-error"]
    assert w.severity == "warning" and "backendd" in w.message
    assert doc.solved


def _two_kernels() -> str:
    """The example with its InCore function twice (``kernel`` and ``kernel2``)."""
    lines = EXAMPLE_PTO.read_text().split("\n")
    start = next(i for i, l in enumerate(lines) if "FunctionType.InCore" in l)
    end = next(i for i, l in enumerate(lines) if "FunctionType.Orchestration" in l)
    copy = [l.replace("def kernel(", "def kernel2(") for l in lines[start:end]]
    return "\n".join(lines[:end] + copy + lines[end:])


def test_an_edit_in_one_function_solves_it_alone_and_answers_as_a_fresh_solve():
    import tilemem
    path = "/work/k.pto"
    text = _two_kernels()
    ws = Workspaces()
    first = analyse(text, path, ClientSettings(), 1, workspaces=ws)
    assert set(first.programs[0].solution.spaces) == {"kernel", "kernel2"}
    lines = text.split("\n")
    k = max(i for i, l in enumerate(lines) if "pl.tile.relu" in l)     # in kernel2
    lines[k] += "   "
    edited = "\n".join(lines)
    again = analyse(edited, path, ClientSettings(), 2, workspaces=ws)
    [kept] = ws._by_key.values()
    assert kept.resolved_functions == 1
    fresh = tilemem.solve(edited, path=path)
    assert again.programs[0].solution.text == fresh.text
    assert again.programs[0].solution.spaces == first.programs[0].solution.spaces


def test_after_an_edit_the_problems_are_a_fresh_analysis_s_with_one_function_verified_again():
    path = "/work/k.pto"
    text = _two_kernels()
    settings = ClientSettings(backend="910B", verify="warning")
    ws = Workspaces()
    first = analyse(text, path, settings, 1, workspaces=ws)
    [verified] = ws._verified.values()
    lines = text.split("\n")
    k = max(i for i, l in enumerate(lines) if "pl.tile.relu" in l)     # in kernel2
    lines[k] += "   "
    edited = "\n".join(lines)
    again = analyse(edited, path, settings, 2, workspaces=ws)
    fresh = analyse(edited, path, settings, 2)

    def problems(doc):
        return [(p.line, p.col, p.message, p.code, p.severity) for p in doc.all_problems()]
    assert problems(again) == problems(fresh)
    assert any(p.source == "tilemem verify" for p in first.all_problems())
    # the kernel the edit did not touch: the same function, its violations kept
    [now] = ws._verified.values()
    kept = [e for e in now.values() if e[0].name == "kernel"]
    assert kept and kept[0] is next(e for e in verified.values() if e[0].name == "kernel")


def test_a_python_module_without_programs_is_left_alone():
    doc = analyse("import os\nprint(os.sep)\n", "/work/m.py", ClientSettings())
    assert doc.reading is None and doc.all_problems() == [] and doc.programs == []


def test_line_links_outside_code_spans_only():
    md = linked("`x` is in Vec because of line 8 (`line 3 = 1`); also lines 9, 12", "file:///k")
    assert "[line 8](file:///k#L8)" in md
    assert "`line 3 = 1`" in md
    assert "[lines 9](file:///k#L9), [12](file:///k#L12)" in md


def test_positions_count_utf16_code_units():
    lines = ["a = '\U0001F600' + x"]           # an emoji: two UTF-16 code units
    x_col = lines[0].index("x") + 1
    pos = position(lines, 1, x_col)
    assert pos == types.Position(line=0, character=x_col)        # one more than its index
    assert char_col(lines, pos) == (1, x_col - 1)
    rng = span_range(lines, 1, x_col)
    assert rng.end.character - rng.start.character == 1
