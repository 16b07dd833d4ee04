"""Why is this tile Acc?  Proof trees and why-not answers computed from the rules.

Everything here is generic over the rule files: a derived fact is explained by
finding a rule whose head unifies with it and whose body holds against the
materialised relations of a :class:`~tilemem.datalog.Database` (positive atoms
looked up, negations checked absent, comparisons and arithmetic evaluated),
recursively, down to the program's input facts and the rule files' own facts
(the op table).  A rule added to ``rules/`` is explainable without touching
Python; nothing in this module knows what any predicate means.

* :class:`Explainer` explains the facts of one Database: ``explain(pred, row)``
  gives a :class:`ProofNode` of minimal height (Soufflé's ``explain``),
  ``why_not(pred, args)`` a :class:`WhyNot` (Soufflé's ``explainnegation``: for
  each rule that could derive the fact, the first body literal that fails).
* :class:`Session` holds the (lazily built) Databases of one program: phases 0–3
  over the InCore functions, and phase 4 (residency) over the whole rewritten
  program when a backend is set, and answers questions about vars by name.

Minimal height.  A fact's height is 0 for an input or rule-file fact, else 1 + the
largest height among the premises of its best derivation.  Heights are computed
only for the facts the asked fact depends on: non-recursive predicates bottom-up
through the strata, and each recursive component by a Knuth/Dijkstra sweep over
the part of the component the fact reaches (every derivation of every reached
fact is enumerated, so the result is exact).  The best derivation of a fact only
uses premises of strictly smaller height, so trees never loop.

Source mapping.  Input facts carry the line of the statement they come from
(``Facts.origin``); statement positions in any fact (columns the rules pass
statement numbers through, found by following variables from the input
relations' ``pos``/``end`` columns) are shown with their source line.
"""
from __future__ import annotations

import heapq
import itertools
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence, Union

from tilemem.datalog import (
    Aggregate, Arith, Atom, Comparison, Const, Database, Negation, Rule, RuleSet, Var,
    format_value, parse_query,
)
from tilemem.datalog.engine import aggregate_value, value_key
from tilemem.resources import resource_dir

__all__ = [
    "ExplainError", "Explainer", "ProofNode", "WhyNot", "Candidate", "Session", "SourceMap",
    "format_fact",
]

Value = Union[int, str]
Fact = tuple  # (pred, row)

#: safety caps: derivations enumerated per fact, steps of one why-not search
MAX_DERIVATIONS = 512
MAX_SEARCH_STEPS = 50_000
#: the matches of a count or sum shown under it in a proof tree
MAX_AGGREGATE_MATCHES = 20


class ExplainError(Exception):
    """A question that cannot be answered (unknown var, fact that does not hold, ...)."""


def format_fact(pred: str, row: Sequence) -> str:
    """``pred("a", 1)`` in the rule language's syntax (pasteable into ``:why``)."""
    return f"{pred}({', '.join(_fmt_term(v) for v in row)})"


def _fmt_term(v) -> str:
    if isinstance(v, Var):
        return v.name
    if isinstance(v, Const):
        return format_value(v.value)
    if v is None:
        return "_"
    return format_value(v)


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def _lt(a, b) -> bool:
    if type(a) is type(b):
        return a < b
    return value_key(a) < value_key(b)


_CMP = {
    "=": _same,
    "!=": lambda a, b: not _same(a, b),
    "<": _lt,
    "<=": lambda a, b: not _lt(b, a),
    ">": lambda a, b: _lt(b, a),
    ">=": lambda a, b: not _lt(a, b),
}


def rule_file_name(file: Optional[str]) -> str:
    """Package rule files are shown as ``rules/<name>.dl``; user files relative to the
    working directory when they are below it, else as given."""
    import os
    from pathlib import Path
    if not file:
        return "<rules>"
    if file.startswith("<"):
        return file
    if "/" not in file and "\\" not in file:
        return f"rules/{file}" if _is_package_rule(file) else file
    p = Path(file)
    if _is_package_rule(p.name) and p.parent == _package_rules_dir():
        return f"rules/{p.name}"
    try:
        rel = os.path.relpath(file)
    except ValueError:
        return file
    return rel if not rel.startswith("..") else file


def _package_rules_dir():
    from pathlib import Path
    try:
        return Path(str(resource_dir("rules"))).resolve()
    except Exception:
        return None


def _is_package_rule(name: str) -> bool:
    d = _package_rules_dir()
    return d is not None and (d / name).is_file()


def short_doc(doc: str, limit: int = 110) -> str:
    """The first sentence of a comment block, on one line."""
    text = " ".join(line.strip() for line in doc.splitlines() if line.strip())
    if not text:
        return ""
    for m in re.finditer(r"(?<=\.)\s+(?=[A-Z(])", text):
        if not re.search(r"\b(e\.g|i\.e|etc|cf)\.$", text[: m.start()]):
            text = text[: m.start()]
            break
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


# ----------------------------------------------------------------------------- relations


class _Relations:
    """Materialised relations of one Database with on-demand hash indexes."""

    def __init__(self, db: Database):
        self.db = db
        self.rules: RuleSet = db.rules
        self._rows: dict[str, list[tuple]] = {}
        self._sets: dict[str, set] = {}
        self._idx: dict[tuple, dict] = {}

    def rows(self, pred: str) -> list[tuple]:
        rows = self._rows.get(pred)
        if rows is None:
            rows = self._rows[pred] = self.db.relation(pred)
        return rows

    def contains(self, pred: str, row: tuple) -> bool:
        s = self._sets.get(pred)
        if s is None:
            s = self._sets[pred] = {_key(r) for r in self.rows(pred)}
        return _key(row) in s

    def match(self, pred: str, pattern: Sequence) -> Sequence[tuple]:
        """Rows whose bound columns (non-None entries of ``pattern``) match."""
        bound = tuple(i for i, v in enumerate(pattern) if v is not None)
        if not bound:
            return self.rows(pred)
        if len(bound) == len(pattern):
            row = tuple(pattern)
            return (row,) if self.contains(pred, row) else ()
        idx = self._idx.get((pred, bound))
        if idx is None:
            idx = {}
            for r in self.rows(pred):
                idx.setdefault(_key(tuple(r[i] for i in bound)), []).append(r)
            self._idx[(pred, bound)] = idx
        return idx.get(_key(tuple(pattern[i] for i in bound)), ())


def _key(row: tuple) -> tuple:
    # ints and strs never compare equal, but 1 == True: rows only hold int and str
    return tuple((type(v) is str, v) for v in row)


# ----------------------------------------------------------------------------- source mapping


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
    return s


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
        """``{"path", "line", "text"}`` of an input fact, when its statement is known."""
        line = self.facts.origin.get((pred, tuple(row)))
        text = None
        if self.rewritten:
            for v, d in self.positions(pred, row):
                if not d.get("end") and self.facts.stmts.get(v) is not None:
                    text = self.stmt_text(v)
                    line = d["line"] if line is None else line
                    break
        if line is None:
            return None
        if text is None:
            text = self.line_text(line)
        return {"path": self.path, "line": line, "text": text}


