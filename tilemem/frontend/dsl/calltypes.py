"""The result type of a cross-function call: the callee's return types with its dynamic
dims bound from the arguments (PyPTO's DeduceCallReturnType, src/ir/op/type_inference.cpp
1282-1480, called by the parser for ``self.f(...)`` and ``pl.submit``, AP:6645-6663).

Each callee parameter's type is matched against its argument's: a tensor's (or a
DistributedTensor's) shape, effective valid shape and, when both carry a view, strides; a
tile's shape, effective valid shape and, when both carry a view, strides and start offset;
a tuple's items.  A dim that is a symbol of the callee binds to the argument's dim (unless
it is that same symbol); a composite dim binds through its operands when the argument's
has the same structure.  A symbol bound twice to values not provably equal is PyPTO's
error.  The return types are the declared ones with every bound symbol substituted.

Types here are read before the function's vars are named: a dynamic symbol is a
``Name`` whose id is the symbol's name, the same in the callee and the caller (the same
``pl.dynamic`` object, PyPTO's identity).
"""
from __future__ import annotations

from tilemem.records import replace
from typing import Optional

from tilemem import ir
from tilemem.ir.symbolic import prove_eq
from tilemem.ir.views import exprs_equal

__all__ = ["deduce_call_return_types", "ConflictingBinding"]


class ConflictingBinding(Exception):
    """A callee symbol bound to two values not provably equal (PyPTO's message)."""


def _decomposable(p, v) -> bool:
    """CanDecomposeCallExprPattern."""
    if p is None or v is None:
        return False
    if type(p) is ir.Name:
        return True
    if exprs_equal(p, v) or prove_eq(p, v):
        return True
    if type(p) is ir.BinOp and type(v) is ir.BinOp:
        return p.op == v.op and _decomposable(p.left, v.left) and _decomposable(p.right, v.right)
    if type(p) is ir.UnaryOp and type(v) is ir.UnaryOp:
        return p.op == v.op and _decomposable(p.operand, v.operand)
    return False


def _bind(p, v, where: str, var_map: dict, constraints: list) -> None:
    """CollectCallExprBindings."""
    if p is None or v is None:
        return
    if type(p) is ir.Name:
        if type(v) is ir.Name and v.id == p.id:
            return                    # the caller names the callee's own symbol
        if p.id not in var_map:
            var_map[p.id] = v
        else:
            constraints.append((p.id, var_map[p.id], v, where))
        return
    if not _decomposable(p, v):
        return
    if type(p) is ir.BinOp and type(v) is ir.BinOp:
        _bind(p.left, v.left, where + " left operand", var_map, constraints)
        _bind(p.right, v.right, where + " right operand", var_map, constraints)
    elif type(p) is ir.UnaryOp and type(v) is ir.UnaryOp:
        _bind(p.operand, v.operand, where + " operand", var_map, constraints)


def _bind_all(ps, vs, where: str, var_map: dict, constraints: list) -> None:
    for i, (p, v) in enumerate(zip(ps, vs)):
        _bind(p, v, f"{where}[{i}]", var_map, constraints)


def _tensor_view(t) -> tuple:
    from tilemem.frontend.dsl.types import view_parts
    return view_parts(t.view)


def _tile_valid(t) -> tuple:
    v = t.view
    if v is not None and v.valid_shape:
        return tuple(v.valid_shape)
    return tuple(t.shape)


def _collect(p, v, where: str, var_map: dict, constraints: list) -> None:
    """CollectCallTypeBindings."""
    if p is None or v is None:
        return
    if isinstance(p, ir.TupleType):
        if isinstance(v, ir.TupleType):
            for i, (a, b) in enumerate(zip(p.items, v.items)):
                _collect(a, b, f"{where} tuple element[{i}]", var_map, constraints)
        return
    if isinstance(p, ir.TensorType):
        if not isinstance(v, ir.TensorType):
            return
        _bind_all(p.shape, v.shape, where + " physical shape", var_map, constraints)
        pv, vv = _tensor_view(p), _tensor_view(v)
        _bind_all(pv[0] or p.shape, vv[0] or v.shape, where + " valid shape", var_map, constraints)
        if p.view is not None and v.view is not None:
            _bind_all(pv[1], vv[1], where + " tensor stride", var_map, constraints)
        return
    if isinstance(p, ir.TileType) and isinstance(v, ir.TileType):
        _bind_all(p.shape, v.shape, where + " physical shape", var_map, constraints)
        _bind_all(_tile_valid(p), _tile_valid(v), where + " valid shape", var_map, constraints)
        if p.view is not None and v.view is not None:
            _bind_all(p.view.stride or (), v.view.stride or (), where + " tile stride", var_map, constraints)
            _bind(p.view.start_offset, v.view.start_offset, where + " tile start_offset", var_map, constraints)


def substitute(e, var_map: dict):
    """``e`` with every symbol of ``var_map`` replaced (transform_utils::Substitute)."""
    if e is None or not var_map:
        return e
    t = type(e)
    if t is ir.Name:
        return var_map.get(e.id, e)
    if t is ir.BinOp:
        return replace(e, left=substitute(e.left, var_map), right=substitute(e.right, var_map))
    if t is ir.UnaryOp:
        return replace(e, operand=substitute(e.operand, var_map))
    if t is ir.Call:
        return replace(e, args=tuple(substitute(a, var_map) for a in e.args),
                       kwargs=tuple((k, substitute(v, var_map)) for k, v in e.kwargs))
    if t in (ir.ListExpr, ir.TupleExpr):
        return replace(e, items=tuple(substitute(a, var_map) for a in e.items))
    return e


def _dims(xs, var_map):
    return None if xs is None else tuple(substitute(x, var_map) for x in xs)


def substitute_type(t, var_map: dict):
    if t is None or not var_map:
        return t
    if isinstance(t, ir.TupleType):
        return replace(t, items=tuple(substitute_type(i, var_map) for i in t.items))
    if isinstance(t, ir.TensorType):
        return replace(t, shape=_dims(t.shape, var_map), view=substitute(t.view, var_map))
    if isinstance(t, ir.TileType):
        v = t.view
        if v is not None:
            v = replace(v, valid_shape=_dims(v.valid_shape, var_map), stride=_dims(v.stride, var_map),
                        start_offset=substitute(v.start_offset, var_map))
        return replace(t, shape=_dims(t.shape, var_map), view=v)
    return t


def deduce_call_return_types(param_types: list, arg_types: list, return_types: list,
                             printed=lambda e: str(e)) -> list:
    """DeduceCallReturnType: ``return_types`` with the callee's symbols bound from the
    arguments.  Raises ConflictingBinding with PyPTO's message (``printed`` prints an
    expression as PyPTO's printer does)."""
    if not return_types:
        return return_types
    var_map: dict = {}
    constraints: list = []
    for i, (p, a) in enumerate(zip(param_types, arg_types)):
        _collect(p, a, f"argument {i}", var_map, constraints)
    if not var_map:
        return return_types
    for name, existing, candidate, where in constraints:
        if exprs_equal(existing, candidate):
            continue
        e2, c2 = substitute(existing, var_map), substitute(candidate, var_map)
        if exprs_equal(e2, c2) or prove_eq(e2, c2):
            continue
        raise ConflictingBinding(
            f"Dynamic type variable '{name}' has conflicting bindings {printed(e2)} and {printed(c2)} "
            f"that are not provably equal at {where}; cross-function calls do not emit a runtime shape guard")
    return [substitute_type(t, var_map) for t in return_types]
