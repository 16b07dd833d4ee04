"""Matching rule literals against facts: the bindings a term or row gives, a rule's head
against an asked fact, the order to search a body in, a literal written out with its
values.  Shared by the proof search (:mod:`~tilemem.explain.search`) and the why-not
search (:mod:`~tilemem.explain.whynot`)."""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from tilemem.datalog import Aggregate, Atom, Comparison, Const, Negation, Var, format_value
from tilemem.datalog.planning import order_body
from tilemem.datalog.syntax import same_value as _same


def term_value(t, env: dict):
    """The value of a term under ``env``: a constant, a bound var, or None (free)."""
    if isinstance(t, Const):
        return t.value
    if t.is_anonymous:
        return None
    return env.get(t.name)


def unify_row(atom: Atom, row: tuple, env: dict) -> Optional[dict]:
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
    """The order to search a body in, given the variables bound by the head: the most
    selective atom first (``greedy``, proofs), or as the rule is written (why-not)."""
    return order_body(body, bound, "selective" if greedy else "written")[0]


def ground_atom(atom: Atom, env: dict) -> Atom:
    args = []
    for t in atom.args:
        v = term_value(t, env)
        args.append(Const(v) if v is not None else t)
    return Atom(atom.pred, tuple(args), atom.loc)


def unify_head(head: Atom, target: Atom) -> Optional[dict]:
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


def names_of(term, value) -> dict:
    """{name: value} when term is a variable (a constant result shows as it is)."""
    return {term.name: value} if isinstance(term, Var) and not term.is_anonymous else {}


def instantiate(lit, env: dict) -> str:
    def term(t):
        if isinstance(t, Const):
            return format_value(t.value)
        v = term_value(t, env)
        return format_value(v) if v is not None else t.name
    if isinstance(lit, Atom):
        return f"{lit.pred}({', '.join(term(t) for t in lit.args)})"
    if isinstance(lit, Negation):
        return f"!{instantiate(lit.atom, env)}"
    if isinstance(lit, Comparison):
        return f"{term(lit.left)} {lit.op} {term(lit.right)}"
    if isinstance(lit, Aggregate):
        # the group's values, the result's value; the aggregate's own variables stay
        inner = {g: env[g] for g in lit.group if g in env}
        value = f" {lit.target}" if lit.target is not None else ""
        body = ", ".join(instantiate(b, inner) for b in lit.body)
        return f"{term(lit.result)} = {lit.func}{value} : {{ {body} }}"
    return f"{term(lit.target)} = {term(lit.left)} {lit.op} {term(lit.right)}"