def infer_position_columns(rules: RuleSet) -> dict[str, tuple[int, ...]]:
    """Which columns of each predicate hold statement positions.

    Input relations (and relations defined only by facts): the columns their
    ``.decl`` names ``pos`` or ``end``.  A derived predicate's column holds positions
    when every rule for it puts there a variable that some positive body atom takes
    from a position column (the greatest such assignment, so recursion is fine).
    """
    cols: dict[str, set[int]] = {}
    for name, info in rules.predicates.items():
        if info.is_derived and not info.facts:
            cols[name] = set(range(info.arity))
        elif info.columns:
            s = {i for i, c in enumerate(info.columns) if c in ("pos", "end")}
            if s:
                cols[name] = s
    changed = True
    while changed:
        changed = False
        for r in rules.rules:
            head_cols = cols.get(r.head.pred)
            if not head_cols:
                continue
            pos_vars = set()
            for lit in r.body:
                if isinstance(lit, Atom):
                    for i in cols.get(lit.pred, ()):
                        t = lit.args[i]
                        if isinstance(t, Var) and not t.is_anonymous:
                            pos_vars.add(t.name)
            for i in list(head_cols):
                t = r.head.args[i]
                if not (isinstance(t, Var) and t.name in pos_vars):
                    head_cols.discard(i)
                    changed = True
    return {k: tuple(sorted(v)) for k, v in cols.items() if v}


def _pos_note(positions: list[tuple[Value, dict]]) -> str:
    parts = []
    for v, d in positions:
        if d.get("end"):
            parts.append(f"{v}: end of line {d['line']}")
        else:
            parts.append(f"{v}: line {d['line']}")
    return f"  [{'; '.join(parts)}]" if parts else ""


# ----------------------------------------------------------------------------- proof trees


