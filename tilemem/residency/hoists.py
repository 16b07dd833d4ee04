"""Phase 4's rewrite: each hoisted statement moved to just before its loop, and the
compiler's Mat-bridge mark (private to the pass) removed from every call.
"""
from __future__ import annotations

from collections import defaultdict
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.facts.extract import StatementIndex
from tilemem.ir.rewrite import RewritePattern, rewrite_function
from tilemem.ir.walk import statements
from tilemem.records import replace
from tilemem.residency.facts import BRIDGE_ATTR

__all__ = ["apply_hoists", "strip_program_bridge_marks"]


class _Hoists(RewritePattern):
    """Each hoisted statement moved, in program order, to just before its loop (the
    scope of a statement list is the loop whose body it is, else None)."""

    def __init__(self, stmts: StatementIndex, hoists: list[tuple[int, int]]):
        self.stmts = stmts
        self.pos_of = {id(stmt): p for p, (_, stmt) in stmts.items()}
        self.by_loop: dict[int, list[int]] = defaultdict(list)
        for p, loop in hoists:
            self.by_loop[loop].append(p)
        self.moved = {p for p, _ in hoists}

    def rewrite(self, s: ir.Stmt, loop: Optional[ir.For]):
        p = self.pos_of.get(id(s))
        if loop is not None and p in self.moved:
            return []
        if isinstance(s, ir.For) and p in self.by_loop:
            return [*(self.stmts[h][1] for h in sorted(self.by_loop[p])), s]
        return s

    def body_scope(self, owner: ir.Stmt, scope) -> Optional[ir.For]:
        return owner if isinstance(owner, ir.For) else None


def apply_hoists(program: ir.Program, stmts: StatementIndex, hoists: list[tuple[int, int]]) -> ir.Program:
    """Phase 4: move each hoisted statement, in program order, to just before its loop."""
    if not hoists:
        return program
    pattern = _Hoists(stmts, hoists)
    # (a function none of whose statements moves is walked for nothing)
    moving = {stmts[p][0] for p, _ in hoists}
    return replace(program, functions=[rewrite_function(fn, pattern)
                                       if fn.is_incore and fn.name in moving else fn
                                       for fn in program.functions])


def _strip_bridge(e: ir.Expr) -> ir.Expr:
    """Remove the residency bridge mark from every call attrs dict inside e (``e`` itself
    when it has none).  (A call without a mark, the commonest, is looked at without
    building anything: the walk reads every call of every statement of the program.)"""
    if e.__class__ is not _Call:
        return e
    args = e.args
    new_args = None
    for i, a in enumerate(args):
        if a.__class__ is _Call:
            n = _strip_bridge(a)
            if n is not a:
                if new_args is None:
                    new_args = list(args)
                new_args[i] = n
    kwargs = e.kwargs
    new_kwargs = None
    for j, (k, v) in enumerate(kwargs):
        n = v
        dropped = False
        if k == "attrs" and isinstance(v, ir.DictExpr):
            items = v.items
            if any(isinstance(a, ir.StrConst) and a.value == BRIDGE_ATTR for a, _ in items):
                items = tuple((a, b) for a, b in items
                              if not (isinstance(a, ir.StrConst) and a.value == BRIDGE_ATTR))
                if not items:
                    dropped = True
                elif len(items) != len(v.items):
                    n = replace(v, items=items)
        elif v.__class__ is _Call:
            n = _strip_bridge(v)
        if dropped or n is not v:
            if new_kwargs is None:
                new_kwargs = list(kwargs[:j])
            if not dropped:
                new_kwargs.append((k, n))
        elif new_kwargs is not None:
            new_kwargs.append((k, v))
    if new_args is None and new_kwargs is None:
        return e
    return replace(e, args=tuple(args if new_args is None else new_args),
                   kwargs=tuple(kwargs if new_kwargs is None else new_kwargs))


_Call = ir.Call


def _marked(fn: ir.Function, pattern: "_StripBridge") -> bool:
    """Whether ``pattern`` changes a statement of ``fn`` (a plain walk: most functions hold
    no bridge mark, and are not rewritten)."""
    return any(pattern.rewrite(s, None) is not s for s, _ in statements(fn.body))


class _StripBridge(RewritePattern):
    """The residency bridge mark removed from every call attrs dict of a statement."""

    def rewrite(self, s: ir.Stmt, scope) -> ir.Stmt:
        if isinstance(s, ir.Assign):
            v = _strip_bridge(s.value)
            if v is not s.value:
                return replace(s, value=v)
        elif isinstance(s, ir.EvalStmt):
            v = _strip_bridge(s.expr)
            if v is not s.expr:
                return replace(s, expr=v)
        return s


def strip_program_bridge_marks(program: ir.Program) -> ir.Program:
    """The residency bridge mark is private to the pass: removed from every function."""
    pattern = _StripBridge()
    return replace(program, functions=[rewrite_function(fn, pattern) if _marked(fn, pattern) else fn
                                       for fn in program.functions])
