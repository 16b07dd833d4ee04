"""Proof trees: the nodes a proof is made of, drawn as text or JSON.

A :class:`ProofNode` is one step of a proof: a derived fact with the rule that
derived it and its premises, a fact of the program (with its source line), a fact
of the rule files (the op table), a negated premise that holds (no such fact), a
comparison or an aggregate.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from tilemem.datalog import Const, Rule, Var, format_value
from tilemem.errors import UsageError
from tilemem.explain.reasons import without_because
from tilemem.explain.sourcemap import Value, rule_file_name


class ExplainError(UsageError):
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


def _middle(text: str, width: int) -> str:
    """``text`` shortened in the middle to ``width`` characters."""
    if len(text) <= width:
        return text
    head = (width - 3) * 2 // 3
    return text[:head] + "..." + text[len(text) - (width - 3 - head):]


def pos_note(positions: list[tuple[Value, dict]]) -> str:
    parts = []
    for v, d in positions:
        if d.get("end"):
            parts.append(f"{v}: end of line {d['line']}")
        else:
            parts.append(f"{v}: line {d['line']}")
    return f"  [{'; '.join(parts)}]" if parts else ""


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
    def label(self, room: Optional[int] = None) -> str:
        """The node on one line.  ``room``: the columns it may take; a longer label first
        drops the rule's comment, then shortens the source text in the middle."""
        if self.kind in ("check", "aggregate"):
            return self.text
        if self.kind == "absent":
            return f"no {self.fact}  ({self.note or 'not derived'})"
        head = self.fact + pos_note(self.positions) if self.kind == "derived" else self.fact
        if self.kind == "input":
            if self.source:
                where = f"{self.source['path']}:{self.source['line']}"
                text = self.source.get("text")
                if not text:
                    return f"{head}    {where}"
                label = f"{head}    {where}: {text}"
                if room is not None and len(label) > room:
                    left = room - (len(label) - len(text))
                    label = f"{head}    {where}: {_middle(text, max(left, 24))}"
                return label
            return f"{head}    (program fact)"
        if self.kind == "rule_fact":
            return f"{head}    {_rule_loc(self.rule)}"
        doc = short_doc(_rule_doc(self.rule, self.rule_info_doc))
        where = _rule_loc(self.rule)
        label = f"{head}    <- {where}" + (f"  {doc}" if doc else "")
        if room is not None and len(label) > room:
            label = f"{head}    <- {where}"
        return label

    rule_info_doc: str = ""

    def render(self, max_depth: Optional[int] = None, ascii: bool = False, indent: str = "",
               width: Optional[int] = None) -> str:
        """The indented text tree; a subtree shown earlier is not repeated.  ``width``: the
        columns a line may take (labels drop their comment, then shorten their source
        text to fit; None: as long as they are)."""
        tee, last, bar, gap = ("|- ", "`- ", "|  ", "   ") if ascii else ("├─ ", "└─ ", "│  ", "   ")

        def room(prefix_len: int, tail: int = 0) -> Optional[int]:
            return None if width is None else max(width - prefix_len - tail, 40)
        lines = [indent + self.label(room(len(indent)))]
        shown: set[int] = {id(self)}
        # stack of (node, prefix, is_last, depth)
        stack = [(c, indent, i == len(self.children) - 1, 1)
                 for i, c in reversed(list(enumerate(self.children)))]
        while stack:
            node, prefix, is_last, depth = stack.pop()
            text = node.label(room(len(prefix) + 3, 16 if node.children else 0))
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
    """A rule's comment (without its ``because:`` template), else ``fallback``."""
    doc = without_because(rule.doc) if rule is not None and rule.doc else ""
    return doc or fallback


def _rule_dict(rule: Optional[Rule], fallback_doc: str) -> Optional[dict]:
    if rule is None:
        return None
    return {"file": rule_file_name(rule.file), "line": rule.line, "head": rule.head.pred,
            "doc": _rule_doc(rule, fallback_doc), "text": rule.text or str(rule)}


def absent_note(info) -> str:
    if info.is_derived:
        return "not derived"
    if info.from_program:
        return "no such fact in the program"
    return "no such fact in the rule files"