@dataclass
class ProofNode:
    """One step of a proof.

    ``kind``: ``"derived"`` (by ``rule``, from ``children``), ``"input"`` (a fact of
    the program, ``source`` gives its line), ``"rule_fact"`` (a fact written in a rule
    file, e.g. the op table; ``rule`` is that fact), ``"absent"`` (a negated premise:
    no such fact), ``"check"`` (a comparison or arithmetic that holds; ``text``),
    ``"aggregate"`` (an aggregate and its value, ``text``; ``children``: the facts of
    the matches that give the value).
    """
    kind: str
    pred: Optional[str] = None
    row: tuple = ()
    rule: Optional[Rule] = None
    children: list = field(default_factory=list)
    height: int = 0
    source: Optional[dict] = None
    positions: list = field(default_factory=list)
    text: str = ""
    pattern: tuple = ()                 # absent: the negated atom (None = '_')
    note: str = ""

    holds = True

    @property
    def fact(self) -> str:
        if self.kind in ("check", "aggregate"):
            return self.text
        if self.kind == "absent":
            return format_fact(self.pred, self.pattern)
        return format_fact(self.pred, self.row)

    # -- walking
    def walk(self) -> Iterable["ProofNode"]:
        """Every node, pre-order (shared subtrees are visited each time they occur)."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def leaves(self) -> list["ProofNode"]:
        seen: set[int] = set()
        out = []
        stack = [self]
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if n.children:
                stack.extend(reversed(n.children))
            else:
                out.append(n)
        return out

    # -- rendering
    def label(self) -> str:
        if self.kind in ("check", "aggregate"):
            return self.text
        if self.kind == "absent":
            return f"no {self.fact}  ({self.note or 'not derived'})"
        head = self.fact + _pos_note(self.positions) if self.kind == "derived" else self.fact
        if self.kind == "input":
            if self.source:
                where = f"{self.source['path']}:{self.source['line']}"
                return f"{head}    {where}: {self.source['text']}" if self.source.get("text") else f"{head}    {where}"
            return f"{head}    (program fact)"
        if self.kind == "rule_fact":
            return f"{head}    {_rule_loc(self.rule)}"
        doc = short_doc(_rule_doc(self.rule, self.rule_info_doc))
        where = _rule_loc(self.rule)
        return f"{head}    <- {where}" + (f"  {doc}" if doc else "")

    rule_info_doc: str = ""

    def render(self, max_depth: Optional[int] = None, ascii: bool = False, indent: str = "") -> str:
        """The indented text tree; a subtree shown earlier is not repeated."""
        tee, last, bar, gap = ("|- ", "`- ", "|  ", "   ") if ascii else ("├─ ", "└─ ", "│  ", "   ")
        lines = [indent + self.label()]
        shown: set[int] = {id(self)}
        # stack of (node, prefix, is_last, depth)
        stack = [(c, indent, i == len(self.children) - 1, 1)
                 for i, c in reversed(list(enumerate(self.children)))]
        while stack:
            node, prefix, is_last, depth = stack.pop()
            text = node.label()
            expand = bool(node.children)
            if expand and id(node) in shown:
                text += "  (shown above)"
                expand = False
            elif expand and max_depth is not None and depth >= max_depth:
                text += "  ..."
                expand = False
            lines.append(prefix + (last if is_last else tee) + text)
            if expand:
                shown.add(id(node))
                child_prefix = prefix + (gap if is_last else bar)
                for i, c in reversed(list(enumerate(node.children))):
                    stack.append((c, child_prefix, i == len(node.children) - 1, depth + 1))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()

    def to_dict(self) -> dict:
        """JSON-able tree.  A derived node has an ``id``; a later occurrence of the same
        subtree is ``{"fact": ..., "see": id}``."""
        ids: dict[int, int] = {}
        counter = itertools.count(1)

        def one(n: "ProofNode") -> dict:
            d: dict = {"kind": n.kind, "fact": n.fact}
            if n.kind in ("derived", "input", "rule_fact", "absent"):
                d["pred"] = n.pred
                d["args"] = list(n.row) if n.kind != "absent" else [None if v is None else v for v in n.pattern]
            if n.kind == "derived":
                d["height"] = n.height
                d["rule"] = _rule_dict(n.rule, n.rule_info_doc)
            if n.kind == "rule_fact":
                d["rule"] = _rule_dict(n.rule, "")
            if n.kind == "input":
                d["source"] = n.source
            if n.kind == "absent":
                d["negated"] = True
                d["reason"] = n.note or "not derived"
            if n.positions:
                d["positions"] = [{"value": v, **info} for v, info in n.positions]
            return d

        root = one(self)
        # iterative pre-order expansion: (node, its dict)
        stack = [(self, root)]
        while stack:
            node, d = stack.pop()
            if not node.children:
                continue
            if id(node) in ids:
                fact = d["fact"]
                d.clear()
                d.update(fact=fact, see=ids[id(node)])
                continue
            ids[id(node)] = d["id"] = next(counter)
            kids = [one(c) for c in node.children]
            d["children"] = kids
            stack.extend(reversed(list(zip(node.children, kids))))
        return root


def _rule_loc(rule: Optional[Rule]) -> str:
    if rule is None or rule.loc is None:
        return "<rules>"
    return f"{rule_file_name(rule.file)}:{rule.line}"


def _rule_doc(rule: Optional[Rule], fallback: str) -> str:
    if rule is not None and rule.doc:
        return rule.doc
    return fallback


def _rule_dict(rule: Optional[Rule], fallback_doc: str) -> Optional[dict]:
    if rule is None:
        return None
    return {"file": rule_file_name(rule.file), "line": rule.line, "head": rule.head.pred,
            "doc": _rule_doc(rule, fallback_doc), "text": rule.text or str(rule)}


# ----------------------------------------------------------------------------- evaluation


def _term_value(t, env: dict):
    """The value of a term under ``env``: a constant, a bound var, or None (free)."""
    if isinstance(t, Const):
        return t.value
    if t.is_anonymous:
        return None
    return env.get(t.name)


def _unify_row(atom: Atom, row: tuple, env: dict) -> Optional[dict]:
    """env extended so that atom matches row, or None."""
    new = env
    for t, v in zip(atom.args, row):
        if isinstance(t, Const):
            if not _same(t.value, v):
                return None
        elif t.is_anonymous:
            continue
        else:
            cur = new.get(t.name)
            if cur is None:
                if new is env:
                    new = dict(env)
                new[t.name] = v
            elif not _same(cur, v):
                return None
    return new if new is not env else dict(env)


def plan(body: Sequence, bound: Iterable[str], greedy: bool) -> list[int]:
    """An evaluation order (indices into ``body``) given the variables bound by the head.

    Non-atom literals run as soon as their variables are bound.  Positive atoms run
    in written order, or (``greedy``) the one with the most bound arguments first.
    """
    bound = set(bound)
    if not greedy:
        # written order; a literal that is not ready at its turn waits until it is
        order, waiting = [], []
        for i, lit in enumerate(body):
            if isinstance(lit, Atom) or lit.ready(bound):
                order.append(i)
                bound |= lit.names()
                progress = True
                while progress and waiting:
                    progress = False
                    for j in waiting:
                        if body[j].ready(bound):
                            waiting.remove(j)
                            order.append(j)
                            bound |= body[j].names()
                            progress = True
                            break
            else:
                waiting.append(i)
        return order + waiting
    todo = list(range(len(body)))
    order: list[int] = []
    while todo:
        pick = None
        for i in todo:
            lit = body[i]
            if not isinstance(lit, Atom) and lit.ready(bound):
                pick = i
                break
        if pick is None:
            atoms = [i for i in todo if isinstance(body[i], Atom)]
            if not atoms:               # unsafe leftovers (cannot happen for a valid RuleSet)
                pick = todo[0]
            elif greedy:
                def score(i):
                    a = body[i]
                    nb = sum(1 for t in a.args if isinstance(t, Const)
                             or (isinstance(t, Var) and not t.is_anonymous and t.name in bound))
                    return (-(nb == a.arity), -nb, i)
                pick = min(atoms, key=score)
            else:
                pick = atoms[0]
        todo.remove(pick)
        order.append(pick)
        bound |= body[pick].names()
    return order


@dataclass
class _Derivation:
    rule: Rule
    env: dict
    rows: dict          # body index -> matched row (positive atoms)

    def premises(self) -> list[Fact]:
        """The facts the instance rests on: the rows of its positive atoms, and the
        matches that give each aggregate its value (``rows[i]`` is a list of facts
        for an aggregate)."""
        out: list[Fact] = []
        for i, row in sorted(self.rows.items()):
            if isinstance(self.rule.body[i], Aggregate):
                out.extend(row)
            else:
                out.append((self.rule.body[i].pred, row))
        return out


class Explainer:
    """Proof trees and why-not answers over one :class:`Database`.

    ``source`` maps the Database's input facts to the program text (optional).
    The Database must stay open while the Explainer is used.
    """

    def __init__(self, db: Database, source: Optional[SourceMap] = None, label: str = ""):
        self.db = db
        self.rules: RuleSet = db.rules
        self.rel = _Relations(db)
        self.source = source
        self.label = label
        self._file_fact: dict[Fact, Rule] = {}
        for f in self.rules.facts:
            self._file_fact.setdefault((f.head.pred, tuple(t.value for t in f.head.args)), f)
        self._height: dict[Fact, int] = {}
        self._best: dict[Fact, Optional[_Derivation]] = {}
        self._derivs: dict[Fact, list[_Derivation]] = {}
        self._nodes: dict[Fact, ProofNode] = {}

    # ------------------------------------------------------------------ basics

    def predicate(self, pred: str):
        info = self.rules.predicates.get(pred)
        if info is None:
            raise ExplainError(f"unknown predicate '{pred}'")
        return info

    def holds(self, pred: str, row: Sequence) -> bool:
        self.predicate(pred)
        return self.rel.contains(pred, tuple(row))

    def _is_base(self, fact: Fact) -> bool:
        return not self.rules.predicates[fact[0]].is_derived or fact in self._file_fact

    # ------------------------------------------------------------------ derivations

    def _unifying(self, atom: Atom, env: dict):
        """(row, env extended by the row) for each row of ``atom`` that agrees with env."""
        pattern = [_term_value(t, env) for t in atom.args]
        for row in self.rel.match(atom.pred, pattern):
            e2 = _unify_row(atom, row, env)
            if e2 is not None:
                yield row, e2

    def _solve(self, body: Sequence, order: Sequence[int], env: dict, k: int, rows: dict):
        """Yield (env, rows) for every way the literals order[k:] hold."""
        if k == len(order):
            yield env, rows
            return
        i = order[k]
        lit = body[i]
        if isinstance(lit, Atom):
            for row, e2 in self._unifying(lit, env):
                r2 = dict(rows)
                r2[i] = row
                yield from self._solve(body, order, e2, k + 1, r2)
        elif isinstance(lit, Negation):
            if next(self._unifying(lit.atom, env), None) is None:
                yield from self._solve(body, order, env, k + 1, rows)
        elif isinstance(lit, Aggregate):
            got = self._aggregate(lit, env)
            if got is not None:
                e2, facts = got
                r2 = dict(rows)
                r2[i] = facts
                yield from self._solve(body, order, e2, k + 1, r2)
        else:
            e2 = self._check(lit, env)
            if e2 is not None:
                yield from self._solve(body, order, e2, k + 1, rows)

    def _aggregate(self, lit: Aggregate, env: dict) -> Optional[tuple[dict, list[Fact]]]:
        """(env with the aggregate's result, the facts of the matches that give the value),
        or None when the aggregate has no value or disagrees with a bound result.

        The value is that of :func:`~tilemem.datalog.engine.aggregate_value` over the
        distinct matches of the body under the group's bindings; the facts shown are the
        first match that attains a min or max, or (up to MAX_AGGREGATE_MATCHES) the
        matches a count or sum adds up."""
        genv = {g: env[g] for g in lit.group if g in env}
        order = plan(lit.body, genv.keys(), greedy=True)
        matches: dict[tuple, tuple] = {}           # distinct match -> (value, its facts)
        for e, rows in self._solve(lit.body, order, genv, 0, {}):
            facts = tuple((lit.body[i].pred, row) for i, row in sorted(rows.items()))
            if facts not in matches:
                value = (e.get(lit.target.name) if isinstance(lit.target, Var)
                         else lit.target.value if lit.target is not None else None)
                matches[facts] = value
        try:
            value = aggregate_value(lit.func, list(matches.values()))
        except TypeError:
            return None
        if value is None:
            return None
        if lit.func in ("min", "max"):
            shown = [next(f for f, v in matches.items() if _same(v, value))]
        else:
            shown = list(matches)[:MAX_AGGREGATE_MATCHES]
        current = _term_value(lit.result, env)
        if current is not None:
            if not _same(current, value):
                return None
            e2 = env
        else:
            e2 = {**env, lit.result.name: value}
        return e2, [f for facts in shown for f in facts]

    @staticmethod
    def _check(lit, env: dict) -> Optional[dict]:
        """env (possibly extended by '=') if the comparison/arithmetic holds, else None."""
        if isinstance(lit, Comparison):
            a, b = _term_value(lit.left, env), _term_value(lit.right, env)
            if lit.op == "=":
                if a is None and b is None:
                    return None
                if a is None:
                    return {**env, lit.left.name: b}
                if b is None:
                    return {**env, lit.right.name: a}
            if a is None or b is None:
                return None
            return env if _CMP[lit.op](a, b) else None
        a, b = _term_value(lit.left, env), _term_value(lit.right, env)
        if type(a) is not int or type(b) is not int:
            return None
        r = a + b if lit.op == "+" else a - b
        t = _term_value(lit.target, env)
        if t is None:
            return {**env, lit.target.name: r}
        return env if _same(t, r) else None

    def derivations(self, pred: str, row: tuple) -> list[_Derivation]:
        """Every (up to MAX_DERIVATIONS) rule instance that derives ``pred(row)``."""
        fact = (pred, tuple(row))
        got = self._derivs.get(fact)
        if got is not None:
            return got
        out: list[_Derivation] = []
        for rule in self.rules.predicates[pred].rules:
            env = _unify_row(rule.head, fact[1], {})
            if env is None:
                continue
            order = plan(rule.body, env.keys(), greedy=True)
            for e, rows in self._solve(rule.body, order, env, 0, {}):
                out.append(_Derivation(rule, e, rows))
                if len(out) >= MAX_DERIVATIONS:
                    break
            if len(out) >= MAX_DERIVATIONS:
                break
        self._derivs[fact] = out
        return out

    # ------------------------------------------------------------------ heights

    def height(self, pred: str, row: Sequence) -> int:
        fact = (pred, tuple(row))
        self._ensure(fact)
        return self._height[fact]

    def _ensure(self, root: Fact) -> None:
        stack = [root]
        closures: dict[Fact, tuple] = {}
        while stack:
            f = stack[-1]
            if f in self._height:
                stack.pop()
                continue
            if self._is_base(f):
                self._height[f] = 0
                self._best[f] = None
                stack.pop()
                continue
            info = self.rules.predicates[f[0]]
            if not info.recursive:
                derivs = self.derivations(*f)
                missing = list(dict.fromkeys(p for d in derivs for p in d.premises()
                                             if p not in self._height))
                if missing:
                    stack.extend(missing)
                    continue
                best, h = None, None
                for d in derivs:
                    hd = 1 + max((self._height[p] for p in d.premises()), default=0)
                    if h is None or hd < h:
                        best, h = d, hd
                if best is None:
                    raise ExplainError(f"internal: no derivation found for {format_fact(*f)}")
                self._height[f] = h
                self._best[f] = best
                stack.pop()
                continue
            cl = closures.get(f)
            if cl is None:
                cl = closures[f] = self._closure(f)
            members, lower = cl
            missing = [p for p in lower if p not in self._height]
            if missing:
                stack.extend(missing)
                continue
            self._sweep(members)
            stack.pop()

    def _closure(self, root: Fact):
        """The facts of root's recursive component that root depends on (with their
        derivations enumerated), and their premises in lower strata."""
        stratum = self.rules.predicates[root[0]].stratum
        members: list[Fact] = []
        seen = {root}
        lower: dict[Fact, None] = {}
        todo = [root]
        while todo:
            f = todo.pop()
            members.append(f)
            for d in self.derivations(*f):
                for p in d.premises():
                    if p in self._height or p in seen:
                        continue
                    pinfo = self.rules.predicates[p[0]]
                    if pinfo.stratum == stratum and not self._is_base(p):
                        seen.add(p)
                        todo.append(p)
                    else:
                        lower[p] = None
        return members, list(lower)

    def _sweep(self, members: list[Fact]) -> None:
        """Knuth's generalisation of Dijkstra: heights in a recursive component."""
        member_set = set(members)
        waiting: dict[int, int] = {}                  # derivation id -> unresolved premises
        users: dict[Fact, list[tuple[Fact, _Derivation, int]]] = {}
        heap: list = []
        tie = itertools.count()
        for f in members:
            for d in self.derivations(*f):
                inside = [p for p in set(d.premises()) if p in member_set]
                if inside:
                    waiting[id(d)] = len(inside)
                    for p in inside:
                        users.setdefault(p, []).append((f, d, 0))
                else:
                    h = 1 + max((self._height[p] for p in d.premises()), default=0)
                    heapq.heappush(heap, (h, next(tie), f, d))
        final: dict[Fact, int] = {}
        while heap:
            h, _, f, d = heapq.heappop(heap)
            if f in final:
                continue
            final[f] = h
            self._height[f] = h
            self._best[f] = d
            for g, dg, _ in users.get(f, ()):
                if g in final:
                    continue
                waiting[id(dg)] -= 1
                if waiting[id(dg)] == 0:
                    hg = 1 + max(self._height[p] for p in dg.premises())
                    heapq.heappush(heap, (hg, next(tie), g, dg))
        for f in members:
            if f not in final:
                raise ExplainError(f"internal: no well-founded derivation for {format_fact(*f)}")

    # ------------------------------------------------------------------ trees

    def explain(self, pred: str, row: Sequence) -> ProofNode:
        """The minimal-height proof tree of ``pred(row)`` (which must hold)."""
        row = tuple(row)
        self.predicate(pred)
        if not self.holds(pred, row):
            raise ExplainError(f"{format_fact(pred, row)} does not hold")
        root = (pred, row)
        self._ensure(root)
        # collect the facts of the tree, then build nodes from the leaves up
        order: list[Fact] = []
        seen = set()
        stack = [root]
        while stack:
            f = stack.pop()
            if f in seen or f in self._nodes:
                continue
            seen.add(f)
            order.append(f)
            best = self._best.get(f)
            if best is not None:
                for p in best.premises():
                    self._ensure(p)
                    stack.append(p)
        for f in sorted(order, key=lambda f: self._height[f]):
            self._nodes[f] = self._make_node(f)
        return self._nodes[root]

    def _make_node(self, f: Fact) -> ProofNode:
        pred, row = f
        positions = self.source.positions(pred, row) if self.source else []
        if f in self._file_fact:
            return ProofNode("rule_fact", pred, row, rule=self._file_fact[f], positions=positions)
        best = self._best.get(f)
        if best is None:
            src = self.source.origin(pred, row) if self.source else None
            return ProofNode("input", pred, row, source=src, positions=positions)
        children = []
        for i, lit in enumerate(best.rule.body):
            if isinstance(lit, Atom):
                children.append(self._nodes[(lit.pred, best.rows[i])])
            elif isinstance(lit, Negation):
                pattern = tuple(_term_value(t, best.env) for t in lit.atom.args)
                note = _absent_note(self.rules.predicates[lit.atom.pred])
                children.append(ProofNode("absent", lit.atom.pred, pattern=pattern, note=note,
                                          text=f"!{format_fact(lit.atom.pred, pattern)}"))
            elif isinstance(lit, Aggregate):
                children.append(ProofNode("aggregate", text=_instantiate(lit, best.env),
                                          children=[self._nodes[f] for f in best.rows[i]]))
            else:
                children.append(ProofNode("check", text=_instantiate(lit, best.env)))
        node = ProofNode("derived", pred, row, rule=best.rule, children=children,
                         height=self._height[f], positions=positions)
        node.rule_info_doc = self.rules.predicates[pred].doc
        return node

    def explain_pattern(self, atom: Atom, limit: int = 20) -> list[ProofNode]:
        """Proof trees of the facts matching a pattern (at most ``limit``)."""
        info = self.predicate(atom.pred)
        if info.arity != atom.arity:
            raise ExplainError(f"predicate '{atom.pred}' has arity {info.arity}, not {atom.arity}")
        pattern = [_term_value(t, {}) for t in atom.args]
        rows = [r for r in self.rel.match(atom.pred, pattern) if _unify_row(atom, r, {}) is not None]
        return [self.explain(atom.pred, r) for r in rows[:limit]]

    def matches(self, atom: Atom) -> list[tuple]:
        pattern = [_term_value(t, {}) for t in atom.args]
        return [r for r in self.rel.match(atom.pred, pattern) if _unify_row(atom, r, {}) is not None]

    # ------------------------------------------------------------------ why not

    def why_not(self, pred: str, args: Sequence, depth: int = 3) -> "WhyNot":
        """Why ``pred(args)`` does not hold (``args`` may hold None or Var for unknowns).

        For each rule whose head unifies, the first body literal (in written order,
        a test placed as soon as its variables are bound) that no binding satisfies.
        For a failing derived premise, recurse ``depth - 1`` more levels.
        """
        info = self.predicate(pred)
        if len(args) != info.arity:
            raise ExplainError(f"predicate '{pred}' has arity {info.arity}, not {len(args)}")
        terms = tuple(a if isinstance(a, (Var, Const)) else Var("_") if a is None else Const(a)
                      for a in args)
        atom = Atom(pred, terms)
        return self._why_not(atom, {}, depth)

    def _why_not(self, atom: Atom, env: dict, depth: int, top: bool = True) -> "WhyNot":
        pred = atom.pred
        info = self.rules.predicates[pred]
        pattern = tuple(_term_value(t, env) for t in atom.args)
        wn = WhyNot(pred=pred, pattern=pattern, explainer=self)
        matches = [r for r in self.rel.match(pred, pattern)
                   if _unify_row(_ground_atom(atom, env), r, {}) is not None]
        if matches:
            wn.holds = True
            wn.matches = [self.explain(pred, r) for r in matches[:5]]
            return wn
        wn.near = [self._near_node(pred, r) for r in self._near_misses(pred, pattern)]
        if not info.is_derived:
            wn.kind = "input" if info.is_input else "rule_fact"
            return wn
        wn.kind = "derived"
        ground = _ground_atom(atom, env)
        for rule in info.rules:
            renv = _unify_head(rule.head, ground)
            if renv is None:
                wn.other_rules += 1
                continue
            wn.candidates.append(self._candidate(rule, renv))
        # the rules that got furthest first (stable: file order among equals)
        wn.candidates.sort(key=lambda c: (-len(c.satisfied), not c.fails_on_derived(),
                                          not (c.near or c.blocking)))
        # recurse into the failing derived premise: of every rule at the top, of the
        # rule that got furthest below it (keeps the answer readable)
        for c in (wn.candidates if top else wn.candidates[:1]):
            lit = c.failed
            if depth > 1 and isinstance(lit, Atom) and self.rules.predicates[lit.pred].is_derived:
                c.sub = self._why_not(lit, c.env, depth - 1, top=False)
        return wn

    def _candidate(self, rule: Rule, env: dict) -> "Candidate":
        body = rule.body
        order = plan(body, env.keys(), greedy=False)
        best: dict = {"k": -1}
        steps = [0]

        def search(e: dict, k: int, trail: list):
            steps[0] += 1
            if steps[0] > MAX_SEARCH_STEPS:
                return
            if k > best["k"]:
                best.update(k=k, env=e, trail=list(trail))
            if k == len(order):
                return
            i = order[k]
            lit = body[i]
            if isinstance(lit, Atom):
                for row, e2 in self._unifying(lit, e):
                    trail.append((i, row))
                    search(e2, k + 1, trail)
                    trail.pop()
                    if best["k"] == len(order) or steps[0] > MAX_SEARCH_STEPS:
                        return
            elif isinstance(lit, Negation):
                if next(self._unifying(lit.atom, e), None) is None:
                    trail.append((i, None))
                    search(e, k + 1, trail)
                    trail.pop()
            elif isinstance(lit, Aggregate):
                got = self._aggregate(lit, e)
                if got is not None:
                    trail.append((i, got[1]))
                    search(got[0], k + 1, trail)
                    trail.pop()
            else:
                e2 = self._check(lit, e)
                if e2 is not None:
                    trail.append((i, None))
                    search(e2, k + 1, trail)
                    trail.pop()

        search(env, 0, [])
        cand = Candidate(rule=rule, head_env=env, explainer=self)
        e = best.get("env", env)
        cand.env = e
        for i, row in sorted(best.get("trail", []), key=lambda t: t[0]):
            lit = body[i]
            if isinstance(lit, Atom):
                cand.satisfied.append((lit, self._node_or_leaf(lit.pred, row)))
            elif isinstance(lit, Negation):
                pat = tuple(_term_value(t, e) for t in lit.atom.args)
                cand.satisfied.append((lit, ProofNode(
                    "absent", lit.atom.pred, pattern=pat,
                    note=_absent_note(self.rules.predicates[lit.atom.pred]))))
            elif isinstance(lit, Aggregate):
                cand.satisfied.append((lit, ProofNode(
                    "aggregate", text=_instantiate(lit, e),
                    children=[self._node_or_leaf(*f) for f in row])))
            else:
                cand.satisfied.append((lit, ProofNode("check", text=_instantiate(lit, e))))
        if best["k"] == len(order):
            cand.truncated = False
            cand.failed = None               # should not happen: the fact would hold
            return cand
        if steps[0] > MAX_SEARCH_STEPS:
            cand.truncated = True
        lit = body[order[best["k"]]]
        cand.failed = lit
        cand.failed_text = _instantiate(lit, e)
        if isinstance(lit, Atom):
            pat = tuple(_term_value(t, e) for t in lit.args)
            cand.near = [self._near_node(lit.pred, r) for r in self._near_misses(lit.pred, pat)]
        elif isinstance(lit, Negation):
            pat = [_term_value(t, e) for t in lit.atom.args]
            rows = [r for r in self.rel.match(lit.atom.pred, pat)
                    if _unify_row(lit.atom, r, e) is not None]
            cand.blocking = [self._node_or_leaf(lit.atom.pred, r) for r in rows[:3]]
        elif isinstance(lit, Aggregate):
            # the value the aggregate does have (min/max of nothing: none to show)
            free = Aggregate(Var("_R"), lit.func, lit.target, lit.body, lit.group, lit.loc)
            got = self._aggregate(free, e)
            if got is not None:
                value = got[0]["_R"]
                cand.blocking.append(ProofNode(
                    "aggregate", text=_instantiate(lit, {**e, **_names_of(lit.result, value)}),
                    children=[self._node_or_leaf(*f) for f in got[1]]))
        else:
            # a test that fails: show where its variables were bound
            vars_ = lit.names()
            for blit, node in cand.satisfied:
                if isinstance(blit, Atom) and vars_ & blit.names():
                    cand.blocking.append(node)
        return cand

    def _node_or_leaf(self, pred: str, row: tuple) -> ProofNode:
        return self.explain(pred, row)

    def _near_node(self, pred: str, row: tuple) -> ProofNode:
        return self.explain(pred, row)

    def _near_misses(self, pred: str, pattern: Sequence, limit: int = 3) -> list[tuple]:
        """Rows that agree with ``pattern`` on every bound column but one, trying the
        columns from the right (the first column, usually the subject, always agrees):
        e.g. the space a var does have, the value a kwarg does carry."""
        bound = [i for i, v in enumerate(pattern) if v is not None and i > 0]
        if pattern and pattern[0] is None:
            return []
        for i in reversed(bound):
            p = list(pattern)
            p[i] = None
            rows = list(self.rel.match(pred, p))[:limit]
            if rows:
                return rows
        return []


