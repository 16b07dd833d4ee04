"""Answers a compiler engineer reads in ten seconds: a paragraph first, then the few
proof steps that decide it, the whole proof on request.

The paragraph is derived from the proof, never templated per variable: the proof of
``space(V, S)`` (or of any fact) is followed along the column that carries the answer
(S) from the root to where that value comes from — an input fact, a fact of the op
table, a constant in a rule head.  That chain of steps is *the deciding path*: the rule
nearest the origin says why (its comment), the statement its facts name says where (a
line of the user's input).  Everything else in the proof (that V is a tile, that the
site is its last one, ...) is structure, shown with ``--tree``.

Facts are shown for people here: vars by name (with their function when the name is
ambiguous in the program), statement positions as ``line N`` of the input.  Lines are
elided in the middle to fit the width (:func:`fit`).
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Optional, Sequence

from tilemem.datalog import Atom, Const, Negation, Var
from tilemem.explain.nodes import ExplainError, ProofNode, _rule_doc, _rule_loc, short_doc
from tilemem.explain.reasons import bindings, reason
from tilemem.explain.whynot import WhyNot
from tilemem.ir.optable import op_table

#: the default width of answers (a terminal's, and what fits in a review)
WIDTH = 100
#: the most lines a default answer prints
MAX_LINES = 12


def fit(line: str, width: Optional[int], ascii: bool = False) -> str:
    """``line`` elided in the middle to at most ``width`` characters (None: as is)."""
    if not width or len(line) <= width:
        return line
    mark = "..." if ascii else "…"
    keep = max(width - len(mark), 8)
    head = (keep * 2) // 3
    return line[:head].rstrip() + mark + line[len(line) - (keep - head):].lstrip()


def wrap(text: str, width: Optional[int], indent: str = "") -> list[str]:
    """A paragraph filled to ``width`` (one line when width is None)."""
    if not width:
        return [indent + text]
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False) or [indent]


def _wrap_note(note: str, width: Optional[int]) -> list[str]:
    """A note filled to width, its continuation lines indented under its text."""
    body = note.lstrip()
    lead = note[:len(note) - len(body)]
    m = re.match(r"(\d+\. |- )", body)
    hang = lead + " " * (len(m.group(1)) if m else 2)
    if not width:
        return [note]
    return textwrap.wrap(body, width, initial_indent=lead, subsequent_indent=hang,
                         break_on_hyphens=False, break_long_words=False) or [note]


# ----------------------------------------------------------------------------- people's words


class Names:
    """How a value of a fact reads for people: a var by name (``fn:name`` when two
    functions of the program have a var of that name), a statement as ``line N``."""

    def __init__(self, source, program_vars: Sequence[tuple[str, str]] = ()):
        self.source = source
        count: dict[str, set] = {}
        for fn, name in list(getattr(source, "facts").vars.values()) + list(program_vars):
            count.setdefault(name, set()).add(fn)
        self.ambiguous = {n for n, fns in count.items() if len(fns) > 1}

    def subject(self, vid: str) -> str:
        """A var as the subject of an answer: its name, and its function when ambiguous."""
        fn, sep, name = vid.partition(":")
        if not sep:
            return f"`{vid}`"
        return f"`{name}` (in {fn})" if name in self.ambiguous else f"`{name}`"

    #: the function the answer is about: its vars go by their bare names
    home: Optional[str] = None

    def about(self, function: str) -> "Names":
        """These names for an answer about ``function`` (a copy: a session shares its
        Names between answers)."""
        import copy
        out = copy.copy(self)
        out.home = function
        return out

    def var(self, vid: str) -> str:
        fn, sep, name = vid.partition(":")
        if not sep:
            return vid
        return vid if name in self.ambiguous and fn != self.home else name

    def is_var(self, value) -> bool:
        return isinstance(value, str) and value in self.source.facts.vars

    def value(self, pred: str, index: int, value) -> str:
        if isinstance(value, str):
            return self.var(value) if self.is_var(value) or ":" in value else value
        if index in self.source.pos_columns.get(pred, ()):
            d = self.source.describe_pos(value)
            if d is not None:
                return f"end of line {d['line']}" if d.get("end") else f"line {d['line']}"
        return str(value)

    def fact(self, pred: str, row: Sequence) -> str:
        return f"{pred}({', '.join(self.value(pred, i, v) for i, v in enumerate(row))})"

    def node(self, n: ProofNode) -> str:
        if n.kind in ("derived", "input", "rule_fact"):
            return self.fact(n.pred, n.row)
        if n.kind == "absent":
            return "no " + self.fact(n.pred, ["_" if v is None else v for v in n.pattern])
        return n.text


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


    pairs = [(node.rule.head, node)]
    pairs += [(lit, child) for lit, child in zip(node.rule.body, node.children)
              if isinstance(lit, Atom) and child.kind in ("derived", "input", "rule_fact")]
    for atom, n in pairs:
        for t, v in zip(atom.args, n.row):
            if isinstance(t, Var) and not t.is_anonymous:
                env.setdefault(t.name, (atom.pred, atom.args.index(t), v, n))
    return env


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


# ----------------------------------------------------------------------------- the deciding path


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


# ----------------------------------------------------------------------------- answers


@dataclass
class Answer:
    """An answer: a paragraph, the deciding steps, and what ``--tree`` shows."""
    question: str
    summary: str                                   # the paragraph, derived from the proof
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # further short lines (residency, moves)
    trees: list = field(default_factory=list)      # (title, ProofNode or WhyNot) for --tree
    data: dict = field(default_factory=dict)       # extra JSON fields
    parts: list = field(default_factory=list)      # an answer by line: one answer a tile

    def render(self, width: Optional[int] = WIDTH, ascii: bool = False, tree: bool = False,
               depth: Optional[int] = None) -> str:
        if self.parts:
            return "\n\n".join(p.render(width, ascii, tree, depth) for p in self.parts)
        lines = wrap(self.summary, width)
        if tree or depth is not None:
            lines.extend(l for n in self.notes for l in _wrap_note(n, width))
            for title, t in self.trees:
                lines.append("")
                if title:
                    lines.extend(wrap(title, width))
                if isinstance(t, WhyNot):
                    text = t.render(depth or 3, ascii)
                else:
                    text = t.render(depth, ascii, width=width)
                lines.extend(fit(l, width, ascii) for l in text.split("\n"))
            return "\n".join(lines)
        notes = [l for n in self.notes for l in _wrap_note(n, width)]
        budget = MAX_LINES - len(lines) - len(notes)
        if self.steps and budget >= 2:
            lines.append("deciding steps (the whole proof: --tree):" if self.trees else "deciding steps:")
            lines.extend(fit(l, width, ascii) for l in self._step_lines(budget - 1, ascii))
        lines.extend(notes)
        return "\n".join(lines)

    def _step_lines(self, budget: int, ascii: bool) -> list[str]:
        steps = self.steps[-budget:]           # the steps nearest the origin decide most
        out = []
        for s in steps:
            lines = [l for l in ([s.line, *s.repeat] if s.line is not None else [*s.through, *s.repeat])
                     if l is not None]
            lines = list(dict.fromkeys(lines))
            where = ""
            if lines:
                where = ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines[:4])) \
                    + (", ..." if len(lines) > 4 else "")
            text = f"  {where:<11} {s.fact}"
            if s.where:
                text += f"  {'<- ' if s.node.kind == 'derived' else ''}{s.where}"
            out.append(text)
        return out

    def __str__(self) -> str:
        return self.render()

    def to_dict(self) -> dict:
        """The answer as JSON-able data (what ``tilemem why --json`` prints, without the
        file's fields)."""
        d = {"question": self.question, "answer": self.summary,
             "steps": [s.to_dict() for s in self.steps], "notes": self.notes}
        d.update(self.data)
        if self.parts:
            d["answers"] = [p.to_dict() for p in self.parts]
        return d


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


def space_name(space: str) -> str:
    """A memory space as the rules spell it ("Left" for "left" or "pl.Mem.Left"), or an
    ExplainError naming the spaces."""
    from tilemem.ir.views import SPACES
    name = str(space).split(".")[-1]
    for s in SPACES:
        if s.lower() == name.lower():
            return s
    raise ExplainError(f"unknown memory space '{space}' (one of: {', '.join(SPACES)})")


def require_rows(rows, what: str):
    if not rows:
        raise ExplainError(what)
    return rows


# ----------------------------------------------------------------------------- questions


def program_vars(program) -> list[tuple[str, str, object, Optional[int]]]:
    """(function, name, type, line) of every named value of the program: parameters,
    assignment targets, loop variables, iter-args and return vars, in program order."""
    from tilemem import ir
    from tilemem.ir.walk import statements
    out = []
    for fn in program.functions:
        for p in fn.params:
            out.append((fn.name, p.name, p.type, p.line))
        for s, _ in statements(fn.body):
            if isinstance(s, ir.Assign):
                for t in s.targets:
                    out.append((fn.name, t, s.type if len(s.targets) == 1 else None, s.line))
            elif isinstance(s, ir.For):
                for t in [s.loop_var, *(s.iter_args or [])]:
                    if t:
                        out.append((fn.name, t, None, s.line))
            elif isinstance(s, ir.Yield):           # a loop's or branch's return vars
                for t, ty in zip(s.targets, s.target_types or [None] * len(s.targets)):
                    out.append((fn.name, t, ty, s.line))
    return out


def not_a_tile(ses, var: str, function: Optional[str]) -> Optional[Answer]:
    """The answer for a name that is no tile var of an InCore function (a tensor, a
    scalar, a var of an orchestration function), or None when it is none of those."""
    if ":" in var and function is None:
        function, var = var.split(":", 1)
    hits = [(f, n, t, l) for f, n, t, l in program_vars(ses.program)
            if n == var and (function is None or f == function)]
    if not hits:
        return None
    fns = {f: ses.program.function(f) for f, *_ in hits}
    if len(fns) > 1:
        return None                 # ambiguous: resolve_var says so
    f, n, t, line = hits[0]
    from tilemem.ir import type_kind
    kind = type_kind(t)
    where = f"`{n}` ({f}, line {line})" if line else f"`{n}` ({f})"
    if kind in ("tensor", "scalar"):
        text = (f"{where} is a {kind}: memory spaces are decided for tiles only "
                f"(tensors live in global memory, scalars in registers).")
    elif not fns[f].is_incore:
        text = (f"{where} belongs to `{f}`, a {fns[f].func_type} function: memory spaces are "
                f"decided for the tiles of InCore functions only.")
    else:
        return None
    return Answer(f"why {var}", text, data={"var": f"{f}:{n}", "space": None, "kind": kind or "other"})


def residency_notes(ses, vid: str) -> tuple[list[str], list[dict]]:
    """The residency verdict on the statement defining ``vid``, in words (one line per
    reason: a refusal's, most fundamental first, or a hoist's evidence) and as data."""
    fn, _, name = vid.partition(":")
    if ses.backend is None:
        from tilemem.residency.facts import bridge_marks
        marked = {line for line, _ in bridge_marks(ses.program)}
        if any(f == fn and n == name and line in marked
               for f, n, _, line in program_vars(ses.program)):
            return ["Residency: not hoisted: residency needs a backend (give `--backend`); "
                    "this load carries the compiler's Mat-bridge mark."], []
        return [], []
    out, data = [], []
    for d in ses.residency or ():
        if d.function != fn or d.var != name:
            continue
        data.append(d.to_dict())
        loop = f"the loop at line {d.loop_line}" if d.loop_line else "its loop"
        if d.hoisted:
            evidence = hoist_evidence(ses, vid)
            out.append(f"Residency ({ses.backend}): hoisted out of {loop}"
                       + (", because:" if evidence else "."))
            out.extend(f"  - {e}" for e in evidence)
            continue
        n = len(d.refusals)
        out.append(f"Residency ({ses.backend}): stays in {loop}"
                   + (f", for {n} reasons, most fundamental first:" if n > 1 else ":"))
        out.extend(f"  {i}. {r.reason}" for i, r in enumerate(d.refusals, 1))
        if d.fix:
            out.append(f"  To hoist it: {d.fix}.")
    return out, data


def hoist_evidence(ses, vid: str) -> list[str]:
    """The evidence that made the hoist of ``vid``'s statement legal, in the words of
    the rules that found it (rules/p4_residency/evidence.dl), in the order they are written."""
    x = ses.phase4()
    if x is None or "hoist_evidence" not in x.rules.predicates:
        return []
    names = ses.names(x)
    names = names.about(vid.partition(":")[0])
    found = []
    for pos, _, _ in x.rel.match("residency_hoisted", (None, vid, None)):
        for row in x.rel.match("hoist_evidence", (pos, None)):
            node = x.explain("hoist_evidence", row)
            r = reason(node, names)
            if r is not None and not r.missing:
                found.append((node.rule.line, r.text[0].upper() + r.text[1:] + "."))
    return [text for _, text in sorted(found)]


def answer_var(ses, var: str, function: Optional[str] = None) -> Answer:
    """Why a tile var is in its space (or an inserted move exists, or why it has none)."""
    try:
        vid = ses.resolve_var(var, function)
    except ExplainError:
        m = ses.move_of(var, function)
        if m is not None:
            return answer_move(ses, m)
        other = not_a_tile(ses, var, function)
        if other is not None:
            return other
        raise
    x = ses.phase3()
    names = ses.names(x)
    fn, _, name = vid.partition(":")
    shown = names.subject(vid)
    names = names.about(fn)
    rows = list(x.rel.match("space", (vid, None)))
    if not rows:
        kind = ses.var_kind(vid)
        if kind in ("tensor", "scalar"):
            other = not_a_tile(ses, vid, None)
            if other is not None:
                return other
        last = _unresolved_site(x, vid)
        if last is not None:
            # the last write of V records "none": why, from the rule that wrote it
            tree = x.explain("space_written", last)
            sen = value_sentence(shown, "", tree, 2, names, verb="has no memory space")
            ans = Answer(f"why {vid}", sen.text, sen.steps, trees=[("", tree)],
                         data={"var": vid, "space": None, "line": sen.line,
                               "proof": tree.to_dict()})
            _mark_fallback(ans, sen)
        else:
            wn = x.why_not("space", (vid, None), depth=3, functions=x.scope.around(fn))
            text, steps = why_not_sentence(shown, wn, names)
            ans = Answer(f"why {vid}", f"{shown} has no memory space: the rules leave it "
                         f"unresolved; {text}", steps,
                         trees=[("", wn)], data={"var": vid, "space": None, "why_not": wn.to_dict()})
    else:
        tree = x.explain("space", rows[0])
        space = rows[0][1]
        sen = value_sentence(shown, space, tree, 1, names)
        ans = Answer(f"why {vid}", sen.text, sen.steps, trees=[("", tree)],
                     data={"var": vid, "space": space, "line": sen.line, "proof": tree.to_dict()})
        _mark_fallback(ans, sen)
    _add_contract_breaks(ses, ans, vid)
    for m in ses.moves:
        if m.function == fn and m.producer == name:
            ans.notes.append(f"The pass inserts a copy in {m.target} before line "
                             f"{m.consumer_line}: `{m.name}`.")
    _add_residency(ses, ans, vid)
    return ans


def _unresolved_site(x, vid: str) -> Optional[tuple]:
    """The ``space_written`` row of the last write site of ``vid`` when it records "none" (the
    var is unresolved because of it), else None."""
    sites = [q for _, q in x.rel.match("site", (vid, None))]
    if not sites:
        return None
    row = (vid, max(sites), "none")
    return row if x.holds("space_written", row) else None


def _mark_fallback(ans: Answer, sen: "Sentence") -> None:
    """Say in the answer's data when no rule on its path gave a reason (the paragraph is
    made of rule comments) or a reason's template left a slot unfilled."""
    if sen.fallback:
        ans.data["fallback"] = True
    if sen.missing:
        ans.data["unfilled"] = sen.missing


_POSITION = re.compile(r"^(\d+)(?::(\d+))?$")


def parse_position(subject) -> Optional[tuple[int, Optional[int]]]:
    """(line, column or None) when ``subject`` names a position of the input: an int,
    ``"12"`` or ``"12:8"``; None for anything else (a var, a pattern)."""
    if isinstance(subject, bool):
        return None
    if isinstance(subject, int):
        return subject, None
    m = _POSITION.match(str(subject).strip())
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None


def answer_subject(ses, subject, function: Optional[str] = None) -> Answer:
    """The answer ``tilemem why`` gives for ``subject``: a line (``12``, ``"12:8"``), a
    fact pattern, an inserted move or a tile var."""
    at = parse_position(subject)
    if at is not None:
        return answer_line(ses, *at)
    if not isinstance(subject, str):
        raise ExplainError(f"why takes a var name, a line or a fact pattern, not "
                           f"{type(subject).__name__}")
    if "(" in subject:
        return answer_pattern(ses, subject)
    return answer_var(ses, subject, function)


def tiles_at_line(ses, line: int, col: Optional[int] = None) -> list[tuple[str, str]]:
    """What line ``line`` of the input decides, in program order: ("var", var id) for each
    tile defined, or given a space, there (a loop's iter-args, return vars and inits at
    its line, a branch's return vars at its ``if``), ("move", name) for each move the
    pass inserts before it, and the tiles residency hoists from there.  With ``col``,
    only those whose name covers that column, when some does."""
    x = ses.phase3()
    out: list[tuple[str, str]] = []
    for vid, q in sorted(x.rel.rows("site"), key=lambda r: (r[1], r[0])):
        d = x.source.describe_pos(q)
        if d is not None and d["line"] == line and ses.var_kind(vid) == "tile" \
                and ("var", vid) not in out:
            out.append(("var", vid))
    for fn, name, _, at in program_vars(ses.program):       # where the text writes it
        vid = f"{fn}:{name}"
        if at == line and vid in ses.facts.vars and ses.var_kind(vid) == "tile" \
                and ("var", vid) not in out:
            out.append(("var", vid))
    for m in ses.moves:
        if m.consumer_line == line:
            out.append(("move", f"{m.function}:{m.name}"))
    for d in ses.residency or ():
        vid = f"{d.function}:{d.var}"
        if line in (d.line, d.loop_line) and ("var", vid) not in out:
            out.append(("var" if vid in ses.facts.vars else "move", vid))
    if col is not None:
        src = x.source.lines
        text = src[line - 1] if src and 1 <= line <= len(src) else ""
        def names_of(kind: str, vid: str) -> list[str]:     # a move: its producer's name too
            fn, _, name = vid.partition(":")
            m = ses.move_of(name, fn) if kind == "move" else None
            return [name] + ([m.producer] if m is not None else [])
        hit = [(k, v) for k, v in out if any(_covers(text, n, col) for n in names_of(k, v))]
        out = hit or out
    return out


def _covers(text: str, name: str, col: int) -> bool:
    """Whether a whole-word occurrence of ``name`` on the line covers 1-based ``col``."""
    for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)", text):
        if m.start() < col <= m.end():
            return True
    return False


