"""The answers of ``tilemem why`` for the editor: the same answer objects (the library's
``Solution.why`` / ``why_not``), and their words as Markdown with the lines they name
turned into links to the document."""
from __future__ import annotations

import re
from typing import Optional

from tilemem.lsp.analysis import ProgramAnalysis

_LINE = re.compile(r"\b(lines?) (\d+)((?:, \d+)*)")


def answer(pa: ProgramAnalysis, var: str, function: str):
    """``Solution.why(var)``: the answer of ``tilemem why VAR --function F`` (an
    ``Answer``; for the name of an inserted move, why the pass inserts it), or None."""
    from tilemem.explain import ExplainError

    def ask(sol):
        try:
            return sol.why(var, function)
        except ExplainError:
            return None
    return pa.explained(ask)


def answer_not(pa: ProgramAnalysis, var: str, function: str, space: str):
    """``Solution.why_not``: the answer of ``tilemem why VAR --not SPACE``, or None."""
    from tilemem.explain import ExplainError

    def ask(sol):
        try:
            return sol.why_not(var, space, function)
        except ExplainError:
            return None
    return pa.explained(ask)


def answer_move(pa: ProgramAnalysis, move):
    """Why the pass inserts ``move`` (a MoveRecord): the answer about its name."""
    return answer(pa, move.name, move.function)


def linked(text: str, uri: Optional[str]) -> str:
    """Markdown with ``line N`` outside code spans made a link to that line of ``uri``
    (``uri#L10``: the fragment editors open a line with)."""
    if not uri:
        return text
    parts = text.split("`")

    def link(m: re.Match) -> str:
        first = f"[{m.group(1)} {m.group(2)}]({uri}#L{m.group(2)})"
        rest = "".join(f", [{n}]({uri}#L{n})" for n in re.findall(r"\d+", m.group(3)))
        return first + rest
    for i in range(0, len(parts), 2):        # the even parts are outside `code`
        parts[i] = _LINE.sub(link, parts[i])
    return "`".join(parts)
