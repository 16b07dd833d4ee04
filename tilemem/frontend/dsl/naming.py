"""Giving the vars of a function read from DSL the names PyPTO prints.

While a body is read, every PyPTO Var is one *key* in tilemem's IR (its hint plus a
serial number), so that distinct Vars sharing a hint stay distinct.  At the end the
keys are replaced by the names PyPTO's printer gives them (:mod:`tilemem.ir.names`),
and ``Function.name_hints`` records each printed name's hint, so that the pass names
its moves from the real hints.  Inside a type PyPTO prints a var by its hint.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from tilemem import ir
from tilemem.ir import names

__all__ = ["assign_names"]


def _expr(e, m: dict):
    return names.rename_expr(e, m) if e is not None else None


def _exprs(xs, m):
    return None if xs is None else tuple(_expr(x, m) for x in xs)


def rename_type(t, m: dict, mm: Optional[dict] = None):
    """A type with the vars in its dims and views renamed by ``m``, in its memref by
    ``mm`` (default ``m``)."""
    if mm is None:
        mm = m
    if t is None or not (m or mm):
        return t
    if isinstance(t, ir.TileType):
        v = t.view
        if v is not None:
            v = replace(v, valid_shape=_exprs(v.valid_shape, m), stride=_exprs(v.stride, m),
                        start_offset=_expr(v.start_offset, m))
        return replace(t, shape=_exprs(t.shape, m), view=v, memref=_expr(t.memref, mm))
    if isinstance(t, ir.TensorType):
        return replace(t, shape=_exprs(t.shape, m), view=_expr(t.view, m), memref=_expr(t.memref, mm))
    if isinstance(t, ir.TupleType):
        return replace(t, items=tuple(rename_type(i, m, mm) for i in t.items))
    return t


def _types_in_body(stmts: list, m: dict, mm: dict) -> list:
    out = []
    for s in stmts:
        if isinstance(s, ir.Assign):
            s = replace(s, type=rename_type(s.type, m, mm))
        elif isinstance(s, ir.Yield):
            s = replace(s, target_types=[rename_type(t, m, mm) for t in s.target_types])
        elif isinstance(s, ir.If):
            s = replace(s, then_body=_types_in_body(s.then_body, m, mm),
                        else_body=None if s.else_body is None else _types_in_body(s.else_body, m, mm))
        elif isinstance(s, (ir.For, ir.While, ir.With)):
            s = replace(s, body=_types_in_body(s.body, m, mm))
        out.append(s)
    return out


def assign_names(fn: ir.Function, hints: dict[str, str], keep: frozenset = frozenset()) -> ir.Function:
    """``fn`` (vars named by key) with PyPTO's printed names, and its name hints.
    Keys without a hint are their own; names in ``keep`` (program-level dynamic dims)
    are left alone."""
    order = [k for k in names.definitions(fn) if k not in keep]
    printed = names.printed_names(order, hints)
    # a memref's expressions (a slot index, an alloc's Ptr) print their vars by their
    # printed names, as any expression: PyPTO prints `l0c[i_1 % 2]` in the second loop of `i`
    mm = {**hints, **printed}
    fn = replace(fn, params=[replace(p, type=rename_type(p.type, hints, mm)) for p in fn.params],
                 return_types=[rename_type(t, hints, mm) for t in fn.return_types],
                 body=_types_in_body(fn.body, hints, mm))
    out = names.rename(fn, printed)
    out.name_hints = {printed[k]: hints.get(k, k) for k in order}
    return out
