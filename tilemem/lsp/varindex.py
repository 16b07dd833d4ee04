"""Where each var of a function is defined and used, as source spans.

The IR names a function's vars by name (a reassigned DSL name is one var of the facts),
so a var is ``(function, name)``.  Definitions are the parameters, assignment and yield
targets, loop vars and iter-args; uses are the ``Name`` nodes of the statements' own
expressions (each carries its position).  Targets carry no position of their own: the
name is looked up in its statement's line, from the statement's column.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Optional

from tilemem import ir
from tilemem.ir.nodes import subexpressions
from tilemem.ir.walk import own_exprs, statements

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Span:
    """A name in the source: 1-based line and column, its length in characters."""
    line: int
    col: int
    length: int


@dataclass
class FunctionVars:
    """The vars of one function: their definition sites and use sites, in source order."""
    function: str
    defs: dict[str, list[Span]] = field(default_factory=dict)
    uses: dict[str, list[Span]] = field(default_factory=dict)

    def occurrences(self, name: str) -> list[Span]:
        """Every definition and use of ``name``, in source order, each once."""
        spans = set(self.defs.get(name, ())) | set(self.uses.get(name, ()))
        return sorted(spans, key=lambda s: (s.line, s.col))

    _by_line: Optional[dict[int, list[tuple[Span, str]]]] = None

    def at(self, line: int, col: int) -> Optional[str]:
        """The var whose definition or use covers ``line:col`` (1-based)."""
        if self._by_line is None:          # built on the first question (a hover)
            self._by_line = {}
            for table in (self.defs, self.uses):
                for name, spans in table.items():
                    for s in spans:
                        self._by_line.setdefault(s.line, []).append((s, name))
        for s, name in self._by_line.get(line, ()):
            if s.col <= col < s.col + s.length:
                return name
        return None


def _find_name(lines: list[str], line: Optional[int], col: Optional[int], name: str) -> Optional[Span]:
    """``name`` as a whole word on ``line``, at or after ``col``."""
    if not line or line > len(lines):
        return None
    text = lines[line - 1]
    start = max((col or 1) - 1, 0)
    for m in _WORD.finditer(text, start):
        if m.group(0) == name:
            return Span(line, m.start() + 1, len(name))
    return None


def _targets(s: ir.Stmt) -> list[str]:
    if isinstance(s, (ir.Assign, ir.Yield)):
        return list(s.targets)
    if isinstance(s, ir.For):
        return ([s.loop_var] if s.loop_var else []) + list(s.iter_args or ())
    return []


def index_function(fn: ir.Function, lines: list[str]) -> FunctionVars:
    """The var index of ``fn`` (``lines``: the text it was read from)."""
    out = FunctionVars(fn.name)

    def add(table: dict, name: str, span: Optional[Span]) -> None:
        if span is not None:
            table.setdefault(name, []).append(span)

    for p in fn.params:
        add(out.defs, p.name, _find_name(lines, p.line, p.col, p.name))
    for s, _ in statements(fn.body):
        for t in _targets(s):
            add(out.defs, t, _find_name(lines, s.line, s.col, t))
        for e in own_exprs(s):
            for x in subexpressions(e):
                if isinstance(x, ir.Name) and x.line and x.col:
                    add(out.uses, x.id, Span(x.line, x.col, len(x.id)))
    return out


def word_at(text_line: str, col0: int) -> Optional[tuple[str, int]]:
    """The identifier under a 0-based column of a line, and its 0-based start."""
    for m in _WORD.finditer(text_line):
        if m.start() <= col0 <= m.end():
            return m.group(0), m.start()
    return None


def statement_col(lines: list[str], line: int) -> int:
    """The 1-based column where the statement on ``line`` starts (its first non-blank)."""
    if not 1 <= line <= len(lines):
        return 1
    text = lines[line - 1]
    return len(text) - len(text.lstrip()) + 1


def iter_defs(fv: FunctionVars) -> Iterator[tuple[str, Span]]:
    """Every definition site of the function, in source order."""
    pairs = [(name, s) for name, spans in fv.defs.items() for s in spans]
    return iter(sorted(pairs, key=lambda p: (p[1].line, p[1].col)))
