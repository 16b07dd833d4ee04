"""The pass's own reason for a step of a proof, in its words.

A rule that can decide a value (a tile's space, a move's target) says why in its
comment, on a line of its own that starts ``because:``::

    // Rule table step 3: a fixed output space (matmul -> Acc, elementwise -> Vec).
    // because: `{Op}` always produces its result in {S}
    space_written(V, P, S) :- tile_def(P, Op, V), op_output_fixed(Op, S).

The text is a template over the derivation that used the rule:

* ``{Name}`` (a rule variable) is its value in this step, for people: a var by name, a
  statement position as ``line N``; a variable the rule does not bind is looked up in
  the premises below it, nearest first (``{Op}`` of the consumer whose demand a
  producer honours sits two steps down);
* ``{pred}`` (a relation) is the reason of the nearest premise of that relation, itself
  instantiated (``{pred#2}``: the second such premise, e.g. a branch's else arm).  That
  premise's reason is then said here, not again as a step of its own.

A rule without a ``because:`` line is structure (which site is the last, that a var is
a tile): the answer looks further down the proof for the reason.
"""
from __future__ import annotations

import re
from typing import Optional

from tilemem.datalog import Atom, Rule, Var

_BECAUSE = re.compile(r"^\s*because:\s*(.*)$", re.M)
_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:#(\d+))?\}")
#: how far below a step its reason looks for a variable it does not bind
MAX_LOOKUP_DEPTH = 4


def because_of(rule: Optional[Rule]) -> Optional[str]:
    """The ``because:`` template of a rule's comment, or None (a structural rule).
    A template may continue on the comment lines after its first."""
    if rule is None or not rule.doc:
        return None
    m = _BECAUSE.search(rule.doc)
    if m is None:
        return None
    rest = rule.doc[m.end():].splitlines()
    more = []
    for line in rest:
        if not line.strip():
            break
        more.append(line.strip())
    return " ".join([m.group(1).strip(), *more]).strip()


def without_because(doc: str) -> str:
    """A rule comment without its ``because:`` template (what a proof tree shows)."""
    m = _BECAUSE.search(doc or "")
    return doc if m is None else doc[:m.start()].rstrip()


class Reason:
    """One step's reason in words: ``text``; ``used``: the proof nodes whose reasons it
    said (its own and those of the premises it named); ``missing``: the template slots
    nothing in the proof filled (a bug of the rule's comment: tests look for them)."""

    def __init__(self, text: str, used: set, missing: list):
        self.text, self.used, self.missing = text, used, missing


def bindings(node) -> dict:
    """The values of a derived node's rule variables, name -> (pred, column, value, node):
    the head's from its row, the body's from the rows of its positive premises."""
    env: dict = {}
    if node.kind != "derived" or node.rule is None:
        return env
    pairs = [(node.rule.head, node)]
    pairs += [(lit, child) for lit, child in zip(node.rule.body, node.children)
              if isinstance(lit, Atom) and child.kind in ("derived", "input", "rule_fact")]
    for atom, n in pairs:
        for i, (t, v) in enumerate(zip(atom.args, n.row)):
            if isinstance(t, Var) and not t.is_anonymous:
                env.setdefault(t.name, (atom.pred, i, v, n))
    return env


def _below(node):
    """The proof nodes under ``node``, nearest first (breadth first, each once)."""
    seen = {id(node)}
    level = [node]
    for _ in range(MAX_LOOKUP_DEPTH):
        nxt = []
        for n in level:
            for c in n.children:
                if id(c) not in seen:
                    seen.add(id(c))
                    nxt.append(c)
                    yield c
        level = nxt


def reason(node, names, swap: Optional[dict] = None) -> Optional[Reason]:
    """The reason of a derived proof node, or None when its rule carries none.
    ``swap`` (value -> value) says it of other values: what a rule that decided Vec
    would need to decide Mat (``{"Vec": "Mat"}``, for ``why --not``)."""
    template = because_of(node.rule) if node.kind == "derived" else None
    if template is None:
        return None
    used = {id(node)}
    missing: list = []
    own = bindings(node)
    lookup: dict = {}

    def variable(name: str):
        if name in own:
            return own[name]
        if not lookup:
            for n in _below(node):
                for k, v in bindings(n).items():
                    lookup.setdefault(k, v)
                lookup.setdefault("", None)
        return lookup.get(name)

    def premise(pred: str, nth: int):
        k = 0
        for n in _below(node):
            if n.kind == "derived" and n.pred == pred:
                k += 1
                if k == nth:
                    return n
        return None

    def fill(m: "re.Match") -> str:
        name, nth = m.group(1), int(m.group(2) or 1)
        if name[0].isupper():
            hit = variable(name)
            if hit is None:
                missing.append(name)
                return "?"
            pred, col, value = hit[:3]
            if swap and isinstance(value, str):
                value = swap.get(value, value)
            return names.value(pred, col, value)
        sub = premise(name, nth)
        inner = reason(sub, names, swap) if sub is not None else None
        if inner is None:
            missing.append(m.group(0)[1:-1])
            return "?"
        used.update(inner.used)
        missing.extend(inner.missing)
        return inner.text
    text = _SLOT.sub(fill, template)
    return Reason(text, used, missing)


def rule_reason(rule: Optional[Rule], env: dict, names) -> Optional[str]:
    """The reason a rule would give with its variables bound as in ``env`` (raw values:
    a rule that did not fire, in a why-not), or None when it carries none or ``env``
    leaves one of its slots unfilled."""
    template = because_of(rule)
    if template is None:
        return None
    where: dict = {}
    for atom in [rule.head, *(lit for lit in rule.body if isinstance(lit, Atom))]:
        for i, t in enumerate(atom.args):
            if isinstance(t, Var) and not t.is_anonymous:
                where.setdefault(t.name, (atom.pred, i))
    missing = []

    def fill(m: "re.Match") -> str:
        name = m.group(1)
        if name[0].isupper() and name in env and name in where:
            pred, col = where[name]
            return names.value(pred, col, env[name])
        missing.append(name)
        return "?"
    text = _SLOT.sub(fill, template)
    return None if missing else text
