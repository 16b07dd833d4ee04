"""Hover: on a var, its memory space and the one-paragraph answer of ``tilemem why``
(the deciding line a link); where the pass inserts a move of it, the move and why; on a
load residency judged, hoisted or every refusal (the answer's notes)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from lsprotocol import types

from tilemem.lsp.analysis import READINGS, DocumentAnalysis, ProgramAnalysis
from tilemem.lsp.explain import answer, answer_move, linked
from tilemem.lsp.positions import char_col, span_range
from tilemem.lsp.varindex import FunctionVars, word_at


@dataclass
class VarAt:
    """The var under the cursor: its program, function, name and index, and the
    word's place (1-based line and column, length)."""
    program: ProgramAnalysis
    function: str
    name: str
    vars: FunctionVars
    line: int
    col: int
    length: int


def var_at(doc: DocumentAnalysis, lines: list[str], pos: types.Position) -> Optional[VarAt]:
    """The var under ``pos`` of the current text ``lines``, looked up in the analysis
    ``doc``; None off a var."""
    line, col0 = char_col(lines, pos)
    if not 1 <= line <= len(lines):
        return None
    w = word_at(lines[line - 1], col0)
    if w is None:
        return None
    word, start = w
    found = doc.function_at(line)
    if found is None:
        return None
    pa, span = found
    fv = pa.vars_of(span.function, doc.lines)
    name = fv.at(line, start + 1)
    if name is None and word in fv.defs:
        name = word
    if name is None:
        return None
    return VarAt(pa, span.function.name, name, fv, line, start + 1, len(word))


def _footer(doc: DocumentAnalysis) -> str:
    reading = READINGS.get(doc.reading or "", "?")
    backend = doc.settings.backend if doc.settings else None
    return f"*tilemem · read as {reading} · backend {backend or 'none'}*"


def _move_sections(pa: ProgramAnalysis, function: str, name: str, line: int, uri: str) -> list[str]:
    """What the pass inserts at this use of ``name``: a move before this statement."""
    from tilemem.ir.optable import op_table
    out = []
    for m in pa.solution.moves:
        if m.function == function and m.producer == name and m.consumer_line == line:
            why = answer_move(pa, m)
            out.append(f"**Move inserted before this statement:** `{m.name} = "
                       f"{op_table().inserted_move}({m.producer}, {m.target})`")
            if why is not None:
                out.append(linked(why.summary, uri))
    return out


def hover_markdown(doc: DocumentAnalysis, pa: ProgramAnalysis, function: str, name: str,
                   line: int, uri: str) -> Optional[str]:
    """The hover text of var ``name`` of ``function`` used or defined at ``line``."""
    if pa.solution is None:
        return None
    ans = answer(pa, name, function)
    if ans is None:
        return None
    space = pa.space_of(function, name)
    head = f"**`{name}`** · **{space}**" if space else f"**`{name}`**"
    sections = [f"{head} · in `{function}`", linked(ans.summary, uri)]
    sections.extend(_move_sections(pa, function, name, line, uri))
    notes = [n for n in ans.notes]
    if notes:
        sections.append("\n".join(f"- {linked(n.strip(), uri)}" if not n.startswith("  ")
                                  else f"  {linked(n.strip(), uri)}" for n in notes))
    sections.append(_footer(doc))
    return "\n\n".join(sections)


def hover(doc: DocumentAnalysis, lines: list[str], pos: types.Position, uri: str) -> Optional[types.Hover]:
    found = var_at(doc, lines, pos)
    if found is None:
        return None
    text = hover_markdown(doc, found.program, found.function, found.name, found.line, uri)
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=span_range(lines, found.line, found.col, found.length))
