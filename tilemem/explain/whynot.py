"""Why does a fact not hold?  Soufflé's ``explainnegation`` over the rules.

:class:`WhyNotSearch` answers with a :class:`WhyNot`: for each rule that could
derive the fact, a :class:`Candidate` with the premises that hold and the first one
that fails (and why, recursively); facts that agree with the question on all but one
column are shown as near misses.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from tilemem.datalog import Aggregate, Atom, Const, Negation, Rule, Var
from tilemem.explain.nodes import (
    ExplainError, ProofNode, _rule_dict, _rule_doc, _rule_loc, absent_note, format_fact, pos_note,
    short_doc,
)
from tilemem.explain.unify import (
    ground_atom, instantiate, names_of, plan, term_value, unify_head, unify_row,
)

#: steps of one why-not search
MAX_SEARCH_STEPS = 50_000


class WhyNotSearch:
    """Why-not answers over one :class:`~tilemem.explain.search.Explainer`.

    For each rule whose head unifies with the asked fact, the first body literal (in
    written order, a test placed as soon as its variables are bound) that no binding
    satisfies; for a failing derived premise, the search recurses ``depth - 1`` more
    levels.
    """

    def __init__(self, explainer, functions: Optional[Iterable[str]] = None):
        self.x = explainer
        # an answer about a var of one function shows only the facts of the functions
        # around it (see tilemem.explain.scope): bindings from elsewhere are not tried
        self.functions = frozenset(functions) if functions is not None else None
        self.scope = explainer.scope if functions is not None else None

    def _admitted(self, pred: str, row) -> bool:
        return self.scope is None or self.scope.admits(pred, row, self.functions)

    def _unifying(self, atom: Atom, env: dict):
        for row, e2 in self.x.unifying(atom, env):
            if self._admitted(atom.pred, row):
                yield row, e2

    def why_not(self, pred: str, args: Sequence, depth: int = 3) -> "WhyNot":
        """Why ``pred(args)`` does not hold (``args`` may hold None or Var for unknowns).

        For each rule whose head unifies, the first body literal (in written order,
        a test placed as soon as its variables are bound) that no binding satisfies.
        For a failing derived premise, recurse ``depth - 1`` more levels.
        """
        info = self.x.predicate(pred)
        if len(args) != info.arity:
            raise ExplainError(f"predicate '{pred}' has arity {info.arity}, not {len(args)}")
        terms = tuple(a if isinstance(a, (Var, Const)) else Var("_") if a is None else Const(a)
                      for a in args)
        atom = Atom(pred, terms)
        return self.search(atom, {}, depth)

    def search(self, atom: Atom, env: dict, depth: int, top: bool = True) -> "WhyNot":
        pred = atom.pred
        info = self.x.rules.predicates[pred]
        pattern = tuple(term_value(t, env) for t in atom.args)
        wn = WhyNot(pred=pred, pattern=pattern, explainer=self.x)
        matches = [r for r in self.x.rel.match(pred, pattern)
                   if unify_row(ground_atom(atom, env), r, {}) is not None]
        if matches:
            wn.holds = True
            wn.matches = [self.x.explain(pred, r) for r in matches[:5]]
            return wn
        wn.near = [self._near_node(pred, r) for r in self._near_misses(pred, pattern)]
        if not info.is_derived:
            wn.kind = "input" if info.from_program else "rule_fact"
            return wn
        wn.kind = "derived"
        ground = ground_atom(atom, env)
        for rule in info.rules:
            renv = unify_head(rule.head, ground)
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
            if depth > 1 and isinstance(lit, Atom) and self.x.rules.predicates[lit.pred].is_derived:
                c.sub = self.search(lit, c.env, depth - 1, top=False)
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
                if next(self.x.unifying(lit.atom, e), None) is None:
                    trail.append((i, None))
                    search(e, k + 1, trail)
                    trail.pop()
            elif isinstance(lit, Aggregate):
                got = self.x.aggregate(lit, e)
                if got is not None:
                    trail.append((i, got[1]))
                    search(got[0], k + 1, trail)
                    trail.pop()
            else:
                e2 = self.x.check(lit, e)
                if e2 is not None:
                    trail.append((i, None))
                    search(e2, k + 1, trail)
                    trail.pop()

        search(env, 0, [])
        cand = Candidate(rule=rule, head_env=env, explainer=self.x)
        e = best.get("env", env)
        cand.env = e
        for i, row in sorted(best.get("trail", []), key=lambda t: t[0]):
            lit = body[i]
            if isinstance(lit, Atom):
                cand.satisfied.append((lit, self._node_or_leaf(lit.pred, row)))
            elif isinstance(lit, Negation):
                pat = tuple(term_value(t, e) for t in lit.atom.args)
                cand.satisfied.append((lit, ProofNode(
                    "absent", lit.atom.pred, pattern=pat,
                    note=absent_note(self.x.rules.predicates[lit.atom.pred]))))
            elif isinstance(lit, Aggregate):
                cand.satisfied.append((lit, ProofNode(
                    "aggregate", text=instantiate(lit, e),
                    children=[self._node_or_leaf(*f) for f in row])))
            else:
                cand.satisfied.append((lit, ProofNode("check", text=instantiate(lit, e))))
        if best["k"] == len(order):
            cand.truncated = False
            cand.failed = None               # should not happen: the fact would hold
            return cand
        if steps[0] > MAX_SEARCH_STEPS:
            cand.truncated = True
        lit = body[order[best["k"]]]
        cand.failed = lit
        cand.failed_text = instantiate(lit, e)
        if isinstance(lit, Atom):
            pat = tuple(term_value(t, e) for t in lit.args)
            cand.near = [self._near_node(lit.pred, r) for r in self._near_misses(lit.pred, pat)]
        elif isinstance(lit, Negation):
            pat = [term_value(t, e) for t in lit.atom.args]
            rows = [r for r in self.x.rel.match(lit.atom.pred, pat)
                    if unify_row(lit.atom, r, e) is not None and self._admitted(lit.atom.pred, r)]
            cand.blocking = [self._node_or_leaf(lit.atom.pred, r) for r in rows[:3]]
        elif isinstance(lit, Aggregate):
            # the value the aggregate does have (min/max of nothing: none to show)
            free = Aggregate(Var("_R"), lit.func, lit.target, lit.body, lit.group, lit.loc)
            got = self.x.aggregate(free, e)
            if got is not None:
                value = got[0]["_R"]
                cand.blocking.append(ProofNode(
                    "aggregate", text=instantiate(lit, {**e, **names_of(lit.result, value)}),
                    children=[self._node_or_leaf(*f) for f in got[1]]))
        else:
            # a test that fails: show where its variables were bound
            vars_ = lit.names()
            for blit, node in cand.satisfied:
                if isinstance(blit, Atom) and vars_ & blit.names():
                    cand.blocking.append(node)
        return cand

    def _node_or_leaf(self, pred: str, row: tuple) -> ProofNode:
        return self.x.explain(pred, row)

    def _near_node(self, pred: str, row: tuple) -> ProofNode:
        return self.x.explain(pred, row)

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
            rows = [r for r in self.x.rel.match(pred, p) if self._admitted(pred, r)][:limit]
            if rows:
                return rows
        return []


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
            what = absent_note(self.explainer.rules.predicates[lit.pred])
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
                label = node.label() if node.kind != "derived" else node.fact + pos_note(node.positions)
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
