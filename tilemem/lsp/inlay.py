"""Inlay hints: the solved space after each tile assignment's target (``: Acc``), and
the moves the pass inserts before a statement (``a_Left = move(a, Left)``)."""
from __future__ import annotations

from typing import Optional

from lsprotocol import types

from tilemem.lsp.analysis import DocumentAnalysis
from tilemem.lsp.positions import position
from tilemem.lsp.varindex import iter_defs, statement_col


def _in(rng: Optional[types.Range], line: int) -> bool:
    return rng is None or rng.start.line <= line - 1 <= rng.end.line


def inlay_hints(doc: DocumentAnalysis, rng: Optional[types.Range] = None,
                current: Optional[list[str]] = None) -> list[types.InlayHint]:
    """The hints of the analysed document within ``rng``.

    ``current``: the lines of the document now, when the analysis is of an older version
    (the last one that solved): a hint is kept only where its line still reads the same,
    so a stale hint never lands on an edited line."""
    lines = doc.lines
    out: list[types.InlayHint] = []

    def same(line: int) -> bool:
        return current is None or (line <= len(current) and line <= len(lines)
                                   and current[line - 1] == lines[line - 1])

    for pa in doc.programs:
        sol = pa.solution
        if sol is None:
            continue
        for span in pa.functions:
            fn = span.function
            spaces = sol.spaces.get(fn.name)
            if not spaces:
                continue
            fv = pa.vars_of(fn, lines)
            for name, s in iter_defs(fv):
                space = spaces.get(name)
                if space is None or not _in(rng, s.line) or not same(s.line):
                    continue
                out.append(types.InlayHint(
                    position=position(lines, s.line, s.col + s.length),
                    label=f": {space}", kind=types.InlayHintKind.Type,
                    tooltip=f"tilemem: `{name}` is in {space} (hover it for why)"))
        for m in sol.moves:
            line = m.consumer_line
            if not line or not _in(rng, line) or not same(line):
                continue
            out.append(types.InlayHint(
                position=position(lines, line, statement_col(lines, line)),
                label=f"{m.name} = move({m.producer}, {m.target});", padding_right=True,
                tooltip=f"tilemem: the pass inserts a move of `{m.producer}` to {m.target} "
                        f"before this statement (`{m.name}`)"))
    out.sort(key=lambda h: (h.position.line, h.position.character))
    return out