def answer_line(ses, line: int, col: Optional[int] = None) -> Answer:
    """Why each tile line ``line`` decides is where it is (see :func:`tiles_at_line`):
    one answer a tile, in program order."""
    lines = ses.phase3().source.lines
    if not 1 <= line <= len(lines or ()):
        raise ExplainError(f"line {line} is not in the input (it has {len(lines or ())} lines)")
    found = tiles_at_line(ses, line, col)
    where = f"line {line}" + (f":{col}" if col else "")
    if not found:
        text = (lines[line - 1].strip() if lines else "")
        return Answer(f"why {where}", f"Line {line} defines, moves or hoists no tile of an "
                      f"InCore function" + (f" (`{elide_tokens(text, 60)}`)." if text else "."),
                      data={"line": line, "column": col})
    parts = []
    for kind, vid in found:
        if kind == "move":
            fn, _, name = vid.partition(":")
            m = ses.move_of(name, fn)
            parts.append(answer_move(ses, m) if m is not None else answer_var(ses, vid))
        else:
            parts.append(answer_var(ses, vid))
    return Answer(f"why {where}", " ".join(p.summary for p in parts), parts=parts,
                  data={"line": line, "column": col})


def answer_move(ses, m) -> Answer:
    """Why the pass inserted move ``m``: the deciding path of its ``move_at`` fact."""
    tree = ses.explain_move(m)
    names = ses.names(ses.phase3())
    names = names.about(m.function)
    text, steps, line = value_sentence(names.subject(f"{m.function}:{m.name}"), f"a {op_table().inserted_move} of `{m.producer}` to {m.target}",
                                       tree, 2, names, verb="is", because=", inserted before")
    producer = f"{m.function}:{m.producer}"
    own = next((n for n in tree.walk() if n.kind == "derived" and n.pred == "space"
                and n.row[0] == producer), None)
    if own is not None:
        why_own, _, _ = value_sentence(names.subject(producer), own.row[1], own, 1, names)
        text += " " + why_own
    vid = f"{m.function}:{m.name}"
    ans = Answer(f"why {m.name}", text, steps, trees=[("", tree)],
                 data={"var": vid, "move": {"producer": m.producer, "target": m.target,
                                            "consumer_line": m.consumer_line},
                       "proof": tree.to_dict()})
    _add_residency(ses, ans, vid)
    return ans


