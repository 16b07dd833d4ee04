"""Statements of the DSL that printed IR never contains, read from their Python text.

tilemem's grammar is the syntax printed IR and hand-written DSL share.  A few things
only people write — slices (``x[0:8, 4:12]``), subscript assignment
(``dst[i:j, :] = src``, ``tids[k] = tid``) — are outside it; the grammar's error recovery
hands such a line over as an ``OpaqueStmt`` (it checks first that the line is valid
Python).  This module turns that line into tilemem's IR with Python's ``ast`` (a syntax
tree; nothing runs), so the DSL reader can give it PyPTO's meaning, or reject it with
PyPTO's message.  Slices become the reader-private call ``__slice__(lower, upper, step)``.
"""
from __future__ import annotations

import ast
from typing import Optional

from tilemem import ir
from tilemem.frontend.dsl.values import DslError

__all__ = ["statement_of", "SLICE"]

SLICE = "__slice__"

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.MatMult: "@"}
_CMPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_UNARY = {ast.USub: "-", ast.Not: "not", ast.Invert: "~"}


class _Conv:
    def __init__(self, line0: int, col0: int):
        self.line0 = line0 - 1          # the opaque text starts at (line0, col0) in the file
        self.col0 = col0 - 1

    def pos(self, n) -> tuple[int, int]:
        line = n.lineno + self.line0
        col = n.col_offset + 1 + (self.col0 if n.lineno == 1 else 0)
        return line, col

    def expr(self, n) -> ir.Expr:
        line, col = self.pos(n)
        t = type(n)
        if t is ast.Name:
            if n.id in ("True", "False"):
                return ir.BoolConst(n.id == "True", line, col)
            return ir.Name(n.id, line, col)
        if t is ast.Constant:
            v = n.value
            if isinstance(v, bool):
                return ir.BoolConst(v, line, col)
            if isinstance(v, int):
                return ir.IntConst(v, line, col)
            if isinstance(v, float):
                return ir.FloatConst(repr(v), line, col)
            if isinstance(v, str):
                return ir.StrConst(v, "'", line, col)
            if v is None:
                return ir.NoneConst(line, col)
            raise DslError(f"Unsupported constant type: {type(v)}", line=line, col=col)
        if t is ast.Attribute:
            parts = []
            x = n
            while isinstance(x, ast.Attribute):
                parts.append(x.attr)
                x = x.value
            if not isinstance(x, ast.Name):
                raise DslError(f"Unsupported expression: {ast.unparse(n)}", line=line, col=col)
            parts.append(x.id)
            parts.reverse()
            if len(parts) >= 2 and parts[1] == "MemorySpace":
                parts[1] = "Mem"
            return ir.Dotted(tuple(parts), line, col)
        if t is ast.Call:
            f = self.expr(n.func)
            if type(f) is ir.Dotted:
                func = f.text
            elif type(f) is ir.Name:
                func = f.id
            else:
                raise DslError(f"Unsupported function call: {ast.unparse(n)}", line=line, col=col)
            if any(isinstance(a, ast.Starred) for a in n.args) or any(k.arg is None for k in n.keywords):
                raise DslError("Unsupported expression type: Starred", line=line, col=col)
            return ir.Call(func, tuple(self.expr(a) for a in n.args),
                           tuple((k.arg, self.expr(k.value)) for k in n.keywords), f.line, f.col)
        if t is ast.BinOp:
            op = _BINOPS.get(type(n.op))
            if op is None:
                raise DslError(f"Unsupported binary operator: {type(n.op).__name__}", line=line, col=col)
            return ir.BinOp(op, self.expr(n.left), self.expr(n.right), line, col)
        if t is ast.Compare:
            if len(n.ops) != 1:
                raise DslError("Only simple comparisons supported", line=line, col=col)
            op = _CMPS.get(type(n.ops[0]))
            if op is None:
                raise DslError(f"Unsupported comparison: {type(n.ops[0]).__name__}", line=line, col=col)
            return ir.BinOp(op, self.expr(n.left), self.expr(n.comparators[0]), line, col)
        if t is ast.BoolOp:
            op = "and" if isinstance(n.op, ast.And) else "or"
            vals = [self.expr(v) for v in n.values]
            out = vals[0]
            for v in vals[1:]:
                out = ir.BinOp(op, out, v, line, col)
            return out
        if t is ast.UnaryOp:
            if isinstance(n.op, ast.UAdd):
                raise DslError("Unsupported unary operator: UAdd", line=line, col=col)
            return ir.UnaryOp(_UNARY[type(n.op)], self.expr(n.operand), line, col)
        if t is ast.List:
            return ir.ListExpr(tuple(self.expr(e) for e in n.elts), line, col)
        if t is ast.Tuple:
            return ir.TupleExpr(tuple(self.expr(e) for e in n.elts), line, col)
        if t is ast.Subscript:
            idx = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
            return ir.Subscript(self.expr(n.value), tuple(self.expr(i) for i in idx), line, col)
        if t is ast.ListComp:
            # `[elt for x in it if c]`: read only where PyPTO unrolls it (comprehension.py)
            from tilemem.frontend.dsl.comprehension import LISTCOMP
            g = n.generators[0]
            return ir.Call(LISTCOMP, (self.expr(n.elt), self.expr(g.target), self.expr(g.iter))
                           + tuple(self.expr(i) for i in g.ifs),
                           (("generators", ir.IntConst(len(n.generators))),), line, col)
        if t is ast.Slice:
            parts = tuple(ir.NoneConst() if p is None else self.expr(p) for p in (n.lower, n.upper, n.step))
            return ir.Call(SLICE, parts, (), line, col)
        raise DslError(f"Unsupported expression type: {t.__name__}", line=line, col=col)


