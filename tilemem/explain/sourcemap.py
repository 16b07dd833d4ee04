"""Facts and statement positions back to the program text, and rule files by name.

Input facts carry the line of the statement they come from (``Facts.origin``);
statement positions in any fact (columns the rules pass statement numbers through,
found by following variables from the input relations' ``pos``/``end`` columns) are
shown with their source line.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Optional, Sequence, Union

from tilemem.datalog import Atom, RuleSet, Var
from tilemem.resources import resource_dir
from tilemem.errors import printable

Value = Union[int, str]


def rule_file_name(file: Optional[str]) -> str:
    """Package rule files are shown as ``rules/<name>.dl`` (``rules/<phase>/<name>.dl`` in a
    phase's folder); user files relative to the working directory when they are below it,
    else as given."""
    if not file:
        return "<rules>"
    if file.startswith("<"):
        return file
    if "/" not in file and "\\" not in file or not os.path.isabs(file) and _is_package_rule(file):
        return f"rules/{file}" if _is_package_rule(file) else file
    p = Path(file)
    d = _package_rules_dir()
    if d is not None and d in (p.parent, p.parent.parent) and \
            _is_package_rule(name := p.relative_to(d).as_posix()):
        return f"rules/{name}"          # (a phase folder's too: rules/p4_residency/loops.dl)
    try:
        rel = os.path.relpath(file)
    except ValueError:
        return file
    return rel if not rel.startswith("..") else file


@functools.lru_cache(maxsize=None)
def _package_rules_dir():
    """The package's rule folder (looked up once: answers name rule files by the thousand)."""
    try:
        return Path(str(resource_dir("rules"))).resolve()
    except Exception:
        return None


@functools.lru_cache(maxsize=1024)
def _is_package_rule(name: str) -> bool:
    d = _package_rules_dir()
    return d is not None and (d / name).is_file()


def compact_source(text: str, limit: int = 100) -> str:
    """A source line without its type annotation, shortened: ``y = pl.tile.load(...)``."""
    s = text.strip()
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*:\s*", s)
    if m and not s.startswith(("def ", "for ", "if ", "while ", "with ", "return", "elif ")):
        depth = 0
        i = m.end()
        while i < len(s):
            c = s[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == "=" and depth == 0 and s[i - 1] not in "=!<>" and s[i + 1: i + 2] != "=":
                s = f"{m.group(1)} = {s[i + 1:].strip()}"
                break
            i += 1
    if len(s) > limit:
        s = s[: limit - 3].rstrip() + "..."
    return printable(s)           # quoted on a terminal: no control character acts there


class SourceMap:
    """Maps facts and statement positions of one fact extraction back to the source."""

    def __init__(self, facts, path: str, text: Optional[str], rules: RuleSet,
                 rewritten: bool = False):
        self.facts = facts
        self.path = path
        self.lines = text.splitlines() if text is not None else None
        self.rewritten = rewritten
        self.end_of: dict[int, int] = {}
        for p, e in facts.rows.get("stmt_end", []):
            self.end_of[e] = p
        self.pos_columns = infer_position_columns(rules)

    def stmt_line(self, pos) -> Optional[int]:
        entry = self.facts.stmts.get(pos) if isinstance(pos, int) else None
        return getattr(entry[1], "line", None) if entry else None

    def line_text(self, line: Optional[int]) -> Optional[str]:
        if line is None or not self.lines or not (1 <= line <= len(self.lines)):
            return None
        return compact_source(self.lines[line - 1])

    def stmt_text(self, pos) -> Optional[str]:
        from tilemem import ir
        from tilemem.ir.printer import print_stmt
        entry = self.facts.stmts.get(pos) if isinstance(pos, int) else None
        if not entry:
            return None
        stmt = entry[1]
        text = print_stmt(stmt)
        if isinstance(stmt, (ir.For, ir.If, ir.While, ir.With)):
            text = text.split("\n")[0]
        else:
            text = text.strip().split("\n")[-1]
        return compact_source(text)

    def describe_pos(self, value) -> Optional[dict]:
        """``{"line": 9}`` for a statement, ``{"line": 7, "end": True}`` for a loop/branch end."""
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        if value in self.facts.stmts:
            line = self.stmt_line(value)
            return {"line": line} if line is not None else None
        if value in self.end_of:
            line = self.stmt_line(self.end_of[value])
            return {"line": line, "end": True} if line is not None else None
        return None

    def positions(self, pred: str, row: Sequence) -> list[tuple[Value, dict]]:
        cols = self.pos_columns.get(pred, ())
        out = []
        for i in cols:
            if i < len(row):
                d = self.describe_pos(row[i])
                if d is not None and all(v != row[i] for v, _ in out):
                    out.append((row[i], d))
        return out

    def origin(self, pred: str, row: tuple) -> Optional[dict]:
        """``{"path", "line", "text"}`` of an input fact, when its statement is known.

        The line is always a line of the user's input.  For the rewritten program
        (phase 4) the text is the rewritten statement the fact is about (a statement the
        pass inserted carries its consumer's line and says so), not whatever the input
        has at that line."""
        line = self.facts.origin.get((pred, tuple(row)))
        text = None
        if self.rewritten:
            pos = None
            for v, d in self.positions(pred, row):
                if not d.get("end") and self.facts.stmts.get(v) is not None:
                    pos = v
                    line = d["line"] if line is None else line
                    break
            if pos is None and line is not None:
                pos = self._statement_about(row, line)
            if pos is not None:
                text = self.stmt_text(pos)
                if text is not None and self._inserted(pos):
                    text = f"{text}  (inserted by the pass)"
        if line is None:
            return None
        if text is None:
            text = self.line_text(line)
        return {"path": self.path, "line": line, "text": text}

    def _statement_about(self, row: tuple, line: int) -> Optional[int]:
        """The statement at ``line`` that defines, else reads, a var of ``row``."""
        if not hasattr(self, "_at_line"):
            self._at_line: dict[int, list[int]] = {}
            for p in sorted(self.facts.stmts):
                ln = self.stmt_line(p)
                if ln is not None:
                    self._at_line.setdefault(ln, []).append(p)
            self._defs = {(p, v) for p, v in self.facts.rows.get("defines", [])}
            rows = self.facts.rows
            self._reads = {(p, v) for v, _, p, _ in rows.get("use", [])} | \
                {(p, v) for p, v in rows.get("attr_read", [])}
        here = self._at_line.get(line, [])
        vars_ = [v for v in row if isinstance(v, str) and v in self.facts.vars]
        for table in (self._defs, self._reads):
            for p in here:
                if any((p, v) in table for v in vars_):
                    return p
        return None

    def _inserted(self, pos: int) -> bool:
        """Whether the pass inserted the statement (a move: the input has no such line)."""
        entry = self.facts.stmts.get(pos)
        stmt = entry[1] if entry else None
        targets = getattr(stmt, "targets", None)
        if not targets or self.lines is None:
            return False
        line = self.stmt_line(pos)
        src = self.lines[line - 1] if line and 1 <= line <= len(self.lines) else ""
        return not re.search(r"(?<![\w.])" + re.escape(targets[0]) + r"\s*[:=]", src)


def infer_position_columns(rules: RuleSet) -> dict[str, tuple[int, ...]]:
    """Which columns of each predicate hold statement positions (see :func:`infer_columns`)."""
    return infer_columns(rules, ("pos", "end"))


_columns_cache: dict[tuple, tuple] = {}      # (id(rules), names) -> (rules, columns)


def infer_columns(rules: RuleSet, names: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Which columns of each predicate hold values of the kind the input relations'
    ``.decl`` columns ``names`` hold (statement positions: ``pos``/``end``; statement
    lists: ``list``; uses: ``use``; call sites: ``site``).

    Input relations (and relations defined only by facts): the columns so named. A
    derived predicate's column holds such values when every rule for it puts there a
    variable that some positive body atom takes from such a column (the greatest such
    assignment, so recursion is fine).
    """
    key = (id(rules), tuple(names))
    got = _columns_cache.get(key)
    if got is not None and got[0] is rules:
        return got[1]
    cols: dict[str, set[int]] = {}
    for name, info in rules.predicates.items():
        if info.is_derived and not info.facts:
            cols[name] = set(range(info.arity))
        elif info.columns:
            s = {i for i, c in enumerate(info.columns) if c in names}
            if s:
                cols[name] = s
    changed = True
    while changed:
        changed = False
        for r in rules.rules:
            head_cols = cols.get(r.head.pred)
            if not head_cols:
                continue
            kind_vars = set()
            for lit in r.body:
                if isinstance(lit, Atom):
                    for i in cols.get(lit.pred, ()):
                        t = lit.args[i]
                        if isinstance(t, Var) and not t.is_anonymous:
                            kind_vars.add(t.name)
            for i in list(head_cols):
                t = r.head.args[i]
                if not (isinstance(t, Var) and t.name in kind_vars):
                    head_cols.discard(i)
                    changed = True
    out = {k: tuple(sorted(v)) for k, v in cols.items() if v}
    if len(_columns_cache) > 32:
        _columns_cache.clear()
    _columns_cache[key] = (rules, out)
    return out