def _add_contract_breaks(ses, ans: Answer, vid: str) -> None:
    """Where PyPTO's answer leaves the var outside the spaces its consumer accepts (the
    warning of ``tilemem solve``): a note, and the proof of each contract_break fact."""
    import json
    from tilemem.datalog import parse_query
    from tilemem.infer.contract import ContractBreak
    x = ses.phase3()
    if "contract_break" not in x.rules.predicates:
        return
    trees = x.explain_pattern(parse_query(f"contract_break(P, I, {json.dumps(vid)}, Op, S, R)"))
    breaks = []
    fn, _, name = vid.partition(":")
    for t in trees:
        p, slot, _, op, space, reason = t.row
        line = x.source.stmt_line(p) if x.source is not None else None
        b = ContractBreak(fn, name, op, slot, space, reason, line, None)
        breaks.append(dict(line=line, message=b.message, proof=t.to_dict()))
        ans.notes.append(f"Warning (line {line}): {b.message}.")
        ans.trees.append((f"warning (line {line}): {b.message}:", t))
    if breaks:
        ans.data["contract_breaks"] = breaks


def _add_residency(ses, ans: Answer, vid: str) -> None:
    notes, data = residency_notes(ses, vid)
    ans.notes.extend(notes)
    if ses.backend is not None:
        ans.data["residency"] = data
        for t in ses.explain_residency(vid):
            verdict = "hoisted out of its loop" if t.pred == "residency_hoisted" else "kept in its loop"
            ans.trees.append((f"residency ({ses.backend}): {verdict}:", t))