def _absent_note(info) -> str:
    if info.is_derived:
        return "not derived"
    if info.is_input:
        return "no such fact in the program"
    return "no such fact in the rule files"


def _ground_atom(atom: Atom, env: dict) -> Atom:
    args = []
    for t in atom.args:
        v = _term_value(t, env)
        args.append(Const(v) if v is not None else t)
    return Atom(atom.pred, tuple(args), atom.loc)


def _unify_head(head: Atom, target: Atom) -> Optional[dict]:
    """Bindings of head variables to the constants of target (its vars stay free)."""
    env: dict = {}
    for h, t in zip(head.args, target.args):
        if isinstance(t, Var):
            continue
        if isinstance(h, Const):
            if not _same(h.value, t.value):
                return None
        elif not h.is_anonymous:
            cur = env.get(h.name)
            if cur is None:
                env[h.name] = t.value
            elif not _same(cur, t.value):
                return None
    return env


def _names_of(term, value) -> dict:
    """{name: value} when term is a variable (a constant result shows as it is)."""
    return {term.name: value} if isinstance(term, Var) and not term.is_anonymous else {}


def _instantiate(lit, env: dict) -> str:
    def term(t):
        if isinstance(t, Const):
            return format_value(t.value)
        v = _term_value(t, env)
        return format_value(v) if v is not None else t.name
    if isinstance(lit, Atom):
        return f"{lit.pred}({', '.join(term(t) for t in lit.args)})"
    if isinstance(lit, Negation):
        return f"!{_instantiate(lit.atom, env)}"
    if isinstance(lit, Comparison):
        return f"{term(lit.left)} {lit.op} {term(lit.right)}"
    if isinstance(lit, Aggregate):
        # the group's values, the result's value; the aggregate's own variables stay
        inner = {g: env[g] for g in lit.group if g in env}
        value = f" {lit.target}" if lit.target is not None else ""
        body = ", ".join(_instantiate(b, inner) for b in lit.body)
        return f"{term(lit.result)} = {lit.func}{value} : {{ {body} }}"
    return f"{term(lit.target)} = {term(lit.left)} {lit.op} {term(lit.right)}"


