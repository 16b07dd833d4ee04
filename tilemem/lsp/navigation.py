"""Go to definition, find references (a var's sites within its function), and the
document's symbols (programs and their functions)."""
from __future__ import annotations

from typing import Optional

from lsprotocol import types

from tilemem.lsp.analysis import READINGS, DocumentAnalysis
from tilemem.lsp.hover import var_at
from tilemem.lsp.positions import span_range


def _locations(doc: DocumentAnalysis, uri: str, spans) -> list[types.Location]:
    return [types.Location(uri=uri, range=span_range(doc.lines, s.line, s.col, s.length))
            for s in spans]


def definition(doc: DocumentAnalysis, lines: list[str], pos: types.Position,
               uri: str) -> Optional[list[types.Location]]:
    found = var_at(doc, lines, pos)
    if found is None:
        return None
    return _locations(doc, uri, found.vars.defs.get(found.name, [])[:1]) or None


def references(doc: DocumentAnalysis, lines: list[str], pos: types.Position, uri: str,
               include_declaration: bool = True) -> Optional[list[types.Location]]:
    found = var_at(doc, lines, pos)
    if found is None:
        return None
    fv, name = found.vars, found.name
    spans = fv.occurrences(name)
    if not include_declaration:
        defs = set(fv.defs.get(name, ()))
        spans = [s for s in spans if s not in defs]
    return _locations(doc, uri, spans)


def _line_range(doc: DocumentAnalysis, first: int, last: int) -> types.Range:
    last = min(max(last, first), max(len(doc.lines), 1))
    end_text = doc.lines[last - 1] if doc.lines else ""
    return types.Range(start=types.Position(line=first - 1, character=0),
                       end=types.Position(line=last - 1, character=len(end_text)))


def document_symbols(doc: DocumentAnalysis) -> list[types.DocumentSymbol]:
    """A symbol per program (its reading and state as detail) holding one per function
    (its function type)."""
    out = []
    for pa in doc.programs:
        if pa.source is None:
            continue
        children = []
        for span in pa.functions:
            fn = span.function
            rng = _line_range(doc, span.first_line, span.last_line)
            sel = span_range(doc.lines, fn.line, fn.col, None)
            name_at = doc.lines[fn.line - 1].find(fn.name) if fn.line <= len(doc.lines) else -1
            if name_at >= 0:
                sel = span_range(doc.lines, fn.line, name_at + 1, len(fn.name))
            children.append(types.DocumentSymbol(
                name=fn.name, kind=types.SymbolKind.Function, range=rng,
                selection_range=sel, detail=fn.func_type if isinstance(fn.func_type, str) else ""))
        state = "solved" if pa.solution is not None else "not solved"
        rng = _line_range(doc, pa.first_line, pa.last_line)
        out.append(types.DocumentSymbol(
            name=pa.name, kind=types.SymbolKind.Class, range=rng,
            selection_range=types.Range(start=rng.start, end=rng.start),
            detail=f"{READINGS.get(doc.reading or '', '')}, {state}", children=children))
    return out