def answer_not(ses, var: str, space: str, function: Optional[str] = None,
               depth: int = 3) -> Answer:
    """Why a tile var is not in ``space``: what it is in instead, and the rules that
    could have put it there with the premise each fails on (facts of its function only)."""
    vid = ses.resolve_var(var, function)
    x = ses.phase3()
    names = ses.names(x)
    fn = vid.partition(":")[0]
    shown = names.subject(vid)
    wn = x.why_not("space", (vid, space), depth=depth, functions=x.scope.around(fn))
    rows = list(x.rel.match("space", (vid, None)))
    if wn.holds:
        text = f"{shown} is in {space}."
        steps = []
    else:
        actual, first = "", None
        names = names.about(fn)
        if rows:
            tree = x.explain("space", rows[0])
            sen = value_sentence(shown, rows[0][1], tree, 1, names, clauses_max=1)
            actual = " " + sen.text
            first = next(iter(reasoned_clauses(deciding_path(tree, 1), names)), None)
        would = _would_put(ses, x, vid, space, names, first)
        if would is not None:
            text, steps = f"{shown} is not in {space}:{actual} {would}", []
        else:
            why, steps = why_not_sentence(shown, wn, names)
            text = f"{shown} is not in {space}:{actual} For {space}, {why}"
    return Answer(f"why {vid} --not {space}", text, steps, trees=[("", wn)],
                  data={"var": vid, "space_asked": space, "why_not": wn.to_dict()})