# ----------------------------------------------------------------------------- why not


@dataclass
class Candidate:
    """One rule that could derive the asked fact, and where its body fails."""
    rule: Rule
    head_env: dict
    explainer: object = field(default=None, repr=False)
    env: dict = field(default_factory=dict)
    satisfied: list = field(default_factory=list)        # (literal, ProofNode)
    failed: object = None                                # the failing literal
    failed_text: str = ""
    near: list = field(default_factory=list)             # ProofNodes of near misses
    blocking: list = field(default_factory=list)         # negation: facts that hold; test: its sources
    sub: Optional["WhyNot"] = None
    truncated: bool = False

    def fails_on_derived(self) -> bool:
        lit = self.failed
        return isinstance(lit, Atom) and self.explainer.rules.predicates[lit.pred].is_derived

    def reason(self) -> str:
        lit = self.failed
        if lit is None:
            return "holds"
        if isinstance(lit, Atom):
            what = _absent_note(self.explainer.rules.predicates[lit.pred])
            return f"no {self.failed_text}  ({what})"
        if isinstance(lit, Negation):
            return f"{self.failed_text[1:]} holds, but the rule needs it absent"
        return f"{self.failed_text} is false"

    def to_dict(self) -> dict:
        return {
            "rule": _rule_dict(self.rule, self.explainer.rules.predicates[self.rule.head.pred].doc),
            "bindings": {k: v for k, v in sorted(self.env.items())},
            "satisfied": [n.to_dict() for _, n in self.satisfied],
            "failed": self.failed_text or None,
            "reason": self.reason(),
            "near_misses": [n.to_dict() for n in self.near],
            "blocking": [n.to_dict() for n in self.blocking],
            "why_not": self.sub.to_dict() if self.sub else None,
            "truncated": self.truncated,
        }


