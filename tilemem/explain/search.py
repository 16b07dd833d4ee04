"""Proof search: the minimal-height proof tree of a fact that holds.

Everything here is generic over the rule files: a derived fact is explained by
finding a rule whose head unifies with it and whose body holds against the
materialised relations of a :class:`~tilemem.datalog.Database` (positive atoms
looked up, negations checked absent, comparisons, arithmetic and aggregates
evaluated), recursively, down to the program's input facts and the rule files' own
facts (the op table).  A rule added to ``rules/`` is explainable without touching
Python; nothing in this module knows what any predicate means.

:class:`Explainer` explains the facts of one Database: ``explain(pred, row)`` gives a
:class:`~tilemem.explain.nodes.ProofNode` of minimal height (Soufflé's ``explain``);
``why_not`` hands over to :mod:`tilemem.explain.whynot`.

Minimal height.  A fact's height is 0 for an input or rule-file fact, else 1 + the
largest height among the premises of its best derivation.  Heights are computed
only for the facts the asked fact depends on: non-recursive predicates bottom-up
through the strata, and each recursive component by a Knuth/Dijkstra sweep over
the part of the component the fact reaches (every derivation of every reached
fact is enumerated, so the result is exact).  The best derivation of a fact only
uses premises of strictly smaller height, so trees never loop.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Optional, Sequence, Union

from tilemem.datalog import (
    Aggregate, Atom, Comparison, Database, Negation, Rule, RuleSet, Var,
)
from tilemem.datalog.engine import aggregate_value
from tilemem.datalog.syntax import COMPARE, arith_value, same_value
from tilemem.explain.nodes import ExplainError, ProofNode, absent_note, format_fact
from tilemem.explain.sourcemap import SourceMap
from tilemem.explain.unify import instantiate, plan, term_value, unify_row

if TYPE_CHECKING:
    from tilemem.explain.whynot import WhyNot

Value = Union[int, str]
Fact = tuple  # (pred, row)

#: safety caps: derivations enumerated per fact
MAX_DERIVATIONS = 512
#: the matches of a count or sum shown under it in a proof tree
MAX_AGGREGATE_MATCHES = 20


_same = same_value
_CMP = COMPARE


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
        self._scope = None

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

    def unifying(self, atom: Atom, env: dict):
        """(row, env extended by the row) for each row of ``atom`` that agrees with env."""
        pattern = [term_value(t, env) for t in atom.args]
        for row in self.rel.match(atom.pred, pattern):
            e2 = unify_row(atom, row, env)
            if e2 is not None:
                yield row, e2

    def solutions(self, body: Sequence) -> Iterable[dict]:
        """Every binding of the variables of a rule body (a conjunction typed by a user)
        under which it holds."""
        for env, _ in self._solve(body, plan(body, (), greedy=True), {}, 0, {}):
            yield env

    def _solve(self, body: Sequence, order: Sequence[int], env: dict, k: int, rows: dict):
        """Yield (env, rows) for every way the literals order[k:] hold."""
        if k == len(order):
            yield env, rows
            return
        i = order[k]
        lit = body[i]
        if isinstance(lit, Atom):
            for row, e2 in self.unifying(lit, env):
                r2 = dict(rows)
                r2[i] = row
                yield from self._solve(body, order, e2, k + 1, r2)
        elif isinstance(lit, Negation):
            if next(self.unifying(lit.atom, env), None) is None:
                yield from self._solve(body, order, env, k + 1, rows)
        elif isinstance(lit, Aggregate):
            got = self.aggregate(lit, env)
            if got is not None:
                e2, facts = got
                r2 = dict(rows)
                r2[i] = facts
                yield from self._solve(body, order, e2, k + 1, r2)
        else:
            e2 = self.check(lit, env)
            if e2 is not None:
                yield from self._solve(body, order, e2, k + 1, rows)

    def aggregate(self, lit: Aggregate, env: dict) -> Optional[tuple[dict, list[Fact]]]:
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
        current = term_value(lit.result, env)
        if current is not None:
            if not _same(current, value):
                return None
            e2 = env
        else:
            e2 = {**env, lit.result.name: value}
        return e2, [f for facts in shown for f in facts]

    @staticmethod
    def check(lit, env: dict) -> Optional[dict]:
        """env (possibly extended by '=') if the comparison/arithmetic holds, else None."""
        if isinstance(lit, Comparison):
            a, b = term_value(lit.left, env), term_value(lit.right, env)
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
        a, b = term_value(lit.left, env), term_value(lit.right, env)
        if type(a) is not int or type(b) is not int:
            return None
        r = arith_value(lit.op, a, b)
        if r is None:
            return None
        t = term_value(lit.target, env)
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
            env = unify_row(rule.head, fact[1], {})
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
                pattern = tuple(term_value(t, best.env) for t in lit.atom.args)
                note = absent_note(self.rules.predicates[lit.atom.pred])
                children.append(ProofNode("absent", lit.atom.pred, pattern=pattern, note=note,
                                          text=f"!{format_fact(lit.atom.pred, pattern)}"))
            elif isinstance(lit, Aggregate):
                children.append(ProofNode("aggregate", text=instantiate(lit, best.env),
                                          children=[self._nodes[f] for f in best.rows[i]]))
            else:
                children.append(ProofNode("check", text=instantiate(lit, best.env)))
        node = ProofNode("derived", pred, row, rule=best.rule, children=children,
                         height=self._height[f], positions=positions)
        node.rule_info_doc = self.rules.predicates[pred].doc
        return node

    def explain_pattern(self, atom: Atom, limit: int = 20) -> list[ProofNode]:
        """Proof trees of the facts matching a pattern (at most ``limit``)."""
        info = self.predicate(atom.pred)
        if info.arity != atom.arity:
            raise ExplainError(f"predicate '{atom.pred}' has arity {info.arity}, not {atom.arity}")
        pattern = [term_value(t, {}) for t in atom.args]
        rows = [r for r in self.rel.match(atom.pred, pattern) if unify_row(atom, r, {}) is not None]
        return [self.explain(atom.pred, r) for r in rows[:limit]]

    def matches(self, atom: Atom) -> list[tuple]:
        pattern = [term_value(t, {}) for t in atom.args]
        return [r for r in self.rel.match(atom.pred, pattern) if unify_row(atom, r, {}) is not None]

    # ------------------------------------------------------------------ why not

    def why_not(self, pred: str, args: Sequence, depth: int = 3,
                functions: Optional[Iterable[str]] = None) -> "WhyNot":
        """Why ``pred(args)`` does not hold (``args`` may hold None or Var for unknowns):
        see :class:`tilemem.explain.whynot.WhyNotSearch`.  ``functions``: show only facts
        of these functions (an answer about one function's var)."""
        from tilemem.explain.whynot import WhyNotSearch
        return WhyNotSearch(self, functions).why_not(pred, args, depth)

    def why_not_atom(self, atom: Atom, depth: int = 3,
                     functions: Optional[Iterable[str]] = None) -> "WhyNot":
        """Why no fact matches ``atom`` (a pattern of the rule language)."""
        from tilemem.explain.whynot import WhyNotSearch
        return WhyNotSearch(self, functions).search(atom, {}, depth)

    @property
    def scope(self):
        """The functions of this database's facts (:class:`tilemem.explain.scope.Scope`)."""
        if self._scope is None:
            from tilemem.explain.scope import Scope
            self._scope = Scope(self.source.facts, self.rules)
        return self._scope