def _would_put(ses, x, vid: str, space: str, names: Names, actual) -> Optional[str]:
    """Which rule would have written ``space`` at the site that decides ``vid`` and the
    one fact of this program that prevents it, in words; None when no rule that could
    says why in words (the caller falls back to the why-not chain)."""
    from tilemem.explain.reasons import rule_reason
    sites = [q for _, q in x.rel.match("site", (vid, None))]
    if not sites:
        return None
    fn = vid.partition(":")[0]
    wn = x.why_not("space_written", (vid, max(sites), space), depth=3,
                   functions=x.scope.around(fn))
    def on_the_space(c) -> bool:
        """The rule fails only where it names the space: in all else it fits the var."""
        head_space = c.rule.head.args[2]
        return isinstance(c.failed, (Atom, Negation)) and isinstance(head_space, Var) and \
            head_space.name in (c.failed.names() if hasattr(c.failed, "names") else set())
    for c in [c for c in wn.candidates if on_the_space(c)]:
        env = {**c.head_env, **c.env}
        would = rule_reason(c.rule, env, names)
        if would is None:
            continue
        block = _blocking_words(c, names) or (actual.text if actual is not None else None)
        if block is None:
            continue
        return (f"For {space}, the pass would need: “{would}” ({_rule_loc(c.rule)}); "
                f"here instead, {block}.")
    if actual is not None:
        return (f"No rule of the pass gives {space} to a tile defined as `{names.var(vid)}` "
                f"is; here, {actual.text}.")
    return None