@dataclass
class WhyNot:
    """Why a fact (or pattern) does not hold.

    ``holds`` is True when it does after all (``matches`` holds proofs).  For an
    input relation, ``kind`` is ``"input"``: the program simply has no such fact.
    For a derived one, ``candidates`` lists each rule whose head unifies, with its
    first failing premise; ``other_rules`` counts rules whose head cannot match.
    ``near`` are facts that agree with the question on all bound columns but one
    (e.g. the space the var does have).
    """
    pred: str
    pattern: tuple
    explainer: object = field(default=None, repr=False)
    holds: bool = False
    kind: str = "derived"
    matches: list = field(default_factory=list)
    candidates: list = field(default_factory=list)
    near: list = field(default_factory=list)
    other_rules: int = 0

    @property
    def fact(self) -> str:
        return format_fact(self.pred, self.pattern)

    def to_dict(self) -> dict:
        return {
            "question": self.fact, "pred": self.pred, "args": list(self.pattern),
            "holds": self.holds, "kind": self.kind,
            "matches": [m.to_dict() for m in self.matches],
            "near_misses": [n.to_dict() for n in self.near],
            "candidates": [c.to_dict() for c in self.candidates],
            "other_rules": self.other_rules,
        }

    def render(self, max_depth: Optional[int] = 3, ascii: bool = False) -> str:
        out: list[str] = []
        self._render(out, "", max_depth, ascii, top=True)
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()

    def _render(self, out: list, ind: str, max_depth, ascii: bool, top: bool, near: bool = True):
        ok, bad = ("+", "x") if ascii else ("✓", "✗")
        if self.holds:
            out.append(f"{ind}{self.fact} holds:")
            for m in self.matches:
                out.append(m.render(max_depth, ascii, indent=ind + "  "))
            return
        if top:
            out.append(f"{ind}{self.fact} does not hold.")
        if self.near and near:
            out.append(f"{ind}  what holds instead:")
            for n in self.near:
                out.append(n.render(2 if max_depth is None else min(max_depth, 2), ascii,
                                    indent=ind + "    "))
        if self.kind == "input":
            out.append(f"{ind}  `{self.pred}` is an input relation: the program has no such fact.")
            return
        if self.kind == "rule_fact":
            out.append(f"{ind}  `{self.pred}` is only defined by facts in the rule files; none matches.")
            return
        if not self.candidates:
            out.append(f"{ind}  no rule for `{self.pred}` can produce these values"
                       f" ({self.other_rules} rule{'s' if self.other_rules != 1 else ''} derive other values).")
            return
        shown = self.candidates if top or len(self.candidates) <= 4 else self.candidates[:4]
        for c in shown:
            doc = short_doc(_rule_doc(c.rule, self.explainer.rules.predicates[c.rule.head.pred].doc))
            out.append(f"{ind}  rule {_rule_loc(c.rule)}: {c.rule}")
            if doc:
                out.append(f"{ind}    // {doc}")
            for lit, node in c.satisfied:
                label = node.label() if node.kind != "derived" else node.fact + _pos_note(node.positions)
                out.append(f"{ind}    {ok} {label}")
            out.append(f"{ind}    {bad} {c.reason()}" + ("  (search cut short)" if c.truncated else ""))
            if c.near:
                out.append(f"{ind}      but there is:")
                for n in c.near:
                    out.append(n.render(1 if not top else 2, ascii, indent=ind + "        "))
            if c.blocking:
                out.append(f"{ind}      because:" if isinstance(c.failed, Negation) else f"{ind}      where:")
                for n in c.blocking:
                    out.append(n.render(max_depth, ascii, indent=ind + "        "))
            if c.sub is not None and not c.sub.holds:
                out.append(f"{ind}      why not {c.sub.fact}:")
                c.sub._render(out, ind + "      ", max_depth, ascii, top=False,
                              near=not c.near)
        rest = len(self.candidates) - len(shown)
        if rest:
            out.append(f"{ind}  ... and {rest} more rule{'s' if rest != 1 else ''} that fail earlier")
        if self.other_rules and top:
            out.append(f"{ind}  ({self.other_rules} other rule{'s' if self.other_rules != 1 else ''} "
                       f"for `{self.pred}` derive only other values)")


