"""The paragraph of an answer, derived from the proof, never templated per variable.

The proof of ``space(V, S)`` (or of any fact) is followed along the column that carries
the answer (S) from the root to where that value comes from — an input fact, a fact of
the op table, a constant in a rule head.  That chain of steps is *the deciding path*
(:func:`deciding_path`): the rules on it that carry a reason (``// because:``, see
:mod:`tilemem.explain.reasons`) say why, the statements their facts name say where (a
line of the user's input).  Everything else in the proof (that V is a tile, that the
site is its last one, ...) is structure, shown with ``--tree``.  A path no rule of
which gives a reason (rules of a user's own files) is told from the rule comments
(:func:`value_sentence` marks it a fallback).  :func:`why_not_sentence` says why a fact
does not hold, from the rule that got furthest.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from tilemem.datalog import Atom, Const, Var
from tilemem.explain.names import Names
from tilemem.explain.nodes import ProofNode, _rule_doc, _rule_loc, short_doc
from tilemem.explain.reasons import bindings, reason
from tilemem.explain.whynot import WhyNot

def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


def _doc(node: ProofNode) -> str:
    return short_doc(_rule_doc(node.rule, node.rule_info_doc), 1000).strip().rstrip(".")


_LABEL = re.compile(r"^(?:[A-Z][\w-]*(?: [\w-]+){0,4} \d+\w*(?:, [\w -]+?)?|[A-Z][\w-]*, [\w -]+?"
                    r"|[A-Z][\w-]*(?: [\w-]+)?):\s+(?=[a-z(])")
_DECL = re.compile(r"^[a-z_][a-z0-9_]*\([^()]*\):\s+")
_REF = re.compile(r"\s*\((?:docs/semantics|SEMANTICS|pass_notes|backend|typerules|tileview)\.md[^()]*\)")


def sentence(doc: str, limit: int = 160) -> str:
    """A rule comment as a clause of a sentence: without its section label ("Rule table
    step 3:", "Phase 2:") and spec references, cut after an aside when long."""
    text = _REF.sub("", _LABEL.sub("", _DECL.sub("", doc))).strip()
    text = re.sub(r"^(\.\.\.|…)\s*", "", text)
    if len(text) > limit:
        for sep in (" — ", "; ", " ("):
            i = text.find(sep)
            if 0 < i <= limit:
                text = text[:i]
                break
    return _lower_first(text)


def instantiate_doc(doc: str, node: ProofNode, names: "Names") -> str:
    """The rule comment with the rule's variables (``V``, ``P``, ``Op``, ...) replaced by
    their values in this step: "slot 0 of the statement at line 11 takes `x` ..."."""
    env = bindings(node)
    if not env:
        return doc

    def repl(m):
        name = m.group(0)
        if name not in env or (name == "A" and m.start() == 0):
            return name
        pred, col, value, n = env[name]
        shown = names.value(pred, col, value)
        return f"`{shown}`" if isinstance(value, str) and names.is_var(value) else shown
    return re.sub(r"(?<![\w`.])[A-Z][A-Za-z0-9]*(?![\w`(])", repl, doc)


def deciding_path(root: ProofNode, column: int) -> list[tuple[ProofNode, int]]:
    """The steps from ``root`` to where the value in its ``column`` comes from.

    At each derived step, the premise that binds the head's variable in that column
    (the first positive atom holding it).  Where the rule gives the value itself (a
    constant in its head, or computed by a test or aggregate), the reason is in the
    rule's body: the path goes on into the premise about the same subject (the one of
    the same relation first, as a recursive walk does, else the first derived premise
    sharing a head variable).  It ends at an input fact or a rule-file fact."""
    path = [(root, column)]
    node, follow_value = root, True
    while node.kind == "derived" and column < len(node.rule.head.args):
        head = node.rule.head
        term = head.args[column]
        nxt = None
        premises = [(lit, child) for lit, child in zip(node.rule.body, node.children)
                    if isinstance(lit, Atom) and child.kind in ("derived", "input", "rule_fact")]
        if follow_value and isinstance(term, Var) and not term.is_anonymous:
            for lit, child in premises:
                cols = [i for i, t in enumerate(lit.args) if isinstance(t, Var) and t.name == term.name]
                if cols:
                    nxt = (child, cols[0])
                    break
        if nxt is None:
            follow_value = False
            head_vars = [t.name for t in head.args if isinstance(t, Var) and not t.is_anonymous]
            derived = [(lit, child) for lit, child in premises if child.kind == "derived"]
            recursion = [(lit, child) for lit, child in derived if lit.pred == head.pred]
            if recursion:                      # a walk: one more step of it
                nxt = (recursion[0][1], column)
            for lit, child in derived if nxt is None else ():
                cols = [i for i, t in enumerate(lit.args) if isinstance(t, Var) and t.name in head_vars]
                if cols:
                    nxt = (child, cols[0])
                    break
        if nxt is None:
            break
        path.append(nxt)
        node, column = nxt
    return path


@dataclass
class Step:
    """One deciding step, for people: the fact, where it comes from, why it holds."""
    node: ProofNode
    fact: str                  # in people's words
    line: Optional[int]        # the input line it is about
    where: str                 # rules/file.dl:N for a derived fact or a rule-file fact; path:N for input
    doc: str                   # the rule's comment (derived steps)
    repeat: list = field(default_factory=list)   # lines of the same relation folded into this step
    through: list = field(default_factory=list)  # lines of its other premises (the edges walked)

    def to_dict(self) -> dict:
        n = self.node
        d = {"fact": n.fact, "shown": self.fact, "kind": n.kind, "line": self.line,
             "where": self.where}
        if n.pred is not None:
            d["pred"], d["args"] = n.pred, list(n.row)
        if self.doc:
            d["doc"] = self.doc
        if self.repeat:
            d["also_lines"] = self.repeat
        if self.through:
            d["through_lines"] = self.through
        return d


def _node_line(n: ProofNode) -> Optional[int]:
    if n.kind == "input" and n.source:
        return n.source.get("line")
    for _, d in n.positions:
        if not d.get("end"):
            return d["line"]
    for _, d in n.positions:
        return d["line"]
    return None


def _premise_lines(node: ProofNode, skip: Optional[ProofNode]) -> list[int]:
    """The lines the premises of ``node`` other than ``skip`` name."""
    out = []
    for c in node.children:
        if c is skip or c.kind not in ("derived", "input"):
            continue
        line = _node_line(c)
        if line is not None and line not in out:
            out.append(line)
    return out


def steps_of(path: list[tuple[ProofNode, int]], names: Names) -> list[Step]:
    """The deciding path as steps, a recursive walk (consecutive steps of one relation)
    folded into one step."""
    out: list[Step] = []
    for k, (node, _) in enumerate(path):
        line = _node_line(node)
        nxt = path[k + 1][0] if k + 1 < len(path) else None
        through = _premise_lines(node, nxt) if node.kind == "derived" else []
        if node.kind == "derived":
            where, doc = _rule_loc(node.rule), _doc(node)
        elif node.kind == "rule_fact":
            where, doc = _rule_loc(node.rule), ""
        else:                        # a fact of the program: its line says where
            where = "" if line is not None else "(program fact)"
            doc = ""
        prev = out[-1] if out else None
        if prev is not None and node.kind == "derived" and prev.node.kind == "derived" \
                and prev.node.pred == node.pred:
            for l in [line, *through]:
                if l is not None and l != prev.line and l not in prev.repeat:
                    prev.repeat.append(l)
            continue
        out.append(Step(node, names.node(node), line, where, doc,
                        through=[l for l in through if l != line]))
    return out


class Clause:
    """One reason of an answer: the input line it is about (None: none) and the pass's
    words; ``node``: the proof step whose rule gave them; ``missing``: template slots
    nothing filled (see :mod:`tilemem.explain.reasons`)."""

    def __init__(self, line: Optional[int], text: str, node: ProofNode, missing: list):
        self.line, self.text, self.node, self.missing = line, text, node, missing


def reasoned_clauses(path: list[tuple[ProofNode, int]], names: Names) -> list[Clause]:
    """The reasons along a deciding path, root first: each step whose rule carries one
    (a reason that names a premise's reason says it, and that premise is not repeated);
    consecutive reasons about one line make one clause."""
    used: set[int] = set()
    out: list[Clause] = []
    nodes = [n for n, _ in path]
    for k, n in enumerate(nodes):
        if n.kind != "derived" or id(n) in used:
            continue
        r = reason(n, names)
        if r is None:
            continue
        used |= r.used
        line = next((l for l in map(_step_line, nodes[k:]) if l is not None), None)
        if out and out[-1].line == line:
            out[-1].text += "; " + r.text
            out[-1].missing += r.missing
        else:
            out.append(Clause(line, r.text, n, list(r.missing)))
    return out


def _step_line(n: ProofNode) -> Optional[int]:
    """The input line a step is about: its own, else its first premise's that has one
    (``has_demand(x)`` is about the statement of the edge that carries the demand)."""
    own = _node_line(n)
    if own is not None or n.kind != "derived":
        return own
    return next((l for l in (_node_line(c) for c in n.children
                             if c.kind in ("derived", "input")) if l is not None), None)


class Sentence:
    """A value's answer: the paragraph, its deciding steps, the deciding line, and
    whether it had to fall back to rule comments (no rule on the path says why)."""

    def __init__(self, text: str, steps: list, line: Optional[int], fallback: bool = False,
                 missing: Sequence[str] = ()):
        self.text, self.steps, self.line = text, steps, line
        self.fallback, self.missing = fallback, list(missing)

    def __iter__(self):                    # text, steps, line = value_sentence(...)
        return iter((self.text, self.steps, self.line))


def value_sentence(subject: str, value: str, root: ProofNode, column: int, names: Names,
                   verb: str = "is in", because: str = "because of",
                   clauses_max: int = 3) -> Sentence:
    """The sentence saying why ``subject`` ``verb`` ``value``: the reason of the step
    nearest the root whose rule gives one, at its line of the program; then, going back
    along the deciding path, the next reason and the origin of the value (at most
    ``clauses_max`` in all; the others are counted)."""
    path = deciding_path(root, column)
    steps = steps_of(path, names)
    clauses = reasoned_clauses(path, names)
    if not clauses:
        text, shown, line = _comment_sentence(subject, value, steps, names, verb, because,
                                              clauses_max)
        return Sentence(text, shown, line, fallback=True)
    first = clauses[0]
    text = f"{subject} {verb} {value}".rstrip()
    sep = "" if because.startswith(",") else " "
    at = f" line {first.line}{_quote(names, first.line)}" if first.line is not None else ""
    text += f"{sep}{because}{at}: {first.text}."
    rest = clauses[1:]
    skipped = 0
    if len(rest) > clauses_max - 1 > 0:
        skipped = len(rest) - (clauses_max - 1)
        rest = rest[:clauses_max - 2] + rest[-1:]
    elif clauses_max <= 1:
        skipped, rest = len(rest), []
    for k, c in enumerate(rest):
        lead = "This goes back to" if k == 0 else "And to"
        if k == len(rest) - 1 and k > 0 and skipped:
            lead = f"And, {skipped} step{'s' if skipped > 1 else ''} further (--tree), to"
        at = f" line {c.line}{_quote(names, c.line, 48)}" if c.line is not None else " this"
        text += f" {lead}{at}: {c.text}."
    if skipped and len(rest) <= 1:
        text += f" ({skipped} more step{'s' if skipped > 1 else ''}: --tree.)"
    shown = [Step(c.node, names.node(c.node), _step_line(c.node), _rule_loc(c.node.rule), _doc(c.node))
             for c in clauses]
    leaf = steps[-1]
    if leaf not in shown and leaf.node.kind in ("rule_fact", "input"):
        shown.append(leaf)
    missing = [m for c in clauses for m in c.missing]
    return Sentence(text, shown, first.line, missing=missing)


def _comment_sentence(subject, value, steps, names, verb, because, clauses_max):
    """The answer from the rule comments, for a path no rule of which gives a reason
    (rules of a user's own files): the comment of the step nearest the root, its
    variables replaced by their values."""
    clauses: list[tuple[list[int], str]] = []
    deciding: list[Step] = []
    seen: set[int] = set()
    for st in steps:
        if st.node.kind != "derived" or not st.doc:
            continue
        # a step's own lines make a clause; a folded walk also names the lines it went through
        own = [l for l in dict.fromkeys([st.line, *st.repeat]) if l is not None]
        if st.line is None and st.repeat:      # a folded walk: the lines it went through
            own = [l for l in dict.fromkeys([*st.through, *st.repeat]) if l is not None]
        new = [l for l in own if l not in seen]
        if not new:
            continue
        seen.update(own)
        clauses.append((new, instantiate_doc(sentence(st.doc), st.node, names)))
        deciding.append(st)
    line = clauses[0][0][0] if clauses else None
    text = f"{subject} {verb} {value}".rstrip()
    if clauses:
        sep = "" if because.startswith(",") else " "
        text += f"{sep}{because} line {line}{_quote(names, line)}: {clauses[0][1]}"
    text += "."
    more = clauses[1:clauses_max]
    for k, (lines, clause) in enumerate(more):
        first = lines[0]
        rest = f" (through line{'s' if len(lines) > 2 else ''} {', '.join(map(str, lines[1:]))})" \
            if len(lines) > 1 else ""
        text += (" This goes back to" if k == 0 else " And to") + \
            f" line {first}{_quote(names, first, 48)}{rest}: {clause}."
    if len(clauses) > clauses_max > 1:
        extra = len(clauses) - clauses_max
        text += f" ({extra} more step{'s' if extra > 1 else ''}: --tree.)"
    leaf = steps[-1]
    shown = [st for st in steps[:1] if st not in deciding and st.line is not None] + deciding
    if leaf not in shown and leaf.node.kind in ("rule_fact", "input"):
        shown.append(leaf)
    return text, shown, line


def _quote(names: Names, line: Optional[int], width: int = 72) -> str:
    from tilemem.explain.sourcemap import compact_source
    lines = names.source.lines
    if line is None or not lines or not 1 <= line <= len(lines):
        return ""
    return f" (`{elide_tokens(compact_source(lines[line - 1], 10_000), width)}`)"


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def elide_tokens(text: str, width: int, mark: str = "…") -> str:
    """``text`` elided in the middle to at most ``width`` characters, cut only between
    tokens (never inside a name or a number): ``x = pl.tile.load(a, … target_memory=pl.Mem.Mat)``."""
    if len(text) <= width:
        return text
    keep = max(width - len(mark), 8)
    head = (keep * 2) // 3
    tail = len(text) - (keep - head)

    def boundary(i: int) -> bool:
        return i <= 0 or i >= len(text) or not (_word(text[i - 1]) and _word(text[i]))
    while head > 0 and not boundary(head):
        head -= 1
    while tail < len(text) and not boundary(tail):
        tail += 1
    return text[:head].rstrip() + mark + text[tail:].lstrip()


def why_not_sentence(subject: str, wn: WhyNot, names: Names) -> tuple[str, list[Step]]:
    """Why a fact does not hold, from the rule that got furthest: its comment and the
    premise it fails on."""
    if wn.kind == "input":
        return f"the program has no such fact ({names.fact(wn.pred, _blanks(wn.pattern))}).", []
    if not wn.candidates:
        return f"no rule for `{wn.pred}` can produce it.", []
    c = wn.candidates[0]
    doc = short_doc(_rule_doc(c.rule, wn.explainer.rules.predicates[c.rule.head.pred].doc), 1000).rstrip(".")
    failed = _failed_words(c, names)
    text = f"the rule that gets furthest ({_rule_loc(c.rule)}: {sentence(doc, 100)}) fails on {failed}"
    sub, hops = c.sub, 0
    while sub is not None and not sub.holds and sub.candidates and hops < 2:
        sc = sub.candidates[0]
        sdoc = short_doc(_rule_doc(sc.rule, wn.explainer.rules.predicates[sc.rule.head.pred].doc),
                         1000).rstrip(".")
        text += (f"; for that, the nearest rule ({_rule_loc(sc.rule)}: {sentence(sdoc, 90)}) "
                 f"fails on {_failed_words(sc, names)}")
        sub, hops = sc.sub, hops + 1
    others = len(wn.candidates) - 1
    if others:
        text += f"; {others} other rule{'s' if others != 1 else ''} fail{'' if others != 1 else 's'} earlier"
    steps = []
    for lit, node in c.satisfied:
        if node.kind in ("derived", "input", "rule_fact"):
            steps.append(Step(node, names.node(node), _node_line(node),
                              _rule_loc(node.rule) if node.rule else "",
                              _doc(node) if node.kind == "derived" else ""))
    return text + ".", steps


def _blanks(pattern) -> list:
    return ["_" if v is None else v for v in pattern]


def _failed_words(c, names: Names) -> str:
    lit = c.failed
    env = c.env
    if lit is None:
        return "nothing"

    def ground(atom):
        vals = []
        for t in atom.args:
            v = t.value if isinstance(t, Const) else (None if t.is_anonymous else env.get(t.name))
            vals.append(t.name if v is None and isinstance(t, Var) and not t.is_anonymous else
                        "_" if v is None else v)
        return names.fact(atom.pred, vals)

    if isinstance(lit, Atom):
        return f"`{ground(lit)}`, which does not hold"
    if hasattr(lit, "atom"):
        return f"`{ground(lit.atom)}`, which holds but must not"
    return f"`{c.failed_text}`, which is false"
