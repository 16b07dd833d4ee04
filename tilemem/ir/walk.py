"""Walking statement trees without Python recursion.

Inputs may nest blocks as deeply as the reader allows (``MAX_NESTING``), and every
stage (facts, emitter, printer, graphs) walks the same trees, so the walks are
iterative:

* :func:`child_bodies` -- the statement lists directly inside a statement;
* :func:`statements` -- every statement of a body, in program (pre-)order, with its
  depth;
* :func:`own_exprs` -- the expressions a statement holds itself (not its bodies');
* :func:`run_nested` -- runs a walk written as recursive *generators* on an explicit
  stack: where a recursive walk would call ``self.body(x)``, the generator writes
  ``yield self.body(x)`` and gets the child's return value back, so the code keeps
  the shape of the recursion while the depth costs heap, not Python stack.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Any, Generator, Iterator, Optional

from tilemem.ir.nodes import (Assign, Call, EvalStmt, Expr, For, If, Return, Stmt, While,
                              With, Yield)

__all__ = ["child_bodies", "statements", "own_exprs", "run_nested", "last_yield"]


def child_bodies(s: Stmt) -> tuple[list[Stmt], ...]:
    """The statement lists nested directly in ``s``, in program order (an ``if``: then,
    else; a loop or ``with``: its body; anything else: none)."""
    if isinstance(s, If):
        return (s.then_body,) if s.else_body is None else (s.then_body, s.else_body)
    if isinstance(s, (For, While, With)):
        return (s.body,)
    return ()


def statements(body: list[Stmt], depth: int = 0) -> Iterator[tuple[Stmt, int]]:
    """``(statement, depth)`` for every statement of ``body`` and of the bodies nested in
    it, in program order (a compound statement before its nested statements); the
    statements of ``body`` itself are at ``depth``."""
    stack: list[tuple[Iterator[Stmt], int]] = [(iter(body), depth)]
    while stack:
        it, d = stack[-1]
        s = next(it, None)
        if s is None:
            stack.pop()
            continue
        yield s, d
        nested = child_bodies(s)
        for b in reversed(nested):
            stack.append((iter(b), d + 1))


def own_exprs(s: Stmt) -> list[Expr]:
    """The expressions ``s`` holds itself, not those of its nested bodies: an assignment's
    value, an expression statement's expression, the values of a return or yield, a
    loop's header call, the condition of an ``if`` or ``while``, a ``with``'s item."""
    t = type(s)
    if t is Assign:
        return [s.value]
    if t is EvalStmt:
        return [s.expr]
    if t is Return or t is Yield:
        return list(s.values)
    if t is For:
        return [s.iter]
    if t is If or t is While:
        return [s.cond]
    if t is With:
        return [s.item]
    return []


if TYPE_CHECKING:
    Walk = Generator[Any, Any, Any]


def run_nested(walk: Walk) -> Any:
    """Run a generator-based recursive walk to completion and return its value.

    ``walk`` may ``yield`` another such generator: it is run first, and its return
    value is sent back as the value of the ``yield`` expression.  Nothing recurses in
    Python, however deep the nesting."""
    stack = [walk]
    value = None
    while stack:
        try:
            child = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            value = stop.value
            continue
        stack.append(child)
        value = None
    return value


def last_yield(body: list[Stmt]) -> Optional[Yield]:
    """The yield that ends a body, looking through trailing runtime scopes and
    ``pl.split_aiv`` bodies (where a loop's or branch's return vars are printed)."""
    while body:
        last = body[-1]
        if isinstance(last, Yield):
            return last
        if isinstance(last, With) and isinstance(last.item, Call) and last.item.func.endswith(".scope"):
            body = last.body
            continue
        if isinstance(last, For) and last.kind == "split_aiv":
            body = last.body
            continue
        return None
    return None
