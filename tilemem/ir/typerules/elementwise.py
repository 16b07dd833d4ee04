"""Result types of the elementwise, scalar, compare, unary/cast, row/col expand and
reduction tile ops (typerules.md §3.1-§3.6)."""
from __future__ import annotations

from tilemem import ir
from tilemem.ir.symbolic import (
    int_const as _c, prove_eq, prove_zero, s_add, s_ceildiv, s_floordiv, s_mul,
)
from tilemem.ir.typerules.common import (
    _BINARY, _COL_EXPAND, _COL_RED, _ROW_EXPAND, _ROW_RED, _Res, _TILE_SCALAR, _UNARY, _dt_text,
    _lay, _like, _like_arg, _need_kwarg, _need_scalar_dtype, _need_tile, _rule, _shape_text,
    bcast, matching_extents,
)
from tilemem.ir.views import (
    DeductionError, const_value, effective_view, fresh_view, norm_dtype, promote_dtype,
    valid_shape_of,
)


# ---------------------------------------------------------------- 3.1 elementwise tile (+) tile

@_rule(*_BINARY, "shl", "shr", "div", "addc", "subc", "sel", "prelu")
def _r_binary(op, args, kwargs):
    name = op[5:]
    if name == "sel":
        lhs, rhs = _need_tile(args, 1, op), _need_tile(args, 2, op)
    else:
        lhs = _need_tile(args, 0, op)
        rhs = _need_tile(args, 1, op) if name != "prelu" else lhs
    if name == "div":
        _tdiv_contract(op, lhs, rhs)
    if name in ("div", "prelu"):
        shape, dtype = tuple(lhs.shape), norm_dtype(lhs.dtype)
    elif name in ("shl", "shr"):
        try:                    # tile_ops/elementwise.cpp:229-230 (the shift deducer's words)
            shape = bcast(lhs.shape, rhs.shape)
        except DeductionError:
            raise DeductionError(f"The operator {op} requires compatible shapes") from None
        dtype = norm_dtype(lhs.dtype)
    elif name in ("addc", "subc"):
        third = _need_tile(args, 2, op)
        shape = bcast(bcast(lhs.shape, rhs.shape), third.shape)
        dtype = promote_dtype(promote_dtype(lhs.dtype, rhs.dtype), third.dtype)
    else:
        try:                    # tile_ops/elementwise.cpp:196-199 BroadcastShapes
            shape = bcast(lhs.shape, rhs.shape)
        except DeductionError:
            raise DeductionError(f"The operator {op} requires compatible shapes, but got {_shape_text(lhs.shape)} "
                                 f"and {_shape_text(rhs.shape)}") from None
        dtype = promote_dtype(lhs.dtype, rhs.dtype)
    return _Res(shape, dtype, _lay(lhs))


_TDIV_DTYPES = ("INT16", "INT32", "FP16", "FP32")


def _tdiv_contract(op: str, a: ir.TileType, b: ir.TileType) -> None:
    """tile.div has no broadcasting (elementwise.cpp, require_tdiv_contract): one dtype of
    INT16/INT32/FP16/FP32, one physical shape and one provably equal valid shape."""
    da, db = norm_dtype(a.dtype), norm_dtype(b.dtype)
    if da != db:
        raise DeductionError(f"The operator {op} requires src0, src1, and dst to have the same dtype, but got "
                             f"{_dt_text(da)} and {_dt_text(db)}")
    if da not in _TDIV_DTYPES:
        raise DeductionError(f"The operator {op} requires dtype in {{INT16, INT32, FP16, FP32}}, but got "
                             f"{_dt_text(da)}")
    what = "src0, src1, and dst to have the same"
    if len(a.shape) != len(b.shape):
        raise DeductionError(f"The operator {op} requires {what} physical shape rank, but got {len(a.shape)} "
                             f"and {len(b.shape)}")
    for i, (x, y) in enumerate(zip(a.shape, b.shape)):
        if not prove_eq(x, y):
            raise DeductionError(f"The operator {op} requires {what} physical shape, but dimension {i} differs; "
                                 f"got src0 shape {_shape_text(a.shape)} and src1 shape {_shape_text(b.shape)}")
    va, vb = valid_shape_of(a), valid_shape_of(b)
    if len(va) != len(vb):
        raise DeductionError(f"The operator {op} requires {what} valid_shape rank, but got {len(va)} and {len(vb)}")
    for i, (x, y) in enumerate(zip(va, vb)):
        if not prove_eq(x, y):
            raise DeductionError(f"The operator {op} requires {what} valid_shape, but dimension {i} differs; "
                                 f"got src0 valid_shape {_shape_text(va)} and src1 valid_shape {_shape_text(vb)}")


# ---------------------------------------------------------------- 3.2 tile (+) scalar

_rule(*_TILE_SCALAR)(_like_arg(0))


@_rule("addsc", "subsc", "rems")
def _r_addsc(op, args, kwargs):
    t1 = _need_tile(args, 0, op)
    t2 = _need_tile(args, 2, op)
    sd = _need_scalar_dtype(args, 1)
    dtype = promote_dtype(promote_dtype(t1.dtype, sd), t2.dtype)
    return _Res(bcast(t1.shape, t2.shape), dtype, _lay(t1))


_rule("sels")(_like_arg(1))                 # sels(mask, src, tmp, scalar): like src


@_rule("expands")
def _r_expands(op, args, kwargs):
    t = _need_tile(args, 0, op)
    return _Res(tuple(t.shape), promote_dtype(t.dtype, _need_scalar_dtype(args, 1)), _lay(t))


