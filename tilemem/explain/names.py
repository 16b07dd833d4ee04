"""How the values of facts read for people (:class:`Names`): a var by name, with its
function when the name is ambiguous in the program; a statement position as ``line N``
of the input; and the named values of a program (:func:`program_vars`) and memory
spaces (:func:`space_name`) as the user may write them."""
from __future__ import annotations

from typing import Optional, Sequence

from tilemem.explain.nodes import ExplainError, ProofNode

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


def space_name(space: str) -> str:
    """A memory space as the rules spell it ("Left" for "left" or "pl.Mem.Left"), or an
    ExplainError naming the spaces."""
    from tilemem.ir.views import SPACES
    name = str(space).split(".")[-1]
    for s in SPACES:
        if s.lower() == name.lower():
            return s
    raise ExplainError(f"unknown memory space '{space}' (one of: {', '.join(SPACES)})")


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
