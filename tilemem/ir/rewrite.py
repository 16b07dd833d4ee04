"""One walker for every rewrite of statement trees, driven by small patterns.

As xDSL's ``PatternRewriteWalker`` / ``RewritePattern``: a :class:`RewritePattern` says
what becomes of one statement; :func:`rewrite_body` walks a statement list in program
order, applies the pattern to each statement and rebuilds only what changed.

* **Order.**  Statements are visited in program (pre-)order: a compound statement
  (``for``, ``if``, ``while``, ``with``) is rewritten before its bodies, which are
  walked at once (then-body before else-body), and :meth:`RewritePattern.leave` is
  called after them.
* **Scopes.**  Each body is walked with the scope :meth:`RewritePattern.body_scope`
  gives it (e.g. the moves visible there, the loop it belongs to); the function body
  with the scope given to :func:`rewrite_body`.
* **Sharing.**  A statement the pattern returns as it is, whose bodies are unchanged, is
  kept (the same object), and a list in which no statement changed is the same list: an
  output program shares every unchanged subtree with its input (the output of a large
  program then costs a fraction of its memory and time).  Nothing here mutates a
  statement or a list in place.
* **Depth.**  Nested bodies are walked by ``ir.walk.run_nested``: nesting costs heap,
  not Python stack.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Any, Optional, Union

from tilemem.ir.nodes import For, Function, If, Stmt, While, With
from tilemem.ir.walk import run_nested
from tilemem.records import replace

__all__ = ["RewritePattern", "rewrite_body", "rewrite_function"]

# The fields of the statements that hold bodies (ir.walk.child_bodies), in program order.
_BODY_FIELDS = {For: ("body",), While: ("body",), With: ("body",), If: ("then_body", "else_body")}


class RewritePattern:
    """What becomes of each statement of a walk (see the module doc); the defaults
    change nothing, so a pattern that only reads (an analysis) returns ``s``."""

    def rewrite(self, s: Stmt, scope: Any) -> Union[Stmt, list]:
        """The statement(s) standing for ``s`` in its body, its own parts rewritten (not
        its bodies: the walker walks the bodies of whatever is returned): ``s`` itself
        when unchanged, a new statement, or a list of statements (statements inserted
        before or after it; empty: ``s`` is erased)."""
        return s

    def body_scope(self, owner: Stmt, scope: Any) -> Any:
        """The scope of one body of the compound statement ``owner`` (called once per
        body, just before it is walked), from the scope ``owner`` is in."""
        return scope

    def leave(self, s: Stmt, scope: Any) -> None:
        """Called after the bodies of the compound statement ``s`` have been walked."""


def rewrite_body(body: list[Stmt], pattern: RewritePattern, scope: Any = None) -> list[Stmt]:
    """``body`` rewritten by ``pattern`` (``body`` itself when nothing changed)."""
    return run_nested(_body(body, pattern, scope))


def rewrite_function(fn: Function, pattern: RewritePattern, scope: Any = None) -> Function:
    """``fn`` with its body rewritten by ``pattern`` (``fn`` itself when nothing changed)."""
    body = rewrite_body(fn.body, pattern, scope)
    return fn if body is fn.body else replace(fn, body=body)


def _body(body: list[Stmt], pattern: RewritePattern, scope: Any):
    # a generator walk (ir.walk.run_nested): a compound statement is ``yield``-ed
    out: Optional[list[Stmt]] = None        # made on the first change
    rewrite = pattern.rewrite
    for i, s in enumerate(body):
        got = rewrite(s, scope)
        if got is s:
            if s.__class__ in _BODY_FIELDS:
                got = yield _compound(s, pattern, scope)
            if got is s:
                if out is not None:
                    out.append(s)
                continue
            if out is None:
                out = body[:i]
            out.append(got)
            continue
        if out is None:
            out = body[:i]
        for r in (got if got.__class__ is list else (got,)):
            if r.__class__ in _BODY_FIELDS:
                r = yield _compound(r, pattern, scope)
            out.append(r)
    return body if out is None else out


def _compound(s: Stmt, pattern: RewritePattern, scope: Any):
    """``s`` with its bodies walked (``s`` itself when none changed)."""
    changed = None
    for field in _BODY_FIELDS[s.__class__]:
        b = getattr(s, field)
        if b is None:               # an if without else
            continue
        new = yield _body(b, pattern, pattern.body_scope(s, scope))
        if new is not b:
            if changed is None:
                changed = {}
            changed[field] = new
    pattern.leave(s, scope)
    return s if changed is None else replace(s, **changed)