def comprehension_ir(node: ast.ListComp) -> ir.Expr:
    """A list comprehension of the file (positions the file's) as tilemem's IR."""
    return _Conv(1, 1).expr(node)


def statement_of(s: ir.OpaqueStmt):
    """The IR of an opaque statement line (an ``ir.Assign`` / ``ir.EvalStmt``, or a
    ``("subscript_assign", target, value)`` / ``("submit_unpack", target shapes, call)`` /
    ``("tuple_unpack", assign)`` tuple), or None when it is not one of these."""
    try:
        mod = ast.parse(s.text)
    except SyntaxError:
        return None
    if len(mod.body) != 1:
        return None
    node = mod.body[0]
    c = _Conv(s.line or 1, s.col or 1)
    line, col = s.line, s.col
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Subscript):
            return ("subscript_assign", c.expr(target), c.expr(node.value))
        if isinstance(target, ast.Name):
            return ir.Assign([target.id], None, c.expr(node.value), line=line, col=col)
        if isinstance(target, ast.Tuple) and _submit_call(node.value) and \
                not all(isinstance(e, ast.Name) for e in target.elts):
            # `(a, b), tid = pl.submit(...)`: the targets' nesting, for the reader to check
            return ("submit_unpack", [_target_shape(e) for e in target.elts], c.expr(node.value))
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            names = [e.id for e in target.elts]
            v = node.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "yield_" \
                    and isinstance(v.func.value, ast.Name) and not v.keywords:
                # `(a,) = pl.yield_(x)`: the yield binding its targets, as `a = pl.yield_(x)`
                return ir.Yield([c.expr(a) for a in v.args], names, [None] * len(names), line=line, col=col)
            if len(names) == 1:          # `m, = value`: unpacking a one-element tuple, not `m = value`
                return ("tuple_unpack", ir.Assign(names, None, c.expr(v), line=line, col=col))
            return ir.Assign(names, None, c.expr(v), line=line, col=col)
        return None
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        ann = c.expr(node.annotation)
        return ir.Assign([node.target.id], None, c.expr(node.value), annotation=ann, line=line, col=col)
    if isinstance(node, ast.Expr):
        return ir.EvalStmt(c.expr(node.value), line=line, col=col)
    return None


def _submit_call(v) -> bool:
    """``pl.submit(...)`` / ``pl.spmd_submit(...)`` (on any one-part module alias)."""
    return isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Name) \
        and v.func.attr in ("submit", "spmd_submit")


def _target_shape(t):
    """An unpacking target: a name (str), a tuple (list of targets) or anything else (its
    text, in a 1-tuple)."""
    if isinstance(t, ast.Name):
        return t.id
    if isinstance(t, ast.Tuple):
        return [_target_shape(e) for e in t.elts]
    return (ast.unparse(t),)


def slice_parts(e) -> Optional[tuple]:
    """``(lower, upper, step)`` of a ``__slice__`` marker (None for an absent part)."""
    if type(e) is ir.Call and e.func == SLICE:
        return tuple(None if type(p) is ir.NoneConst else p for p in e.args)
    return None