# ---------------------------------------------------------------- 3.3 compare (packed predicate, 2.5)

def _roundup(x, k: int):
    c = const_value(x)
    if c is not None:
        return _c(-(-c // k) * k)
    return s_mul(s_floordiv(s_add(x, _c(k - 1)), _c(k)), _c(k))


@_rule("cmp", "cmps")
def _r_cmp(op, args, kwargs):
    lhs = _need_tile(args, 0, op)
    if op == "tile.cmp":
        rhs = _need_tile(args, 1, op)
        logical = bcast(lhs.shape, rhs.shape)
    else:
        logical = tuple(lhs.shape)
    shape = logical[:-1] + (_roundup(s_ceildiv(logical[-1], 8), 32),)
    vs = valid_shape_of(lhs)
    valid = vs[:-1] + (s_ceildiv(vs[-1], 8),)
    return _Res(shape, "UINT8", _lay(lhs, valid))


# ---------------------------------------------------------------- 3.4 unary, cast

_rule(*_UNARY)(_like_arg(0))


@_rule("cast")
def _r_cast(op, args, kwargs):
    t = _need_tile(args, 0, op)
    dtype = norm_dtype(_need_kwarg(kwargs, "target_type", "cast"))
    if dtype == norm_dtype(t.dtype):         # DeduceTileCastType (tile_ops/unary.cpp:157-162)
        raise DeductionError(f"{op}: target_type {_dt_text(dtype)} equals input dtype; same-dtype cast is not a "
                             "valid operation. Remove the cast or use a different target_type.")
    return _Res(tuple(t.shape), dtype, _lay(t))


# ---------------------------------------------------------------- 3.5 row / col expand

@_rule(*_ROW_EXPAND, *_COL_EXPAND)
def _r_expand(op, args, kwargs):
    t = _need_tile(args, 0, op)
    other = _need_tile(args, 1, op)
    if op[5:] in _ROW_EXPAND and len(t.shape) >= 2 and len(other.shape) >= 2:
        # tile_ops/broadcast.cpp DeduceTileRowExpandType: a column vector of the tile's rows
        if const_value(other.shape[-1]) != 1:
            raise DeductionError(f"The operator {op} requires second argument's last dimension to be 1, but got "
                                 f"{_shape_text(other.shape)}")
        matching_extents(op, "row dimensions", t.shape[-2], other.shape[-2], "tile rows", "row_vec rows")
    return _Res(tuple(t.shape), promote_dtype(t.dtype, other.dtype), _lay(t))


@_rule("row_expand_add")
def _r_row_expand_add(op, args, kwargs):
    t = _need_tile(args, 0, op)
    if effective_view(t).blayout != "row_major":
        raise DeductionError("row_expand_add: tile must be row_major")
    return _like(t)


# ---------------------------------------------------------------- 3.6 reductions

def check_reduction_non_empty(op: str, valid) -> None:
    """CheckReductionInputNonEmpty (type_inference.cpp:471-481): a provably empty axis."""
    for i, v in enumerate(valid):
        if prove_zero(v):
            raise DeductionError(f"{op}: input valid extent on axis {i} is 0 (valid_shape {_shape_text(valid)}), so the "
                                 "reduction has no real data to consume. The backend reduction kernels require a "
                                 "non-empty valid region on every axis and assert on an empty one, and an empty "
                                 "region also leaves max/min with no value to return. Widen the valid region, or "
                                 "guard the reduction so it does not run when the axis can be empty.")


# the row reductions whose deducer checks that the scratch tile covers the input
_SCRATCH_COVERS_INPUT = frozenset({"row_sum", "row_max", "row_min"})


@_rule(*_ROW_RED)
def _r_row_red(op, args, kwargs):
    x = _need_tile(args, 0, op)
    tmp = args[1].tile if len(args) > 1 and op[len("tile."):] in _SCRATCH_COVERS_INPUT else None
    if tmp is not None and len(tmp.shape) == len(x.shape):
        # the reduction's scratch tile covers the input (tile_ops/reduction.cpp)
        for i, (t, d) in enumerate(zip(tmp.shape, x.shape)):
            if type(t) is ir.IntConst and type(d) is ir.IntConst and t.value < d.value:
                raise DeductionError(f"The operator {op} requires tmp_tile shape to be at least the input shape in "
                                     f"every dimension, but tmp_tile dimension {i} is undersized; got tmp_tile shape "
                                     f"{_shape_text(tmp.shape)} and input shape {_shape_text(x.shape)}")
    if op == "tile.row_min":
        e = effective_view(x)
        if e.blayout != "row_major" or e.slayout != "none_box":
            raise DeductionError("row_min: input must be row_major/none_box")
    vs = valid_shape_of(x)
    check_reduction_non_empty(op, vs)
    dtype = "INT32" if op.endswith(("argmax", "argmin")) else norm_dtype(x.dtype)
    return _Res(tuple(x.shape[:-1]) + (_c(1),), dtype,
                fresh_view(tuple(vs[:-1]) + (_c(1),), blayout="col_major"))


@_rule(*_COL_RED)
def _r_col_red(op, args, kwargs):
    x = _need_tile(args, 0, op)
    vs = valid_shape_of(x)
    check_reduction_non_empty(op, vs)
    dtype = "INT32" if op.endswith(("argmax", "argmin")) else norm_dtype(x.dtype)
    return _Res((_c(1),) + tuple(x.shape[1:]), dtype,
                fresh_view((_c(1),) + tuple(vs[1:]), blayout="row_major"))