def _blocking_words(c, names: Names, depth: int = 2) -> Optional[str]:
    """The fact of the program that stops candidate rule ``c``, in words: the reason of
    what holds in its place (a near miss, a fact a negation finds), else the same for
    the rule below that got furthest."""
    for node in [*c.near, *c.blocking]:
        r = reason(node, names) if node.kind == "derived" else None
        if r is not None and not r.missing:
            return r.text
    if depth > 1 and c.sub is not None and c.sub.candidates:
        return _blocking_words(c.sub.candidates[0], names, depth - 1)
    return None


def answer_pattern(ses, pattern: str, limit: int = 20) -> Answer:
    """Why the facts matching a pattern hold (the deciding path of the first, along its
    last column), or why none does."""
    answer = ses.why(pattern, limit)
    if isinstance(answer, WhyNot):
        x = ses.explainer_for(answer.pred)
        why, steps = why_not_sentence(pattern, answer, ses.names(x))
        return Answer(f"why {pattern}", f"`{pattern}` does not hold: {why}", steps,
                      trees=[("", answer)], data={"query": pattern, "why_not": answer.to_dict()})
    first = answer[0]
    x = ses.explainer_for(first.pred)
    names = ses.names(x)
    shown = names.fact(first.pred, first.row)
    col = max(len(first.row) - 1, 0)
    text, steps, _ = value_sentence(f"`{shown}`", "", first, col, names, verb="holds")
    text = text.replace("holds  because", "holds because", 1).replace("holds :", "holds:", 1)
    more = len(answer) - 1
    if more:
        text += f" ({more} more fact{'s' if more != 1 else ''} match: --tree shows them all.)"
    return Answer(f"why {pattern}", text, steps, trees=[("", t) for t in answer],
                  data={"query": pattern, "proofs": [t.to_dict() for t in answer]})