# ----------------------------------------------------------------------------- sessions


class Session:
    """The Databases of one program, built on demand and kept until :meth:`close`.

    * phases 0–3: the rules over the facts of the InCore functions
      (``tilemem.facts.extract``);
    * phase 4 (only with a backend): the rules over the facts of the whole
      rewritten program (``tilemem.facts.extract_program``).
    """

    def __init__(self, program, backend: Optional[str] = None, extra_rules: Sequence[str] = (),
                 path: str = "<input>", text: Optional[str] = None):
        from tilemem.backends import normalize_backend
        self.program = program
        self.backend = normalize_backend(backend)
        self.extra_rules = tuple(extra_rules)
        self.path = path
        self.text = text
        self._derived = None
        self._db1 = None
        self._db2 = None
        self._x1: Optional[Explainer] = None
        self._x2: Optional[Explainer] = None
        self._facts2 = None
        self._moves = None
        self._rewritten = None

    # -- lifecycle
    def close(self) -> None:
        for db in (self._db1, self._db2):
            if db is not None:
                db.close()
        self._db1 = self._db2 = None
        self._x1 = self._x2 = None

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def rules(self) -> RuleSet:
        from tilemem.infer.solver import load_rules
        return load_rules(self.extra_rules)

    # -- databases
    def phase3(self) -> Explainer:
        """The Explainer of phases 0–3 (built on first use)."""
        if self._x1 is None:
            from tilemem.infer.solver import derive
            if self._db1 is None:
                self._derived, self._db1 = derive(self.program, self.backend, self.extra_rules,
                                                  keep_db=True)
            src = SourceMap(self._derived.facts, self.path, self.text, self._db1.rules)
            self._x1 = Explainer(self._db1, src, "phases 0-3")
        return self._x1

    @property
    def facts(self):
        self.phase3()
        return self._derived.facts

    def _emit(self):
        if self._rewritten is None:
            from tilemem.infer.emitter import Solution3, emit
            self.phase3()
            sol3 = Solution3.from_relations(self._derived.rel)
            self._rewritten, self._moves = emit(self.program, self._derived.facts, sol3)
        return self._rewritten, self._moves

    @property
    def moves(self):
        return self._emit()[1]

    def phase4(self) -> Optional[Explainer]:
        """The Explainer of phase 4 (residency), or None without a backend."""
        if self.backend is None:
            return None
        if self._x2 is None:
            from tilemem.facts.extract import extract_program
            from tilemem.infer.solver import load_rules
            out, _ = self._emit()
            facts = extract_program(out, self.backend)
            db = Database(load_rules(self.extra_rules))
            try:
                for pred, rows in facts.items():
                    if rows:
                        db.add_facts(pred, rows)
            except BaseException:
                db.close()
                raise
            self._db2, self._facts2 = db, facts
            src = SourceMap(facts, self.path, self.text, db.rules, rewritten=True)
            self._x2 = Explainer(db, src, "phase 4 (residency)")
        return self._x2

    def is_phase4(self, pred: str) -> bool:
        """Whether ``pred`` is computed from the whole-program (residency) facts."""
        import networkx as nx
        from tilemem.facts.extract import RESIDENCY_RELATIONS
        rules = self.rules
        if pred not in rules.predicates:
            return False
        deps = nx.ancestors(rules.graph, pred) | {pred}
        return bool(deps & set(RESIDENCY_RELATIONS))

    def explainer_for(self, pred: str) -> Explainer:
        if self.is_phase4(pred):
            x = self.phase4()
            if x is None:
                raise ExplainError(f"'{pred}' is a phase 4 (residency) relation: it is only "
                                   f"computed with a backend (--backend 910B or 950)")
            return x
        return self.phase3()

    # -- queries
    def query(self, pattern: Union[str, Atom]):
        """``(columns, rows)`` of a pattern over the relation's database."""
        atom = parse_query(pattern) if isinstance(pattern, str) else pattern
        if self.backend is None and self.is_phase4(atom.pred):
            # phase 4 does not run without a backend: its relations are empty
            return self.phase3().db.query_atom(Atom(atom.pred, atom.args, atom.loc))._replace(rows=[])
        x = self.explainer_for(atom.pred) if atom.pred in self.rules.predicates else self.phase3()
        return x.db.query_atom(atom)

    def why(self, pattern: Union[str, Atom], limit: int = 20):
        """Proofs of the facts matching a pattern; a WhyNot if none holds."""
        atom = parse_query(pattern) if isinstance(pattern, str) else pattern
        if atom.pred not in self.rules.predicates:
            raise ExplainError(f"unknown predicate '{atom.pred}'")
        x = self.explainer_for(atom.pred)
        trees = x.explain_pattern(atom, limit)
        if trees:
            return trees
        return x._why_not(atom, {}, 3)

    def why_not_fact(self, pattern: Union[str, Atom], depth: int = 3) -> WhyNot:
        atom = parse_query(pattern) if isinstance(pattern, str) else pattern
        if atom.pred not in self.rules.predicates:
            raise ExplainError(f"unknown predicate '{atom.pred}'")
        x = self.explainer_for(atom.pred)
        info = x.predicate(atom.pred)
        if info.arity != atom.arity:
            raise ExplainError(f"predicate '{atom.pred}' has arity {info.arity}, not {atom.arity}")
        return x._why_not(atom, {}, depth)

    # -- vars
    def resolve_var(self, var: str, function: Optional[str] = None) -> str:
        """The var id ``"<function>:<name>"`` of a tile var named by the user."""
        facts = self.facts
        known = facts.vars
        if ":" in var and function is None:
            function, var = var.split(":", 1)
        if function is not None:
            vid = f"{function}:{var}"
            if vid in known:
                return vid
            if not any(f == function for f, _ in known.values()):
                incore = sorted({f for f, _ in known.values()})
                raise ExplainError(f"no InCore function '{function}'"
                                   + (f" (InCore functions: {', '.join(incore)})" if incore else ""))
            raise ExplainError(f"no var '{var}' in function '{function}'" + _suggest(
                var, [n for f, n in known.values() if f == function]))
        hits = sorted(vid for vid, (f, n) in known.items() if n == var)
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            fns = ", ".join(h.split(":", 1)[0] for h in hits)
            raise ExplainError(f"var '{var}' exists in several InCore functions ({fns}); "
                               f"choose one with --function")
        raise ExplainError(f"no var '{var}' in any InCore function" + _suggest(
            var, [n for _, n in known.values()]))

    def move_of(self, name: str, function: Optional[str] = None):
        """The MoveRecord of an inserted move var, or None."""
        if ":" in name and function is None:
            function, name = name.split(":", 1)
        for m in self.moves:
            if m.name == name and (function is None or m.function == function):
                return m
        return None

    def explain_var(self, var: str, function: Optional[str] = None):
        """The proof of the var's ``space`` fact; if it has none, why not (a WhyNot)."""
        try:
            vid = self.resolve_var(var, function)
        except ExplainError:
            m = self.move_of(var, function)
            if m is None:
                raise
            return self.explain_move(m)
        x = self.phase3()
        rows = [r for r in x.rel.match("space", (vid, None))]
        if rows:
            return x.explain("space", rows[0])
        return x.why_not("space", (vid, None), depth=3)

    def explain_move(self, m):
        """The proof of the ``move_at`` fact that inserted move record ``m``."""
        x = self.phase3()
        vid = f"{m.function}:{m.producer}"
        rows = [r for r in x.rel.match("move_at", (None, vid, m.target))
                if m.consumer_line is None or x.source.stmt_line(r[0]) == m.consumer_line]
        if not rows:
            raise ExplainError(f"no move_at fact for the inserted move '{m.name}'")
        return x.explain("move_at", rows[0])

    def why_not_var(self, var: str, space: str, function: Optional[str] = None,
                    depth: int = 3) -> WhyNot:
        vid = self.resolve_var(var, function)
        return self.phase3().why_not("space", (vid, space), depth=depth)

    def explain_residency(self, var: str, function: Optional[str] = None) -> list[ProofNode]:
        """Proofs of the phase 4 verdicts (hoisted / declined) on the statement defining var."""
        x = self.phase4()
        if x is None:
            return []
        if ":" in var and function is None:
            function, var = var.split(":", 1)
        if function is None:
            try:
                vid = self.resolve_var(var, None)
            except ExplainError:
                names = sorted(v for v, (f, n) in (self._facts2.vars.items()) if n == var)
                if len(names) != 1:
                    return []
                vid = names[0]
        else:
            vid = f"{function}:{var}"
        out = []
        for pred in ("residency_hoisted", "residency_declined"):
            arity = x.predicate(pred).arity
            for r in x.rel.match(pred, (None, vid) + (None,) * (arity - 2)):
                out.append(x.explain(pred, r))
        return out


def _suggest(name: str, candidates: Iterable[str]) -> str:
    import difflib
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""
