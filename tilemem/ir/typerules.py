"""Result-type rules of the ``tile.*`` ops (spec: typerules.md, tileview.md §5-§8).

This module holds the per-op type rules (they name the ops they type, by design); the
symbolic arithmetic they compute with is :mod:`tilemem.ir.symbolic`, and where an op's
result lives (the registry's stamp) is the op table's (:mod:`tilemem.ir.optable`).

After InferTileMemorySpace retypes a var or swaps an argument for a moved copy, PyPTO
re-creates the consumer Call through ``OpRegistry::Create``: the op's deducer computes a
TileType from the arguments' NEW types, the registry stamps the memory space, and the pass
syncs the LHS annotation to that type (keeping the LHS's resolved space).  This module
re-derives that final LHS annotation.

Entry points
------------
``derive_result_type(op, args, kwargs, lhs_space=None, lhs_memref=None)``
    The LHS annotation of ``lhs = op(args..., **kwargs)`` after re-deduction, or None when the
    op's result is not a tile derived here (caller keeps the written type).  ``args`` is the
    list of positional arguments, each an ``ArgInfo(expr, type)`` (or a bare ``ir.TileType`` /
    ``ir.Type`` / ``ir.Expr``, wrapped automatically).  ``kwargs`` maps keyword name -> ir.Expr
    (``attrs`` is ignored).  Raises ``DeductionError`` where PyPTO's deducer throws.
``derive_call_type(call, type_of, lhs_space=None, lhs_memref=None)``
    Same for an ``ir.Call``; ``type_of(name) -> ir.Type | None`` resolves Name arguments.
``retargeted_type(written, new_space, lhs_space=None)``
    LHS type of a retargeted ``tile.load`` / ``tile.create`` (result collapses to the
    implicit view of the new space).

Which calls to re-derive (typerules.md §1): PyPTO re-creates every tile call that takes a
tile Var/IterArg defined in the InCore body.  Calls whose args are only tensors / scalars /
tuples (tile.load, tile.create, full, ci, tri, random, Mat-mode mgather, pld.tile.*) keep the
parser-merged type: do NOT re-derive them (use ``views.retype`` or ``retargeted_type``).
Rules for load/create/full/... exist here anyway (tests and completeness).

Known gaps
----------
* Symbolic arithmetic is a small simplifier, not PyPTO's arith analyzer: constants fold,
  ``max(a, b) - b -> max(a - b, 0)`` (verified), ``min/max`` resolved when provable by interval
  bounds (vars are unbounded), ``ceil(n/8) -> (n + 7) // 8`` (verified).  Other symbolic forms
  (``x - c``, the load clamp ``min(max(v - o, 0), w)``, aiv_shard ``x // 2``) are unverified.
* Vars are compared by printed name.  PyPTO prints a var inside a TYPE by its name hint while the
  same var as an argument may carry the printer's de-dup suffix (``gather_lv`` vs
  ``gather_lv_1``): a type derived from the argument text then carries the suffixed name.
* Layout/dtype checks that make PyPTO throw are modelled only where listed in typerules.md §7
  (plus broadcast, cast-to-same, fillpad null, move into a scale space); other validations
  (dtype whitelists, matmul K mismatch, ...) are not checked.
* reinterpret_view with an explicit shape rescales the valid shape on the contiguous axis only.
"""
from __future__ import annotations

from typing import Callable, Mapping, Optional, Sequence

from tilemem import ir
from tilemem.ir.optable import output_rule
from tilemem.ir.symbolic import (
    finalize_dims as _fin, finalize_expr, int_const as _c, prove_eq, prove_le, prove_zero, s_add,
    s_ceildiv, s_floordiv, s_max, s_min, s_mul, s_sub,
)
from tilemem.ir.views import (
    DeductionError, EffectiveView, build_result_type, const_value, dtype_bits, dtype_bytes,
    effective_view, expr_lists_equal, exprs_equal, fresh_view, implicit_layout, implicit_type,
    is_float, norm_dtype, norm_layout, norm_pad, norm_space, promote_dtype, shape_layout,
    stored_view, valid_shape_of,
)
from tilemem.records import Record, record, replace

__all__ = [
    "ArgInfo", "DeductionError", "derive_result_type", "derive_call_type", "retargeted_type",
    "move_result_type", "normalize_op",
    # sub-rules shared by several ops
    "window_read", "write_union", "reshape_valid", "check_window_bounds", "check_write_bounds",
    "check_gather_row_operands", "shape_text", "gather_compare_extents", "reinterpret_extents", "static_size",
]


@record(frozen=True)
class ArgInfo(Record):
    """One positional argument of a call.

    ``expr``: the argument as written (Name, constant, ListExpr of dims, ...).
    ``type``: its type when known — the (already retyped) ``ir.TileType`` of a tile var or
    moved var, a ``TensorType``, or a ``ScalarType`` for a scalar var.  Constants need no
    type (their dtype is read from the expression).
    """
    def __init__(self, expr: Optional[ir.Expr] = None, type: Optional[ir.Type] = None):
        self.expr, self.type = expr, type

    @property
    def tile(self) -> Optional[ir.TileType]:
        return self.type if isinstance(self.type, ir.TileType) else None


def _wrap(a) -> ArgInfo:
    if isinstance(a, ArgInfo):
        return a
    if isinstance(a, ir.Type):
        return ArgInfo(None, a)
    if isinstance(a, ir.Expr):
        return ArgInfo(a, None)
    if isinstance(a, (list, tuple)):
        return ArgInfo(ir.ListExpr(tuple(_as_expr(x) for x in a)), None)
    if isinstance(a, (int, float)):
        return ArgInfo(_as_expr(a), None)
    if a is None:
        return ArgInfo(None, None)
    raise TypeError(f"bad argument {a!r}")


def _as_expr(x) -> ir.Expr:
    if isinstance(x, ir.Expr):
        return x
    if isinstance(x, bool):
        return ir.BoolConst(x)
    if isinstance(x, int):
        return ir.IntConst(x)
    if isinstance(x, float):
        return ir.FloatConst(repr(x))
    raise TypeError(x)


# ============================================================================ shared sub-rules


def bcast(a: Sequence, b: Sequence) -> tuple:
    """Right-aligned NumPy broadcast (type_inference.cpp:43-106)."""
    out = []
    n = max(len(a), len(b))
    for i in range(1, n + 1):
        da = a[-i] if i <= len(a) else None
        db = b[-i] if i <= len(b) else None
        if da is None:
            out.append(db)
        elif db is None:
            out.append(da)
        elif exprs_equal(da, db) or prove_eq(da, db):
            out.append(da)
        elif const_value(da) == 1:
            out.append(db)
        elif const_value(db) == 1:
            out.append(da)
        else:
            raise DeductionError(f"cannot broadcast {da!r} with {db!r}")
    return tuple(reversed(out))


def window_read(phys: Sequence, src_valid: Sequence, offsets: Sequence, window: Sequence,
                request: Optional[Sequence] = None) -> tuple:
    """typerules.md §2.1 (slice, extract).  Returns the valid shape (computation form)."""
    out = []
    for i, w in enumerate(window):
        if i >= len(phys):
            out.append(request[i] if request is not None else w)
            continue
        sv, p = src_valid[i], phys[i]
        o = offsets[i] if i < len(offsets) else _c(0)
        if exprs_equal(sv, p):
            avail = w
        else:
            rem = sv if prove_zero(o) else s_sub(s_max(sv, o), o)
            if prove_le(rem, w):
                avail = rem
            elif prove_le(w, rem):
                avail = w
            else:
                avail = s_min(rem, w)
        if request is None:
            out.append(avail)
        else:
            r = request[i]
            out.append(avail if (not exprs_equal(avail, w) and prove_le(avail, r)) else r)
    return tuple(out)


def _integer_dim(e) -> bool:
    """An extent the bounds proofs reason about (IsIntegerScalarExpr): not a float literal."""
    return e is not None and type(e) not in (ir.FloatConst, ir.BoolConst, ir.StrConst, ir.NoneConst)


def _provably_less(a, b) -> bool:
    """``a < b`` for every value of its symbols (integers: ``a + 1 <= b``); a relation that
    stays symbolic is not disproved."""
    return _integer_dim(a) and _integer_dim(b) and prove_le(s_add(a, _c(1)), b)


def _shown(e) -> str:
    """An extent as PyPTO's PythonPrint shows it in a message: a var by its name (the DSL
    reader's ``hint#serial`` keys by the hint), an INDEX constant bare (no ``pl.const``)."""
    from tilemem.ir.printer import print_expr
    return print_expr(message_form(e))


def message_form(e):
    """``e`` as a message prints it (see _shown)."""
    from tilemem.ir.names import rename_expr
    keys = {x.id: x.id.split("#", 1)[0] for x in ir.subexpressions(e) if type(x) is ir.Name and "#" in x.id}
    if keys:
        e = rename_expr(e, keys)
    return _bare_index_consts(e)


def _bare_index_consts(e):
    t = type(e)
    if t is ir.Call and e.func == "pl.const" and len(e.args) == 2 and type(e.args[0]) is ir.IntConst \
            and type(e.args[1]) is ir.Dotted and e.args[1].parts[-1] == "INDEX":
        return e.args[0]
    if t is ir.BinOp:
        return replace(e, left=_bare_index_consts(e.left), right=_bare_index_consts(e.right))
    if t is ir.UnaryOp:
        return replace(e, operand=_bare_index_consts(e.operand))
    if t is ir.Call:
        return replace(e, args=tuple(_bare_index_consts(a) for a in e.args))
    return e


def check_window_bounds(op: str, phys: Sequence, offsets: Sequence, window: Sequence,
                        request: Optional[Sequence], clamped: bool, clamp: bool = False,
                        remedy: str = "") -> None:
    """type_inference.cpp CheckWindowReadDimBounds: a window starts inside its source, an
    explicit valid_shape fits its window, and (unless the read clamps) the extent it reads
    ends inside the source.  ``clamped``: kClampedWindow (tile.load: the requested extent
    must fit), else kExactWindow (the whole window).  What is not provably wrong passes."""
    if len(phys) != len(window) or len(offsets) != len(window):
        return
    for i, w in enumerate(window):
        o, src = offsets[i], phys[i]
        if _provably_less(o, _c(0)):
            raise DeductionError(f"{op} offset {i} is provably negative ({_shown(o)}); a window must "
                                 f"start inside its source")
        r = request[i] if request is not None and i < len(request) else None
        if r is not None and _provably_less(w, r):
            raise DeductionError(f"{op} valid_shape {i} is {_shown(r)}, which exceeds the window extent "
                                 f"{_shown(w)}; a valid region cannot be larger than the shape that holds it")
        reach = r if clamped and r is not None else w
        if not clamp and _integer_dim(o) and _integer_dim(reach) and _provably_less(src, s_add(o, reach)):
            raise DeductionError(f"{op} reads past the end of dimension {i}: offset {_shown(o)} + extent "
                                 f"{_shown(reach)} exceeds the source extent {_shown(src)}." + (f" {remedy}" if remedy else ""))


def check_write_bounds(op: str, phys: Sequence, offsets: Sequence, reach: Sequence, remedy: str = "") -> None:
    """type_inference.cpp CheckWriteDimBounds: a write starts inside its target and the
    extent it touches (``reach``: the source's physical shape for an exact subview, its
    valid shape for a valid-region transfer) ends inside it."""
    if len(phys) != len(reach) or len(offsets) != len(reach):
        return
    for i, r in enumerate(reach):
        o, tgt = offsets[i], phys[i]
        if _provably_less(o, _c(0)):
            raise DeductionError(f"{op} offset {i} is provably negative ({_shown(o)}); a write must start "
                                 f"inside its target")
        if _integer_dim(o) and _integer_dim(r) and _provably_less(tgt, s_add(o, r)):
            raise DeductionError(f"{op} writes past the end of dimension {i}: offset {_shown(o)} + extent "
                                 f"{_shown(r)} exceeds the target extent {_shown(tgt)}" + (f". {remedy}" if remedy else ""))


def _shape_text(dims: Sequence) -> str:
    """FormatShape: ``[a, b]`` with each extent as PyPTO prints it."""
    return "[" + ", ".join(_shown(d) for d in dims) + "]"


shape_text = _shape_text     # the front end's messages name shapes as the deducers do


def _dims_text(dims: Sequence[int]) -> str:
    """FormatDimensionList: ``0``, ``0 and 1``, ``0, 1 and 2``."""
    out = [str(d) for d in dims]
    return out[0] if len(out) == 1 else ", ".join(out[:-1]) + " and " + out[-1]


def write_union(phys: Sequence, tgt_valid: Sequence, src_valid: Sequence, offsets: Sequence,
                op: str) -> tuple:
    """The target's valid region after a write of ``src_valid`` at ``offsets``: one
    origin-anchored rectangle, or the write is rejected (typerules.md §2.2;
    type_inference.cpp InferWriteValidShapeUnion, in its order).  A growth must be
    provable, so what stays symbolic where a proof is needed is rejected as PyPTO does."""
    T, S, o, P = list(tgt_valid), list(src_valid), list(offsets), list(phys)
    if len(o) != len(P):
        raise DeductionError(f"{op} requires one offset per target dimension, but got {len(o)} offsets "
                             f"for target rank {len(P)}")
    if len(S) != len(T) or len(T) != len(P):
        return tuple(T)         # a valid_shape of another rank: the type's own check rejects it
    # an empty written region leaves the target as it was
    if any(prove_zero(s) for s in S):
        return tuple(T)
    # an empty target holds nothing: the written region alone, if it starts at the origin
    for i, t in enumerate(T):
        if prove_zero(t):
            if not all(prove_zero(x) for x in o):
                raise DeductionError(
                    f"{op} writes at offset {_shape_text(o)} into a target whose valid region is empty "
                    f"(dimension {i} has extent 0), which would leave a region that does not start at the "
                    f"origin. A valid shape names one origin-anchored rectangle, so initialize an empty "
                    f"target at offset 0")
            return tuple(S)
    # a fully valid target stays fully valid (the write bounds are its containment proof)
    if expr_lists_equal(T, P) or all(prove_eq(t, p) for t, p in zip(T, P)):
        return tuple(T)
    # the dims the write may push past the target's valid region
    far = [S[i] if prove_zero(o[i]) else s_add(o[i], S[i]) for i in range(len(T))]
    growing = [i for i in range(len(T)) if not prove_le(far[i], T[i])]
    if not growing:
        return tuple(T)
    # an origin-anchored write that covers the target stands alone
    if all(prove_zero(x) for x in o) and all(prove_le(T[i], S[i]) for i in range(len(T))):
        return tuple(S)
    # otherwise only a growth along one axis that abuts the region and spans every other
    # axis exactly is one rectangle
    if len(growing) != 1:
        raise DeductionError(
            f"{op} grows the valid region along dimensions {_dims_text(growing)} at once, whose union with "
            f"the target is an L-shape rather than one origin-anchored rectangle. Target valid "
            f"{_shape_text(T)}, writing {_shape_text(S)} at offset {_shape_text(o)}")
    d = growing[0]
    if not prove_le(o[d], T[d]):
        raise DeductionError(
            f"{op} leaves a gap in dimension {d}: the write starts at {_shown(o[d])}, which is not provably "
            f"at or before the target valid extent {_shown(T[d])}. A valid shape names one contiguous "
            f"origin-anchored rectangle, so a write that grows it must abut the region already there")
    for i in range(len(T)):
        if i == d:
            continue
        if not prove_zero(o[i]):
            raise DeductionError(
                f"{op} grows dimension {d}, so it must span dimension {i} from the origin, but it starts at "
                f"{_shown(o[i])}. The added region would be narrower than the region it extends, making the "
                f"union an L-shape")
        if not prove_eq(S[i], T[i]):
            raise DeductionError(
                f"{op} grows dimension {d}, so its extent in dimension {i} ({_shown(S[i])}) must provably "
                f"equal the target valid extent ({_shown(T[i])}). The added region would otherwise not line "
                f"up with the region it extends, making the union an L-shape")
    T[d] = s_min(s_max(T[d], far[d]), P[d])
    return tuple(T)


def _prod(dims) -> Optional[int]:
    v = 1
    for d in dims:
        c = const_value(d)
        if c is None:
            return None
        v *= c
    return v


def reshape_valid(src_shape: Sequence, src_valid: Sequence, new_shape: Sequence, row_major: bool) -> tuple:
    """typerules.md §2.3."""
    if expr_lists_equal(src_valid, src_shape):
        return tuple(new_shape)
    if any(prove_zero(v) for v in src_valid):
        return tuple(_c(0) for _ in new_shape)
    # pure rank change over full unit axes
    s_non = [i for i, d in enumerate(src_shape) if const_value(d) != 1]
    n_non = [i for i, d in enumerate(new_shape) if const_value(d) != 1]
    if (len(s_non) == len(n_non) and all(exprs_equal(src_shape[i], new_shape[j]) for i, j in zip(s_non, n_non))
            and all(const_value(src_valid[i]) == 1 for i, d in enumerate(src_shape) if const_value(d) == 1)):
        out = [_c(1)] * len(new_shape)
        for i, j in zip(s_non, n_non):
            out[j] = src_valid[i]
        return tuple(out)
    if not row_major:
        raise DeductionError("reshape: partially valid source is not row-major")
    f = 0
    while f < len(src_valid) and const_value(src_valid[f]) == 1:
        f += 1
    if f == len(src_valid):
        return tuple(_c(1) for _ in new_shape)
    for i in range(f + 1, len(src_valid)):
        if not exprs_equal(src_valid[i], src_shape[i]):
            raise DeductionError("reshape: valid region is not a row-major prefix")
    trail = _prod(src_shape[f + 1:])
    if trail is None:
        raise DeductionError("reshape: symbolic source shape")
    vf = const_value(src_valid[f])
    if vf is None:
        for i in range(len(new_shape)):
            t = _prod(new_shape[i + 1:])
            if t == trail:
                return tuple([_c(1)] * i + [src_valid[f]] + list(new_shape[i + 1:]))
        raise DeductionError("reshape: symbolic valid extent cannot be mapped")
    prefix = vf * trail
    for i in range(len(new_shape)):
        t = _prod(new_shape[i + 1:])
        si = const_value(new_shape[i])
        if t is None or si is None or t == 0:
            continue
        if prefix % t == 0 and prefix // t <= si:
            return tuple([_c(1)] * i + [_c(prefix // t)] + list(new_shape[i + 1:]))
    raise DeductionError("reshape: valid prefix cannot be mapped")


def acc_compact(valid_rows, rows) -> str:
    """typerules.md §2.4: compact normal iff valid rows are not provably equal to rows
    (constants only; a symbolic extent counts as unproven)."""
    a, b = const_value(valid_rows), const_value(rows)
    return "null" if (a is not None and b is not None and a == b) else "normal"


# ============================================================================ op families
#
# Which deducer types which op: the families of the type rules below (by design, the
# per-op rules name the ops they type).  Where an op's result lives (the registry's
# stamp) is not here: it is the op table's output rule (tilemem.ir.optable).

_BINARY = {"add", "sub", "mul", "maximum", "minimum", "part_add", "part_mul", "part_max", "part_min",
           "fmod", "and", "or", "rem", "xor"}
_TILE_SCALAR = {"muls", "adds", "divs", "fmods", "maximums", "minimums", "lrelu", "subs", "shls", "shrs",
                "ands", "ors", "xors"}
_UNARY = {"neg", "exp", "sqrt", "abs", "relu", "recip", "log", "sin", "cos", "rsqrt", "not"}
_ROW_EXPAND = {"row_expand", "row_expand_sub", "row_expand_div", "row_expand_mul", "row_expand_max",
               "row_expand_min", "row_expand_expdif"}
_COL_EXPAND = {"col_expand", "col_expand_mul", "col_expand_add", "col_expand_div", "col_expand_sub",
               "col_expand_max", "col_expand_min", "col_expand_expdif"}
_ROW_RED = {"row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin"}
_COL_RED = {"col_sum", "col_max", "col_min", "col_prod", "col_argmax", "col_argmin"}

def normalize_op(op: str) -> str:
    """``pl.tile.and_`` / ``tile.and`` / ``and`` -> ``tile.and``."""
    if op.startswith("pl."):
        op = op[3:]
    if "." not in op:
        op = "tile." + op
    head, _, last = op.rpartition(".")
    if last.endswith("_") and last[:-1] in ("and", "or", "not", "xor", "in", "is"):
        op = head + "." + last[:-1]
    return op


# ============================================================================ argument helpers


def _list_items(e) -> Optional[tuple]:
    if isinstance(e, (ir.ListExpr, ir.TupleExpr)):
        return tuple(e.items)
    return None


def _dims(e, what="shape") -> tuple:
    items = _list_items(e)
    if items is None:
        # a runtime tuple var (TupleGetItem dims) or something unmodelled
        raise _Unknown(f"expected a {what} tuple, got {e!r}")
    return tuple(_norm_dim(d) for d in items)


def _norm_dim(d):
    c = const_value(d)
    if c is not None and isinstance(d, ir.IntConst):
        return d
    if c is not None and isinstance(d, ir.Call):
        # pl.const(v, pl.INDEX) written as a dim: a ConstInt
        return _c(c)
    return d


def _kw_int(kwargs, key, default=None) -> Optional[int]:
    v = kwargs.get(key)
    if v is None:
        return default
    if isinstance(v, ir.BoolConst):
        return int(v.value)
    c = const_value(v)
    if c is not None:
        return c
    return default


def _kw_bool(kwargs, key, default=False) -> bool:
    v = kwargs.get(key)
    if v is None:
        return default
    if isinstance(v, ir.BoolConst):
        return v.value
    c = const_value(v)
    return bool(c) if c is not None else default


def _kw_enum(kwargs, key) -> Optional[str]:
    v = kwargs.get(key)
    if v is None or isinstance(v, ir.NoneConst):
        return None
    if isinstance(v, (ir.Dotted, ir.Name, ir.StrConst)):
        return v.parts[-1] if isinstance(v, ir.Dotted) else (v.id if isinstance(v, ir.Name) else v.value)
    return None


def _scalar_dtype(a: ArgInfo) -> Optional[str]:
    """dtype of a scalar operand (typerules.md §0)."""
    if isinstance(a.type, ir.ScalarType):
        return norm_dtype(a.type.dtype)
    e = a.expr
    if isinstance(e, ir.FloatConst):
        return "FP32"
    if isinstance(e, ir.BoolConst):
        return "BOOL"
    if isinstance(e, ir.IntConst):
        return "INDEX"
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        return _scalar_dtype(ArgInfo(e.operand, None))
    if isinstance(e, ir.Call) and e.func == "pl.const" and len(e.args) == 2:
        return norm_dtype(e.args[1])
    if isinstance(e, ir.Call) and e.func == "pl.cast" and len(e.args) == 2:
        return norm_dtype(e.args[1])
    return None


def _need_scalar_dtype(args, i) -> str:
    """The dtype of scalar operand ``i``; an unknown one leaves the result underived."""
    sd = _scalar_dtype(args[i]) if len(args) > i else None
    if sd is None:
        raise _Unknown("scalar dtype unknown")
    return sd


def _need_tile(args, i, op) -> ir.TileType:
    if i >= len(args) or args[i].tile is None:
        raise _Unknown(f"{op}: argument {i} is not a tile with a known type")
    return args[i].tile


class _Unknown(Exception):
    """Not enough information to derive (derive_result_type returns None)."""


def _need_kwarg(kwargs, key: str, name: str) -> ir.Expr:
    """Keyword argument ``key`` of op ``name``; without it the result is left underived."""
    v = kwargs.get(key)
    if v is None:
        raise _Unknown(f"{name} without {key}")
    return v


def _lay(t: ir.TileType, valid=None) -> EffectiveView:
    """FRESH view with valid = VS(t) (or ``valid``) and LAY(t) (blayout/slayout/pad/compact
    of E(t); fractal 512)."""
    e = effective_view(t)
    return fresh_view(valid if valid is not None else valid_shape_of(t),
                      blayout=e.blayout, slayout=e.slayout, pad=e.pad, compact=e.compact)


def _like(t: ir.TileType) -> "_Res":
    """A result of the tile's shape, dtype and view (the deducer copies its input)."""
    return _Res(tuple(t.shape), norm_dtype(t.dtype), _lay(t))


def _like_arg(i: int):
    """The rule of an op whose result copies the tile at argument ``i`` (see :func:`_like`)."""
    return lambda op, args, kwargs: _like(_need_tile(args, i, op))


def _first_space(args) -> Optional[str]:
    for a in args:
        if a.tile is not None and a.tile.space is not None:
            return norm_space(a.tile.space)
    return None


# ============================================================================ main entry


def derive_result_type(op: str, args: Sequence, kwargs: Optional[Mapping[str, ir.Expr]] = None,
                       lhs_space=None, lhs_memref=None, backend_layout=None,
                       scope_split: Optional[ir.Expr] = None) -> Optional[ir.Type]:
    """Re-derive the LHS annotation of ``lhs = op(*args, **kwargs)`` (typerules.md §1 steps 1-4).

    ``op``: registered name (``tile.add``; ``pl.tile.add`` / ``pl.tile.and_`` accepted).
    ``args``: positional args as ``ArgInfo`` (or TileType / Type / Expr, auto-wrapped).
    ``kwargs``: keyword args as written (ir exprs), ``attrs`` ignored.  For tile.move the
    layout kwargs the pass chose (the rules' ``move_blayout``/``move_slayout``) must be
    included.  ``scope_split``: the mode of the enclosing ``pl.split_aiv`` scope, if any
    (inside it the printer leaves out the shard ops' ``split=``; their rule reads it).
    ``lhs_space``: the LHS Var's resolved space (the final canonicalisation is against it;
    None = keep the call's space).  ``lhs_memref``: the LHS's memref, used when the deduced
    type has none.  ``backend_layout`` is accepted for API symmetry and ignored (layout
    kwargs arrive on the move call itself).

    Returns an ``ir.TileType`` (``ir.TupleType`` for gather_compare), or None when the op's
    result is not a tile (store, read, tpop, ...) or cannot be derived (unknown op, missing
    argument types).  Raises ``DeductionError`` where PyPTO's deducer throws.
    """
    op = normalize_op(op)
    args = [_wrap(a) for a in args]
    kwargs = {k: v for k, v in (kwargs or {}).items() if k != "attrs"}
    if scope_split is not None and kwargs.get("split") is None:
        kwargs["split"] = scope_split          # read by the rules of the ops that take split=
    if not op.startswith("tile."):
        return None
    fn = _RULES.get(op[5:])
    if fn is None:
        return None
    try:
        res = fn(op, args, kwargs)
    except _Unknown:
        return None
    except DeductionError:
        raise
    except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
        # malformed / unmodelled arguments: the caller keeps the written type
        return None
    if res is None:
        return None
    if isinstance(res, ir.TupleType):
        return res
    return _finish(op, args, kwargs, res, lhs_space, lhs_memref)


@record(extras=True)
class _Res(Record):
    def __init__(
            self,
            shape: tuple,
            dtype: str,
            view: Optional[EffectiveView],
            space: Optional[str] = None,          # deducer space (None = unset)
            memref: Optional[ir.Expr] = None,
            stamp: Optional[str] = "<registry>",  # override of the registry stamp ("<registry>" = by rule)
    ):
        self.shape, self.dtype, self.view = shape, dtype, view
        self.space, self.memref, self.stamp = space, memref, stamp


def _stamp(op, args, kwargs) -> Optional[str]:
    """The space the registry stamps on the call's result: the op table's output rule."""
    rule = output_rule(op)
    if rule[0] == "fixed":
        return rule[1]
    if rule[0] == "kwarg":
        v = kwargs.get(rule[1])
        if v is not None and not isinstance(v, ir.NoneConst):
            return norm_space(v)
        if rule[2] is not None:
            return rule[2]
        return _first_space(args)
    if rule[0] == "inherit":
        return _first_space(args)
    return None


def _finish(op, args, kwargs, r: _Res, lhs_space, lhs_memref) -> ir.TileType:
    stamp = _stamp(op, args, kwargs) if r.stamp == "<registry>" else r.stamp
    return build_result_type(_fin(r.shape), r.dtype, _fin_view(r.view), deducer_space=r.space,
                             stamped_space=stamp, lhs_space=lhs_space, memref=r.memref,
                             lhs_memref=lhs_memref)


def _fin_view(v: Optional[EffectiveView]) -> Optional[EffectiveView]:
    if v is None:
        return None
    valid, stride = _fin(v.valid_shape), _fin(v.stride)
    offset = finalize_expr(v.start_offset) if v.start_offset is not None else None
    if valid is v.valid_shape and stride is v.stride and offset is v.start_offset:
        return v                    # already in printed form
    return replace(v, valid_shape=valid, stride=stride, start_offset=offset)


def derive_call_type(call: ir.Call, type_of: Callable[[str], Optional[ir.Type]], lhs_space=None,
                     lhs_memref=None, scope_split: Optional[ir.Expr] = None,
                     memo: Optional["CallTypes"] = None) -> Optional[ir.Type]:
    """``derive_result_type`` for an ``ir.Call``: Name args are typed by ``type_of(name)``,
    a nested call by its own deduced type (the printed text gives it no annotation).

    ``memo``: the types derived so far (one solve's :class:`CallTypes`): a call that is
    another's up to the names of its var arguments, with the same argument types (and
    ``lhs_space``, ``lhs_memref``, ``scope_split``), has its type."""
    op = call.op
    if op is None:
        return None
    types = []
    for a in call.args:
        if isinstance(a, ir.Name):
            types.append(type_of(a.id))
        elif isinstance(a, ir.Call) and a.op is not None:
            types.append(derive_call_type(a, type_of, memo=memo))
        else:
            types.append(None)
    key = None
    if memo is not None:
        key, renamed = memo.key(op, call, types, lhs_space, lhs_memref, scope_split)
        try:
            out = memo.results.get(key, memo)
        except TypeError:           # a node holding a list: no key
            key = None
        else:
            if out is not memo:
                return out
    out = derive_result_type(op, [ArgInfo(a, t) for a, t in zip(call.args, types)], dict(call.kwargs),
                             lhs_space=lhs_space, lhs_memref=lhs_memref, scope_split=scope_split)
    if key is not None and (not renamed or not _names_in(out, renamed)):
        memo.results[key] = out
    return out


class CallTypes:
    """The call types :func:`derive_call_type` derived in one solve, by what decides them.

    A call's derived type is a function of its op, its arguments as written and their
    types, its keyword arguments (``attrs`` aside: no rule reads them), ``lhs_space``,
    ``lhs_memref`` and ``scope_split``; nodes compare by value (their positions aside).
    The rules read a var argument's name only as an atom (they compare it with other
    expressions, or copy it into the result; its text decides nothing), so two calls
    that differ only in the names of such arguments -- ``tile.add(a, b)``,
    ``tile.add(c, d)`` with equal types -- have the same result up to those names.  The
    key writes a top-level Name argument as its place among the distinct names so
    written (renamed) when its name appears nowhere else in what the derivation reads
    (other arguments, keyword arguments, the arguments' types, the LHS memref, the
    split mode), and a result is kept only when no renamed name appears in it (then it
    is the result of every call of the same key).  A derivation that throws is not kept
    (it throws again, with its own names)."""
    __slots__ = ("results", "_seen", "_types")

    def __init__(self):
        self.results: dict = {}
        # id(type) -> (the type, the names in it or None, its number): a type is written
        # in a key as its number, the same for equal types (``_types``: type -> number)
        self._seen: dict = {}
        self._types: dict = {}

    def _type(self, t):
        got = self._seen.get(id(t))
        if got is None:
            names: Optional[set] = set()
            if not _type_names(t, names):
                names = None
            try:
                number = self._types.setdefault(t, len(self._types))
            except TypeError:       # a node holding a list: itself (no key is made)
                number = t
            got = self._seen[id(t)] = (t, names, number)
        return got

    def key(self, op: str, call: ir.Call, types: list, lhs_space, lhs_memref, scope_split):
        """(the key of this derivation or None when it has none, the names renamed in it)."""
        args = call.args
        kwargs = tuple([kv for kv in call.kwargs if kv[0] != "attrs"])
        numbers = []
        others: Optional[set] = set()
        for t in types:
            if t is None:
                numbers.append(None)
                continue
            _, names, number = self._type(t)
            numbers.append(number)
            if names is None:
                others = None
            elif others is not None and names:
                others |= names
        renamed: dict = {}
        if others is not None and any(a.__class__ is ir.Name for a in args):
            for a in args:
                if a.__class__ is not ir.Name and not _expr_names(a, others):
                    others = None
                    break
            if others is not None:
                for _, v in kwargs:
                    if not _expr_names(v, others):
                        others = None
                        break
            for e in (lhs_memref, scope_split):
                if e is not None and others is not None and not _expr_names(e, others):
                    others = None
            if others is not None:
                keyed = []
                for a in args:
                    if a.__class__ is ir.Name and a.id not in others:
                        keyed.append(renamed.setdefault(a.id, len(renamed)))
                    else:
                        keyed.append(a)
                args = tuple(keyed)
        return (op, args, kwargs, tuple(numbers), lhs_space, lhs_memref, scope_split), renamed


def _expr_names(e, out: set) -> bool:
    """Add every text ``e`` holds that could name something (Name ids, Dotted parts,
    string and float literals) to ``out``; False when ``e`` holds text not read (Opaque)."""
    c = e.__class__
    if c is ir.IntConst:            # (the commonest: without a walk)
        return True
    if c is ir.Name:
        out.add(e.id)
        return True
    if c is ir.Dotted:
        out.update(e.parts)
        return True
    for x in ir.subexpressions(e):
        c = x.__class__
        if c is ir.Name:
            out.add(x.id)
        elif c is ir.IntConst:
            pass
        elif c is ir.Dotted:
            out.update(x.parts)
        elif c is ir.StrConst:
            out.add(x.value)
        elif c is ir.FloatConst:
            out.add(x.text)
        elif c is ir.Opaque:
            return False
    return True


def _type_names(t, out: set) -> bool:
    """:func:`_expr_names` over the expressions of a type (its dims, view, memref)."""
    if isinstance(t, ir.TileType):
        exprs = [*t.shape, t.memref]
        v = t.view
        if v is not None:
            exprs += [*(v.valid_shape or ()), *(v.stride or ()), v.start_offset]
    elif isinstance(t, ir.TensorType):
        exprs = [*t.shape, t.view, t.memref]
    elif isinstance(t, ir.TupleType):
        return all(_type_names(x, out) for x in t.items)
    elif isinstance(t, ir.OpaqueType):
        exprs = [t.expr]
    elif isinstance(t, ir.ScalarType):
        return True
    else:
        return False
    return all(_expr_names(e, out) for e in exprs if e is not None)


def _names_in(t, names) -> bool:
    """Whether a derived type (or None) holds any of ``names`` (or text not read)."""
    if t is None:
        return False
    found: set = set()
    return not _type_names(t, found) or not found.isdisjoint(names)


def retargeted_type(written: ir.TileType, new_space, lhs_space=None) -> ir.TileType:
    """LHS type of a retargetable producer (tile.load / tile.create) whose ``target_memory``
    kwarg the pass sets to ``new_space`` (tileview.md §5): the call result is
    ``TileType(shape, dtype, memref, implicit view of new_space, new_space)`` and the LHS is
    synced to it (any partial valid_shape or layout of the written type is discarded)."""
    sp = norm_space(lhs_space) if lhs_space is not None else norm_space(new_space)
    return implicit_type(written.shape, written.dtype, written.memref, sp)


# ============================================================================ rules

_RULES: dict[str, Callable] = {}


def _rule(*names):
    def deco(fn):
        for n in names:
            _RULES[n] = fn
        return fn
    return deco


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
        tr, rr = const_value(t.shape[-2]), const_value(other.shape[-2])
        if tr is not None and rr is not None and tr != rr:
            raise DeductionError(f"The operator {op} requires matching row dimensions, but got tile rows={tr} "
                                 f"and row_vec rows={rr}")
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


@_rule(*_ROW_RED)
def _r_row_red(op, args, kwargs):
    x = _need_tile(args, 0, op)
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


# ---------------------------------------------------------------- 3.7 matmul family

def _acc_dtype(a, b) -> str:
    return "FP32" if (is_float(a) and is_float(b)) else "INT32"


def _acc_view(valid, compact="null") -> EffectiveView:
    return fresh_view(valid, blayout="col_major", slayout="row_major", fractal=1024, compact=compact)


def _product(lhs: ir.TileType, rhs: ir.TileType, op: Optional[str] = None):
    """(shape, valid) of lhs @ rhs; with ``op``, PyPTO's checks of the operands first
    (DeduceMatmulProductInfo, tile_ops/matmul.cpp), on what is constant."""
    if len(lhs.shape) != 2 or len(rhs.shape) != 2:
        raise DeductionError("matmul operands must be 2-D")
    shape = (lhs.shape[0], rhs.shape[1])
    valid = (valid_shape_of(lhs)[0], valid_shape_of(rhs)[1])
    if op is not None:
        kl, kr = const_value(lhs.shape[1]), const_value(rhs.shape[0])
        if kl is not None and kr is not None and kl != kr:
            raise DeductionError(f"The operator {op} requires matching physical inner dimensions (physical K), "
                                 f"but got lhs K={kl} and rhs K={kr}")
        vl, vr = const_value(valid_shape_of(lhs)[1]), const_value(valid_shape_of(rhs)[0])
        if vl is not None and vr is not None and vl > vr:
            raise DeductionError(f"The operator {op} requires rhs valid K to cover lhs valid K, but got "
                                 f"lhs K={vl} and rhs K={vr}")
        if norm_dtype(lhs.dtype) != norm_dtype(rhs.dtype):
            raise DeductionError(f"The operator {op} requires identical lhs and rhs data types, but got "
                                 f"{_dt_text(lhs.dtype)} and {_dt_text(rhs.dtype)}")
    return shape, valid


def _dt_text(dtype) -> str:
    """DataType::ToString, for messages (bfloat16, fp32, int8)."""
    d = norm_dtype(dtype)
    return "bfloat16" if d == "BF16" else d.lower()


def _covers(op: str, what: str, acc_dim, dim, acc_name: str, name: str) -> None:
    """matmul_acc: the accumulator's valid extent covers the product's (constants only)."""
    a, p = const_value(acc_dim), const_value(dim)
    if a is not None and p is not None and p > a:
        raise DeductionError(f"The operator {op} requires acc valid {what} to cover {name} valid {what}, but got "
                             f"acc {what}={a} and {name} {what}={p}")


def _check_bias(op: str, rhs: ir.TileType, bias: Optional[ir.TileType]) -> None:
    """DeduceTileMatMulBiasType (tile_ops/matmul.cpp): the bias is one broadcast row [1, N]
    of the output's N (its dtype: dtypes.txt)."""
    if bias is None:
        return
    if len(bias.shape) != 2:
        raise DeductionError(f"The operator {op} requires bias to be 2D, but got {len(bias.shape)} dimensions")
    if not (type(bias.shape[0]) is ir.IntConst and bias.shape[0].value == 1):
        raise DeductionError(f"The operator {op} requires bias to have shape [1, N], but got "
                             f"{_shape_text(bias.shape)}")
    bn, rn = (d.value if type(d) is ir.IntConst else None for d in (bias.shape[1], rhs.shape[-1]))
    if bn is not None and rn is not None and bn != rn:
        raise DeductionError(f"The operator {op} requires bias N dimension to match output N={rn}, but got "
                             f"bias N={bn}")


@_rule("matmul_bias")
def _r_matmul_bias(op, args, kwargs):
    if len(args) > 2 and args[1].tile is not None:
        _check_bias(op, args[1].tile, args[2].tile)
    return _r_matmul(op, args, kwargs)


@_rule("gemv_bias")
def _r_gemv_bias(op, args, kwargs):
    if len(args) > 2 and args[1].tile is not None:
        _check_bias(op, args[1].tile, args[2].tile)
    return _r_gemv(op, args, kwargs)


@_rule("matmul")
def _r_matmul(op, args, kwargs):
    lhs, rhs = _need_tile(args, 0, op), _need_tile(args, 1, op)
    shape, valid = _product(lhs, rhs, op)
    view = _acc_view(valid, acc_compact(valid[0], shape[0]))
    return _Res(shape, _acc_dtype(lhs.dtype, rhs.dtype), view, space="Acc")


@_rule("matmul_acc")
def _r_matmul_acc(op, args, kwargs):
    acc = _need_tile(args, 0, op)
    lhs, rhs = args[1].tile if len(args) > 1 else None, args[2].tile if len(args) > 2 else None
    if lhs is not None and rhs is not None and len(acc.shape) == 2:
        shape, valid = _product(lhs, rhs, op)          # DeduceTileMatMulAccType (tile_ops/matmul.cpp)
        for i, what in ((0, "M"), (1, "N")):
            a, p = const_value(acc.shape[i]), const_value(shape[i])
            if a is not None and p is not None and a != p:
                raise DeductionError(f"The operator {op} requires matching physical {what} dimensions, but got "
                                     f"acc {what}={a} and product {what}={p}")
        _covers(op, "M", valid_shape_of(acc)[0], valid[0], "acc", "lhs")
        _covers(op, "N", valid_shape_of(acc)[1], valid[1], "acc", "rhs")
        want = _acc_dtype(lhs.dtype, rhs.dtype)
        if norm_dtype(acc.dtype) != want:
            raise DeductionError(f"The operator {op} requires accumulator dtype {_dt_text(want)}, but got "
                                 f"{_dt_text(acc.dtype)}")
    view = _acc_view(valid_shape_of(acc), effective_view(acc).compact)
    return _Res(tuple(acc.shape), norm_dtype(acc.dtype), view, space="Acc")


@_rule("gemv", "gemv_acc")
def _r_gemv(op, args, kwargs):
    k = 1 if op == "tile.gemv_acc" else 0
    acc = _need_tile(args, 0, op) if k else None
    if acc is not None and len(acc.shape) != 2:      # DeduceTileGemvAccType (matmul.cpp:347-384)
        raise DeductionError(f"The operator {op} requires acc to be 2D, but got {len(acc.shape)} dimensions")
    lhs, rhs = _need_tile(args, k, op), _need_tile(args, k + 1, op)
    _product(lhs, rhs, op)      # DeduceTileGemvType runs DeduceTileMatMulType's checks (matmul.cpp:336-345)
    dtype = "INT32" if norm_dtype(lhs.dtype) == "INT8" else "FP32"
    # BuildGemvResultType (matmul.cpp:307-334)
    if const_value(lhs.shape[0]) != 1:
        raise DeductionError(f"GEMV requires lhs physical row extent to be exactly 1, but got shape "
                             f"{_shape_text(lhs.shape)}")
    lv, rv = valid_shape_of(lhs), valid_shape_of(rhs)
    if not prove_eq(lv[0], _c(1)):
        raise DeductionError(f"GEMV requires lhs logical row extent to be exactly 1, but got valid_shape "
                             f"{_shape_text(lv)}")
    if _provably_less(rv[0], lv[1]):
        raise DeductionError(f"GEMV requires rhs logical K to cover lhs logical K, but got lhs K={_shown(lv[1])} "
                             f"and rhs K={_shown(rv[0])}")
    shape = (_c(16), rhs.shape[-1])
    valid = (lv[0], rv[-1])
    if acc is not None:
        for ax in (0, 1):
            a, e = const_value(acc.shape[ax]), const_value(shape[ax])
            if a is not None and e is not None and a != e:
                raise DeductionError(f"The operator {op} requires accumulator physical shape {_shape_text(shape)}, "
                                     f"but got {_shape_text(acc.shape)}")
        if norm_dtype(acc.dtype) != dtype:
            raise DeductionError(f"The operator {op} requires accumulator dtype {_dt_text(dtype)}, but got "
                                 f"{_dt_text(acc.dtype)}")
        av = valid_shape_of(acc)
        if not all(prove_eq(av[ax], valid[ax]) for ax in (0, 1)):
            raise DeductionError(f"The operator {op} requires accumulator valid_shape {_shape_text(valid)}, but got "
                                 f"{_shape_text(av)}")
    return _Res(shape, dtype, _acc_view(valid))


def _batch_operands(op, lhs, rhs, acc=None) -> None:
    """DeduceTileBatchMatMul(Acc)Type's rank and constant-extent checks (batch_matmul.cpp)."""
    for what, t in (("acc", acc), ("lhs", lhs), ("rhs", rhs)):
        if t is not None and len(t.shape) < 2:
            raise DeductionError(f"The operator {op} requires {what} to have at least 2 dimensions, but got "
                                 f"{len(t.shape)} dimensions")
    pairs = [("M", acc.shape[-2], "lhs", lhs.shape[-2]), ("N", acc.shape[-1], "rhs", rhs.shape[-1])] if acc else []
    for what, a, other, b in pairs:
        ca, cb = const_value(a), const_value(b)
        if ca is not None and cb is not None and ca != cb:
            raise DeductionError(f"The operator {op} requires matching {what} dimensions, but got acc {what}={ca} "
                                 f"and {other} {what}={cb}")
    kl, kr = const_value(lhs.shape[-1]), const_value(rhs.shape[-2])
    if kl is not None and kr is not None and kl != kr:
        raise DeductionError(f"The operator {op} requires matching inner dimensions, but got lhs K={kl} and "
                             f"rhs K={kr}")


def _batch_bcast(op, lhs, rhs) -> tuple:
    try:
        return bcast(lhs.shape[:-2], rhs.shape[:-2])
    except DeductionError:
        raise DeductionError(f"Cannot broadcast batch dimensions for {op}") from None


def _batch_dtype(op, lhs, rhs) -> str:
    if norm_dtype(lhs.dtype) != norm_dtype(rhs.dtype):
        raise DeductionError(f"The operator {op} requires identical lhs and rhs data types, but got "
                             f"{_dt_text(lhs.dtype)} and {_dt_text(rhs.dtype)}")
    return _acc_dtype(lhs.dtype, rhs.dtype)


@_rule("batch_matmul")
def _r_batch_matmul(op, args, kwargs):
    """DeduceTileBatchMatMulType (tile_ops/batch_matmul.cpp:54-123)."""
    lhs, rhs = _need_tile(args, 0, op), _need_tile(args, 1, op)
    _batch_operands(op, lhs, rhs)
    batch = _batch_bcast(op, lhs, rhs) if (len(lhs.shape) > 2 or len(rhs.shape) > 2) else ()
    shape = tuple(batch) + (lhs.shape[-2], rhs.shape[-1])
    return _Res(shape, _batch_dtype(op, lhs, rhs), _acc_view(shape), space="Acc")


@_rule("batch_matmul_acc")
def _r_batch_matmul_acc(op, args, kwargs):
    """DeduceTileBatchMatMulAccType (tile_ops/batch_matmul.cpp:156-262): acc's shape, the
    broadcast batch of lhs and rhs equal to acc's, the accumulator dtype the product's."""
    acc, lhs, rhs = _need_tile(args, 0, op), _need_tile(args, 1, op), _need_tile(args, 2, op)
    _batch_operands(op, lhs, rhs, acc)
    batch = _batch_bcast(op, lhs, rhs)
    acc_batch = acc.shape[:-2]
    if len(batch) != len(acc_batch):
        raise DeductionError(f"The operator {op} requires acc batch rank ({len(acc_batch)}) to equal broadcast(lhs, "
                             f"rhs) batch rank ({len(batch)})")
    for i, (a, b) in enumerate(zip(acc_batch, batch)):
        ca, cb = const_value(a), const_value(b)
        if ca is not None and cb is not None and ca != cb:
            raise DeductionError(f"The operator {op} requires acc batch dim {i} to equal broadcast(lhs, rhs) batch "
                                 f"dim {i}, but got acc={ca} and broadcast={cb}")
    dtype = _batch_dtype(op, lhs, rhs)
    if norm_dtype(acc.dtype) != dtype:
        raise DeductionError(f"The operator {op} requires accumulator dtype {_dt_text(dtype)}, but got "
                             f"{_dt_text(acc.dtype)}")
    return _Res(tuple(acc.shape), dtype, _acc_view(tuple(acc.shape)), space="Acc")


@_rule("matmul_mx", "matmul_mx_acc", "matmul_mx_bias")
def _r_matmul_mx(op, args, kwargs):
    k = 1 if op == "tile.matmul_mx_acc" else 0
    lhs, rhs = _need_tile(args, k, op), _need_tile(args, k + 2, op)
    # tile_ops/matmul_mx.cpp DeduceTileMatMulMxType: the constant physical extents the ISA takes
    m, kl, kr, n = (lhs.shape[0], lhs.shape[1], rhs.shape[0], rhs.shape[1]) if \
        len(lhs.shape) == 2 and len(rhs.shape) == 2 else (None,) * 4
    cm, ckl, ckr, cn = (const_value(x) if x is not None else None for x in (m, kl, kr, n))
    if cm is not None and not (cm > 0 and cm % 16 == 0):
        raise DeductionError(f"The operator {op} requires physical M divisible by 16 (ISA/PTOAS tmatmul_mx), "
                             f"but got M={cm}")
    if cn is not None and not (cn > 0 and cn % 32 == 0):
        raise DeductionError(f"The operator {op} requires physical N divisible by 32 for "
                             f"{norm_dtype(rhs.dtype).lower()} (ISA/PTOAS tmatmul_mx 32-byte row), but got N={cn}")
    if ckl is not None and ckr is not None and ckl != ckr:
        raise DeductionError(f"The operator {op} requires matching physical K, but got lhs K={ckl} and rhs K={ckr}")
    for side, ck in (("lhs", ckl), ("rhs", ckr)):
        if ck is not None and not (ck > 0 and ck % 64 == 0):
            raise DeductionError(f"The operator {op} requires physical K divisible by 64 (ISA/PTOAS tmatmul_mx), "
                                 f"but got {side} K={ck}")
    shape, valid = _product(lhs, rhs)
    return _Res(shape, "FP32", _acc_view(valid, acc_compact(valid[0], shape[0])))


@_rule("tget_scale_addr")
def _r_tget_scale_addr(op, args, kwargs):
    dst = _need_tile(args, 0, op)
    return _Res(tuple(dst.shape), norm_dtype(dst.dtype), stored_view(dst),
                space=norm_space(dst.space))


# ---------------------------------------------------------------- 3.8 memory / creation

def move_result_type(src: ir.TileType, target, blayout=None, slayout=None) -> tuple[tuple, str, EffectiveView]:
    """(shape, dtype, raw view) of ``tile.move(src, target_memory=target[, blayout][, slayout])``
    (tileview.md §6)."""
    target = norm_space(target)
    shape = tuple(src.shape)
    v = effective_view(src)
    dst = implicit_layout(shape, target)
    dictates = dst != implicit_layout(shape, None)
    view = fresh_view().with_layout(dst)
    if not dictates:
        view = replace(view, blayout=v.blayout, slayout=v.slayout)
    if target == "Right":
        view = replace(view, blayout="row_major")
    if blayout is not None:
        bl = norm_layout(blayout)
        if target in ("LeftScale", "RightScale") and bl != view.blayout:
            raise DeductionError("move: layout kwarg conflicts with the scale space layout")
        view = replace(view, blayout=bl)
    if slayout is not None:
        sl = norm_layout(slayout)
        if target in ("LeftScale", "RightScale") and sl != view.slayout:
            raise DeductionError("move: layout kwarg conflicts with the scale space layout")
        view = replace(view, slayout=sl)
    view = replace(view, valid_shape=tuple(v.valid_shape) or shape, pad=v.pad)
    dtype = norm_dtype(src.dtype)
    if target in ("LeftScale", "RightScale"):
        if dtype not in ("UINT8", "FP8E8M0"):
            raise DeductionError("move to a scale space needs UINT8/FP8E8M0")
        dtype = "FP8E8M0"
    return shape, dtype, view


@_rule("move")
def _r_move(op, args, kwargs):
    src = _need_tile(args, 0, op)
    tm = kwargs.get("target_memory")
    if tm is None:
        raise DeductionError(f"{op} requires target_memory")
    target = norm_space(tm)
    shape, dtype, view = move_result_type(src, target, kwargs.get("blayout"), kwargs.get("slayout"))
    return _Res(shape, dtype, view, space=target)


def _tensor_view_fields(t: ir.TensorType):
    """(layout, valid_shape or None) of a tensor's ``pl.TensorView(...)``."""
    layout, valid = "ND", None
    v = t.view
    if isinstance(v, ir.Call):
        lay = v.kwarg("layout")
        if lay is not None:
            layout = _kw_enum({"l": lay}, "l") or "ND"
        vs = v.kwarg("valid_shape")
        if vs is not None:
            valid = _list_items(vs)
    return layout, valid


@_rule("load")
def _r_load(op, args, kwargs):
    if not args or not isinstance(args[0].type, ir.TensorType):
        src = args[0].type if args else None
        if isinstance(src, (ir.TileType, ir.ScalarType, ir.TupleType)):     # DeduceTileLoadType's first check
            raise DeductionError(f"The operator {op} requires first argument to be a TensorType or "
                                 f"DistributedTensorType, but got {type(src).__name__}")
        raise _Unknown("load source tensor type unknown")
    ten: ir.TensorType = args[0].type
    offs = _dims(args[1].expr, "offsets") if len(args) > 1 else ()
    shapes = _dims(args[2].expr, "shapes") if len(args) > 2 else ()
    req = _dims(args[3].expr, "valid_shape") if len(args) > 3 and args[3].expr is not None else shapes
    tm = kwargs.get("target_memory")
    target = norm_space(tm) if tm is not None and not isinstance(tm, ir.NoneConst) else None
    clamp = _kw_bool(kwargs, "clamp")
    layout, tvalid = _tensor_view_fields(ten)
    dtype = norm_dtype(ten.dtype)
    view = fresh_view()
    if layout in ("MX_A_ZZ", "MX_B_NN"):
        if target != "Mat":         # the ir wrapper's own check, before the deducer (ir/op/tile_ops.py:229-234)
            raise DeductionError("tile.load of an MX-layout tensor requires explicit target_memory=MemorySpace.Mat "
                                 f"(MX scale loads are L1/Mat only); got MemorySpace.{target or 'Vec'}")
        if dtype not in ("FP8E8M0", "UINT8"):       # DeduceTileLoadType (tile_ops/memory.cpp:152-177)
            raise DeductionError(f"The operator {op} of an MX-layout tensor requires FP8E8M0 or UINT8 dtype, but "
                                 f"got {_dt_text(dtype)}")
        for what, n in (("a 2D tensor", len(ten.shape)), ("a 2D load window", len(shapes)),
                        ("2D valid_shape", len(req))):
            if n != 2:
                raise DeductionError(f"The operator {op} of an MX-layout tensor requires {what}, got rank {n}")
        lay = ("row_major", "row_major") if layout == "MX_A_ZZ" else ("col_major", "col_major")
        view = replace(view, blayout=lay[0], slayout=lay[1], fractal=32)
    elif target == "Mat":
        bl, sl = "col_major", "row_major"
        if layout == "DN":
            bl, sl = sl, bl
        if len(shapes) == 2 and const_value(shapes[1 if layout == "DN" else 0]) == 1:
            bl, sl = "row_major", "none_box"
        view = replace(view, blayout=bl, slayout=sl)
    elif target is not None:
        if shapes and const_value(shapes[-1]) == 1:
            view = replace(view, blayout="col_major")
    if len(shapes) == len(ten.shape):
        check_window_bounds(op, ten.shape, offs, shapes, req, clamped=True, clamp=clamp,
                            remedy="Pass clamp=True -- pl.load(x, offsets, shapes, clamp=True) -- to narrow "
                                   "the read to the source edge instead")
        sv = tuple(tvalid) if tvalid is not None else tuple(ten.shape)
        valid = []
        for i, w in enumerate(shapes):
            full = exprs_equal(sv[i], ten.shape[i])
            if full and not clamp:
                avail = w
            else:
                avail = s_min(s_max(s_sub(sv[i], offs[i]), _c(0)), w)
            r = req[i]
            valid.append(avail if (not exprs_equal(avail, w) and prove_le(avail, r)) else r)
    else:
        valid = list(req)
    view = replace(view, valid_shape=tuple(valid))
    return _Res(shapes, dtype, view, space=target)


@_rule("create")
def _r_create(op, args, kwargs):
    if not args:
        raise _Unknown("create without shape")
    shape = _dims(args[0].expr)
    for i, d in enumerate(shape):       # tile_ops/memory.cpp: a static positive extent
        if type(d) is ir.IntConst and d.value <= 0:
            raise DeductionError(f"The operator {op} shape element {i} must be positive, got {d.value}")
    dt = _need_kwarg(kwargs, "dtype", "create")
    tm = kwargs.get("target_memory")
    target = norm_space(tm) if tm is not None and not isinstance(tm, ir.NoneConst) else None
    transpose, flat = _kw_bool(kwargs, "transpose"), _kw_bool(kwargs, "flat_layout")
    if target in ("LeftScale", "RightScale"):
        raise DeductionError("create: scale spaces rejected")
    if transpose and (len(shape) != 2 or target != "Mat"):     # tile_ops/memory.cpp:590-596
        raise DeductionError(f"The operator {op} supports transpose=true only for a 2D tile with "
                             "target_memory=Mat (L1)")
    space = None
    if flat:
        view, space = fresh_view(shape), "Mat"
    elif target == "Acc":
        view, space = fresh_view(shape).with_layout(implicit_layout(shape, "Acc")), "Acc"
    elif transpose:
        view = fresh_view(shape, blayout="row_major", slayout="col_major")
    else:
        view = fresh_view(shape, blayout=shape_layout(shape))
    return _Res(shape, norm_dtype(dt), view, space=space)


@_rule("write")
def _r_write(op, args, kwargs):
    t = _need_tile(args, 0, op)
    return _Res(tuple(t.shape), norm_dtype(t.dtype), stored_view(t), space=norm_space(t.space),
                memref=t.memref)


def check_gather_row_operands(op: str, args: Sequence, kwargs: Mapping) -> None:
    """type_inference.cpp CheckGatherRowOperands (tile.gather_row, tensor.gather_row): the
    window ``shapes`` (argument 4) is a constant tuple (it sizes a static subview), an
    explicit ``valid_shape`` (PyPTO's argument 5, printed -- and held here -- as a keyword) has its rank, a dynamic one is refused with
    ``transpose=True``, and each of its extents lies in ``0 .. shapes[i]``.  Its element
    dtypes are dtypes.txt rows."""
    args = [_wrap(a) for a in args]
    shapes = _list_items(args[4].expr) if len(args) > 4 else None
    if shapes is None:
        raise DeductionError(f"The operator {op} requires shapes to be a literal tuple")
    for i, d in enumerate(shapes):
        if type(d) is not ir.IntConst:
            raise DeductionError(
                f"The operator {op} requires shapes[{i}] to be a compile-time constant (it sizes pto.subview, "
                "whose sizes is a static attribute), but got a runtime value. Pass a dynamic row count through "
                "valid_shape instead — it keeps the window (and so the tile allocation and box alignment) static "
                "while varying only the transfer length.")
    vs = kwargs.get("valid_shape")
    if vs is None or isinstance(vs, ir.NoneConst):
        return
    valid = _list_items(vs)
    if valid is None:
        raise DeductionError(f"The operator {op} requires valid_shape to be a literal tuple")
    if len(valid) != len(shapes):
        raise DeductionError(f"The operator {op} requires valid_shape to have the same rank as shapes "
                             f"({len(shapes)}), but got rank {len(valid)}")
    if _kw_bool(kwargs, "transpose") and any(type(d) is not ir.IntConst for d in valid):
        raise DeductionError(
            f"The operator {op} does not support a dynamic valid_shape together with transpose=True (the DN2NZ "
            "per-row path would need a runtime column extent on a boxed NZ tile). Use a static valid_shape with "
            "transpose=True, or gather without transpose and read the operand with matmul(b_trans=True).")
    errors = []
    for i, (v, s) in enumerate(zip(valid, shapes)):
        if _provably_less(v, _c(0)):
            errors.append(f"{op} valid_shape dimension {i} has provably negative extent {_shown(v)}; expected "
                          f"0 <= valid_shape[{i}] <= shape[{i}] ({_shown(s)})")
        if _provably_less(s, v):
            errors.append(f"{op} valid_shape dimension {i} extent {_shown(v)} provably exceeds physical shape "
                          f"extent {_shown(s)}")
    if errors:
        raise DeductionError("; ".join(errors))


@_rule("gather_row")
def _r_gather_row(op, args, kwargs):
    """paged_gather.cpp: DPS -- the destination tile's type (a valid_shape narrows only the
    transfer, not the accumulator)."""
    if len(args) > 1 and args[1].type is not None and not isinstance(args[1].type, ir.TensorType):
        raise DeductionError(f"The operator {op} requires src to be a TensorType (GM), but got "
                             f"{type(args[1].type).__name__}")
    check_gather_row_operands(op, args, kwargs)
    return _r_write(op, args, kwargs)


def _value_shape(args, kwargs, idx, key="shape"):
    if len(args) > idx and args[idx].expr is not None:
        return _dims(args[idx].expr)
    if key in kwargs:
        return _dims(kwargs[key])
    raise _Unknown("missing shape")


def _opt_valid(args, kwargs, idx):
    if len(args) > idx and args[idx].expr is not None and not isinstance(args[idx].expr, ir.NoneConst):
        return _dims(args[idx].expr)
    v = kwargs.get("valid_shape")
    if v is not None and not isinstance(v, ir.NoneConst):
        return _dims(v)
    return None


def ci_shape_error(shape) -> Optional[str]:
    """What pto.tci's ISA refuses in a constant ci shape (tile_ops/memory.cpp
    DeduceTileCiType, tensor_ops/memory.cpp DeduceTensorCiType): one row, not one column.
    The message's tail; each deducer words its head."""
    if not shape:
        return None
    last = shape[-1]
    if type(last) is ir.IntConst and last.value == 1:
        return "requires the innermost dimension (Cols) to be != 1, got 1"
    for i, d in enumerate(shape[:-1]):
        if type(d) is ir.IntConst and d.value != 1:
            return ("only populates the first row because pto.tci ignores valid rows; "
                    f"leading dimensions must be 1, but got {d.value} at index {i}")
    return None


@_rule("full", "ci", "tri", "random")
def _r_full(op, args, kwargs):
    name = op[5:]
    sidx = {"full": 0, "ci": 1, "tri": 1, "random": 6}[name]
    shape = _value_shape(args, kwargs, sidx)
    if name in ("full", "ci", "tri"):       # tile_ops/memory.cpp DeduceTileFullType / DeduceTileCiType / Tri
        for i, d in enumerate(shape):
            if type(d) is ir.IntConst and d.value <= 0:
                raise DeductionError(f"The operator {op} shape element {i} must be positive, got {d.value}")
    if name == "ci":
        bad = ci_shape_error(shape)
        if bad:
            raise DeductionError(f"The operator {op} {bad}")
    dt = kwargs.get("dtype")
    if dt is None:
        raise _Unknown("missing dtype")
    valid = shape
    if name in ("tri", "random"):
        v = _opt_valid(args, kwargs, sidx + 1)
        if v is not None:
            valid = v
    return _Res(shape, norm_dtype(dt), fresh_view(valid))


@_rule("mgather")
def _r_mgather(op, args, kwargs):
    if not args or args[0].type is None:
        raise _Unknown("mgather source type unknown")
    mem = args[0].type
    tm = kwargs.get("target_memory")
    target = norm_space(tm) if tm is not None else "Vec"
    # the Mat form gathers with a GM idx tensor (memory.cpp:1300-1302), the Vec form a tile
    idx = args[1].type if target == "Mat" and len(args) > 1 and isinstance(args[1].type, ir.TensorType) \
        else _need_tile(args, 1, op)
    elem = _kw_int(kwargs, "coalesce", 0) != 0
    mem_last = mem.shape[-1]
    if target == "Mat":
        shape = tuple(idx.shape) if elem else (idx.shape[-1], mem_last)
        valid = _opt_valid(args, kwargs, 3) or shape
        view = fresh_view(valid, blayout="col_major", slayout="row_major")
    else:
        ev = effective_view(idx)
        if elem:
            shape, valid = tuple(idx.shape), tuple(ev.valid_shape)
        else:
            d = 1 if (len(idx.shape) == 2 and const_value(idx.shape[0]) == 1) else 0
            shape = (idx.shape[d], mem_last)
            valid = (ev.valid_shape[d], mem_last)
        view = fresh_view(valid, blayout="row_major")
    return _Res(shape, norm_dtype(mem.dtype), view)


# ---------------------------------------------------------------- 3.9 views and transforms

def _drop(dims: tuple, axes) -> tuple:
    out = tuple(d for i, d in enumerate(dims) if i not in axes)
    while len(out) < 2:
        out = (_c(1),) + out
    return out


def _slice_drop_dims(op: str, dd, shape) -> set:
    """type_inference.cpp ParseSliceDropDims: distinct constant axes in [0, rank), each a
    static unit dimension of the window."""
    items = _list_items(dd)
    if items is None:
        raise DeductionError(f"{op} drop_dims must be a MakeTuple of compile-time int constants")
    axes: set = set()
    for i, a in enumerate(items):
        if type(a) is not ir.IntConst:
            raise DeductionError(f"{op} drop_dims element {i} must be a compile-time int constant")
        axis = a.value
        if not 0 <= axis < len(shape):
            raise DeductionError(f"{op} drop_dims index {axis} out of range for rank {len(shape)}")
        if axis in axes:
            raise DeductionError(f"{op} drop_dims index {axis} is repeated")
        dim = const_value(shape[axis])
        if dim != 1:
            raise DeductionError(f"{op} drop_dims index {axis} must select a static unit dimension (rank reduction "
                                 f"only erases size-1 dims), but dim {axis} is "
                                 f"{dim if dim is not None else 'dynamic'}")
        axes.add(axis)
    return axes


@_rule("slice")
def _r_slice(op, args, kwargs):
    x = _need_tile(args, 0, op)
    shape = _value_shape(args, kwargs, 1)
    offs = _dims(args[2].expr, "offset") if len(args) > 2 else _dims(kwargs["offset"], "offset")
    req = _opt_valid(args, kwargs, 3) or None      # an empty valid_shape is "none given" (a drop_dims slot filler)
    dd = None
    if len(args) > 4 and args[4].expr is not None and not isinstance(args[4].expr, ir.NoneConst):
        dd = args[4].expr
    elif kwargs.get("drop_dims") is not None:
        dd = kwargs["drop_dims"]
    for i, d in enumerate(shape):           # tile_ops/transform.cpp:150-157
        if type(d) is ir.IntConst and d.value <= 0:
            raise DeductionError(f"{op} shape element {i} must be positive, got {d.value}")
    drop = _slice_drop_dims(op, dd, shape) if dd is not None else set()
    check_window_bounds(op, x.shape, offs, shape, req, clamped=False,     # transform.cpp:200-203
                        remedy="An on-chip window has no clamping mechanism, so it must fit: keep offset + shape "
                               "inside the source tile, or clamp the read at the tensor boundary with "
                               "pl.load(..., clamp=True) and slice the resulting tile in bounds")
    valid = window_read(x.shape, valid_shape_of(x), offs, shape, req)
    for a in sorted(drop):
        # ValidateDropDimsValidExtents: an erased axis is fully valid
        if not prove_eq(valid[a], _c(1)):
            raise DeductionError(f"{op} cannot drop dimension {a}: its valid extent is {_shown(valid[a])}, which is "
                                 "not provably 1. Rank reduction erases an axis, so the axis must be fully valid; "
                                 "keep the dimension instead of dropping it")
    if drop:
        shape, valid = _drop(shape, drop), _drop(valid, drop)
    sv = stored_view(x)
    if sv is not None:
        view = fresh_view(valid, blayout=sv.blayout, slayout=sv.slayout, fractal=sv.fractal,
                          pad=sv.pad, compact=sv.compact)
    else:
        view = fresh_view(valid, blayout=shape_layout(shape))
    pv = kwargs.get("pad_value")
    if pv is not None and not isinstance(pv, ir.NoneConst):
        view = replace(view, pad=norm_pad(pv))
    return _Res(shape, norm_dtype(x.dtype), view)


def static_size(dims) -> Optional[int]:
    """ComputeShapeProduct: the element count of a static shape (None when a dim is not)."""
    n = 1
    for d in dims:
        if type(d) is not ir.IntConst:
            return None
        n *= d.value
    return n


@_rule("reshape")
def _r_reshape(op, args, kwargs):
    x = _need_tile(args, 0, op)
    new_shape = _value_shape(args, kwargs, 1)
    old_n, new_n = static_size(x.shape), static_size(new_shape)
    if old_n and new_n and old_n > 0 and new_n > 0 and old_n != new_n:    # tile_ops/transform.cpp:313-319
        raise DeductionError(f"{op}: cannot reshape tile of size {old_n} into shape with size {new_n}")
    e = effective_view(x)
    valid = reshape_valid(x.shape, valid_shape_of(x), new_shape, e.blayout == "row_major")
    view = fresh_view(valid, blayout=shape_layout(new_shape), pad=e.pad, compact=e.compact)
    return _Res(new_shape, norm_dtype(x.dtype), view)


@_rule("transpose")
def _r_transpose(op, args, kwargs):
    x = _need_tile(args, 0, op)
    a1 = const_value(args[1].expr) if len(args) > 1 else _kw_int(kwargs, "axis1")
    a2 = const_value(args[2].expr) if len(args) > 2 else _kw_int(kwargs, "axis2")
    if a1 is None or a2 is None:
        raise _Unknown("transpose axes unknown")
    n = len(x.shape)

    def normalize(a):                   # transform.cpp NormalizeAxis: negative from the end
        a = a + n if a < 0 else a
        if not 0 <= a < n:
            raise DeductionError(f"Axis {a} is out of range for {n}D tile")
        return a
    a1, a2 = normalize(a1), normalize(a2)
    shape = list(x.shape)
    shape[a1], shape[a2] = shape[a2], shape[a1]
    return _Res(tuple(shape), norm_dtype(x.dtype), fresh_view(tuple(shape)))


_FLIP = {"row_major": "col_major", "col_major": "row_major", "none_box": "none_box"}


@_rule("transpose_view")
def _r_transpose_view(op, args, kwargs):
    x = _need_tile(args, 0, op)
    e = effective_view(x)
    shape = tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2])
    vs = tuple(e.valid_shape)
    valid = vs[:-2] + (vs[-1], vs[-2])
    view = fresh_view(valid, blayout=_FLIP[e.blayout], slayout=_FLIP[e.slayout], fractal=e.fractal,
                      pad=e.pad, compact=e.compact)
    return _Res(shape, norm_dtype(x.dtype), view, space=norm_space(x.space))


_REINTERPRETABLE = frozenset(("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
                              "FP16", "FP32", "BF16"))    # reinterpret_view_semantics.h IsSupportedDType


def _scaled_extent(e, src_b: int, dst_b: int, what: str, axis: int, op: str, strict: bool):
    """ScaleExtent (strict: PyPTO's diagnostics) / TryScaleExtent (None when not provable):
    an extent of ``src_b``-byte elements counted in ``dst_b``-byte ones."""
    v = e.value if type(e) is ir.IntConst else None
    if src_b == dst_b:
        return e
    if src_b > dst_b:
        if src_b % dst_b:
            if strict:
                raise DeductionError(f"{op} cannot represent dtype byte ratio {src_b}:{dst_b}")
            return None
        f = src_b // dst_b
        return ir.IntConst(v * f) if v is not None else s_mul(e, _c(f))
    if dst_b % src_b:
        if strict:
            raise DeductionError(f"{op} cannot represent dtype byte ratio {src_b}:{dst_b}")
        return None
    d = dst_b // src_b
    if v is None:
        if strict:
            raise DeductionError(f"{op} cannot prove that dynamic {what} dimension {axis} is divisible by {d} for "
                                 "the wider target dtype; provide a static divisible extent")
        return None
    if v % d:
        if strict:
            raise DeductionError(f"{op} {what} dimension {axis} ({v}) is not divisible by {d} for the wider target "
                                 "dtype")
        return None
    return ir.IntConst(v // d)


def reinterpret_extents(op: str, shape: Sequence, valid: Sequence, src_dt: str, dst_dt: str, axis: int,
                        requested: Optional[Sequence]) -> tuple:
    """reinterpret_view_semantics.h Resolve: the (shape, valid_shape) of the same bytes seen
    as ``dst_dt`` -- the contiguous ``axis`` rescaled by the byte ratio, or a ``requested``
    shape of the same static byte size; a partial valid shape rescaled on that axis too.
    ``valid``: the source's explicit valid shape (empty: none)."""
    for which, dt in (("source", src_dt), ("target", dst_dt)):
        if dt not in _REINTERPRETABLE:
            raise DeductionError(f"{op} does not support {which} dtype {_dt_text(dt)}; supported dtypes are "
                                 "byte-addressable int/uint8/16/32/64, FP16, BF16, and FP32")
    if src_dt == dst_dt:
        raise DeductionError(f"{op} requires source and target dtypes to differ; use reshape/view for shape-only "
                             "changes")

    def physical(dims, name):
        if not dims:
            raise DeductionError(f"{op} {name} must have rank >= 1")
        for i, d in enumerate(dims):
            if type(d) is ir.IntConst and d.value <= 0:
                raise DeductionError(f"{op} {name} dimension {i} must be positive, got {d.value}")
    physical(shape, "source shape")
    if valid and len(valid) != len(shape):
        raise DeductionError(f"{op} source valid_shape rank {len(valid)} does not match source rank {len(shape)}")
    src_b, dst_b = dtype_bytes(src_dt), dtype_bytes(dst_dt)

    def auto(dims, what, strict):
        e = _scaled_extent(dims[axis], src_b, dst_b, what, axis, op, strict)
        return None if e is None else tuple(dims[:axis]) + (e,) + tuple(dims[axis + 1:])
    auto_shape = auto(shape, "shape", False)
    if requested is not None:
        target = tuple(requested)
        physical(target, "target shape")
        if auto_shape is None or not expr_lists_equal(target, auto_shape):
            counts = []
            for dims in (shape, target):
                n = 1
                for d in dims:
                    if type(d) is not ir.IntConst:
                        raise DeductionError(
                            f"{op} cannot prove byte-size equality for an explicit shape with dynamic dimensions; "
                            "omit shape to use layout-aware auto detection, or provide fully static shapes")
                    n *= d.value
                counts.append(n)
            if counts[0] * src_b != counts[1] * dst_b:
                raise DeductionError(f"{op} requires equal source and target byte sizes, but source has "
                                     f"{counts[0] * src_b} bytes and target has {counts[1] * dst_b} bytes")
    else:
        target = auto_shape if auto_shape is not None else auto(shape, "shape", True)
    partial = bool(valid) and not expr_lists_equal(valid, shape)
    if requested is not None and partial:
        if not expr_lists_equal(target, auto_shape or auto(shape, "shape", True)):
            raise DeductionError(f"{op} cannot preserve a partial valid_shape through an arbitrary explicit reshape; "
                                 "omit shape or use the layout-aware auto-detected shape")
    return target, (auto(valid, "valid_shape", True) if partial else target)


@_rule("reinterpret_view")
def _r_reinterpret_view(op, args, kwargs):
    x = _need_tile(args, 0, op)
    for i, d in enumerate(x.shape):     # reinterpret_view_semantics.h ValidatePhysicalShape
        if type(d) is ir.IntConst and d.value <= 0:
            raise DeductionError(f"{op} source shape dimension {i} must be positive, got {d.value}")
    dt = kwargs.get("dtype")
    new_dtype = norm_dtype(dt) if dt is not None else norm_dtype(x.dtype)
    e = effective_view(x)
    if e.slayout != "none_box":
        raise DeductionError("reinterpret_view of a boxed tile")
    ob, nb = dtype_bits(x.dtype), dtype_bits(new_dtype)
    axis = len(x.shape) - 1
    if e.blayout == "col_major" and len(x.shape) >= 2:
        axis = len(x.shape) - 2

    def scale(d):
        return s_floordiv(s_mul(d, _c(ob)), _c(nb)) if (const_value(d) is None or (const_value(d) * ob) % nb) else _c(const_value(d) * ob // nb)

    explicit = None
    if len(args) > 1 and args[1].expr is not None:
        explicit = _dims(args[1].expr)
    elif kwargs.get("shape") is not None:
        explicit = _dims(kwargs["shape"])
    if explicit is not None:
        shape = explicit
    else:
        shape = tuple(scale(d) if i == axis else d for i, d in enumerate(x.shape))
    vs = valid_shape_of(x)
    if expr_lists_equal(vs, x.shape):
        valid = shape
    else:
        valid = tuple(scale(d) if i == axis else d for i, d in enumerate(vs))
    view = replace(e, valid_shape=tuple(valid), stride=(), start_offset=None,
                   pad=e.pad if e.pad == "zero" else "null")
    return _Res(shape, new_dtype, view, space=norm_space(x.space))


@_rule("set_validshape")
def _r_set_validshape(op, args, kwargs):
    x = _need_tile(args, 0, op)
    if len(args) < 3:
        raise _Unknown("set_validshape needs rows, cols")
    rows, cols = _norm_dim(args[1].expr), _norm_dim(args[2].expr)
    view = replace(effective_view(x), valid_shape=(rows, cols))
    return _Res(tuple(x.shape), norm_dtype(x.dtype), view)


@_rule("assemble")
def _r_assemble(op, args, kwargs):
    tgt, src = _need_tile(args, 0, op), _need_tile(args, 1, op)
    offs = _dims(args[2].expr, "offset") if len(args) > 2 else _dims(kwargs["offset"], "offset")
    check_write_bounds(op, tgt.shape, offs, src.shape,                    # transform.cpp:635-638
                       f"{op} lowers to pto.tinsert, which copies the whole source subview rather than "
                       f"only its valid region, so the source allocation itself has to fit -- unlike "
                       f"{op.replace('tile.', 'tensor.', 1)}, which transfers only the valid extent")
    valid = write_union(tgt.shape, valid_shape_of(tgt), valid_shape_of(src), offs, op)
    view = replace(effective_view(tgt), valid_shape=tuple(valid))
    return _Res(tuple(tgt.shape), norm_dtype(tgt.dtype), view, space=norm_space(tgt.space))


@_rule("extract")
def _r_extract(op, args, kwargs):
    src = _need_tile(args, 0, op)
    if len(args) < 4:
        raise _Unknown("extract needs (src, row, col, shape)")
    offs = (args[1].expr, args[2].expr)
    shape = _dims(args[3].expr)
    for i, d in enumerate(shape):           # tile_ops/transform.cpp:708-713
        if type(d) is ir.IntConst and d.value <= 0:
            raise DeductionError(f"{op} shape[{i}] must be positive, got {d.value}")
    tm = kwargs.get("target_memory")
    target = norm_space(tm) if tm is not None and not isinstance(tm, ir.NoneConst) else "Vec"
    check_window_bounds(op, src.shape, offs, shape, None, clamped=False,  # transform.cpp:747-748
                        remedy="ISA TEXTRACT bounds are hard, so the window must fit inside the source tile")
    valid = window_read(src.shape, valid_shape_of(src), offs, shape)
    view = fresh_view(valid).with_layout(implicit_layout(shape, target))
    if target == "Left":
        view = replace(view, blayout="row_major", slayout="row_major")
    elif target == "Right":
        view = replace(view, blayout="row_major", slayout="col_major")
    if target in ("Left", "Right") and not expr_lists_equal(_fin(valid), shape):
        view = replace(view, compact="normal")
    return _Res(shape, norm_dtype(src.dtype), view, space=target)


@_rule("scatter_update", "scatter", "scatter_mask")
def _r_scatter(op, args, kwargs):
    dst = _need_tile(args, 0, op)
    view = replace(effective_view(dst), valid_shape=valid_shape_of(dst))
    return _Res(tuple(dst.shape), norm_dtype(dst.dtype), view, space=norm_space(dst.space))


@_rule("concat")
def _r_concat(op, args, kwargs):
    a, b = _need_tile(args, 0, op), _need_tile(args, 1, op)
    ca, cb = const_value(a.shape[1]), const_value(b.shape[1])
    cols = _c(ca + cb) if ca is not None and cb is not None else ir.BinOp("+", a.shape[1], b.shape[1])
    shape = (a.shape[0], cols)
    return _Res(shape, norm_dtype(a.dtype), fresh_view(shape))


# ---------------------------------------------------------------- 3.10 fill-pad

@_rule("fillpad", "fillpad_inplace", "fillpad_expand")
def _r_fillpad(op, args, kwargs):
    x = _need_tile(args, 0, op)
    pad = norm_pad(kwargs.get("pad_value")) if kwargs.get("pad_value") is not None else "zero"
    if pad == "null":
        raise DeductionError("fillpad: pad_value null rejected")
    shape = _value_shape(args, kwargs, 1) if op == "tile.fillpad_expand" else tuple(x.shape)
    e = effective_view(x)
    view = fresh_view(shape, blayout=e.blayout, slayout=e.slayout, pad=pad, compact=e.compact)
    return _Res(shape, norm_dtype(x.dtype), view, space=norm_space(x.space), memref=x.memref)


# ---------------------------------------------------------------- 3.11 gather / scatter / sort

@_rule("gather")
def _r_gather(op, args, kwargs):
    src, idx = _need_tile(args, 0, op), _need_tile(args, 1, op)
    return _Res(tuple(idx.shape), norm_dtype(src.dtype), _lay(src, tuple(idx.shape)))


@_rule("gatherb")
def _r_gatherb(op, args, kwargs):
    src, off = _need_tile(args, 0, op), _need_tile(args, 1, op)
    od = kwargs.get("output_dtype")
    out = norm_dtype(od) if od is not None and not isinstance(od, ir.NoneConst) else norm_dtype(src.dtype)
    k = 32 // dtype_bytes(out)
    ev = effective_view(off).valid_shape
    shape = (off.shape[0], s_mul(off.shape[1], _c(k)))
    valid = (ev[0], s_mul(ev[1], _c(k)))
    return _Res(shape, out, fresh_view(valid, blayout="row_major"))


@_rule("gather_mask")
def _r_gather_mask(op, args, kwargs):
    src = _need_tile(args, 0, op)
    p = _kw_int(kwargs, "mask_pattern")
    if p is None:
        raise _Unknown("gather_mask without mask_pattern")
    od = kwargs.get("output_dtype")
    out = norm_dtype(od) if od is not None and not isinstance(od, ir.NoneConst) else norm_dtype(src.dtype)
    c = src.shape[1]
    if p in (1, 2):
        c = s_floordiv(c, _c(2))
    elif 3 <= p <= 6:
        c = s_floordiv(c, _c(4))
    shape = (src.shape[0], c)
    return _Res(shape, out, _lay(src, shape))


def gather_compare_extents(op: str, src_shape: Sequence, kwargs: Mapping) -> tuple:
    """The checks tile_ops/gather.cpp and tensor_ops/gather.cpp make on a compare-form gather's
    kwargs (cmp_mode in [0, 5], out_cols > 0) and what they give:
    (rows, out_cols, count dtype)."""
    cm = kwargs.get("cmp_mode")
    if cm is None:
        raise DeductionError(f"The operator {op} requires a 'cmp_mode' keyword argument")
    mode = _kw_int(kwargs, "cmp_mode")
    if mode is not None and not 0 <= mode <= 5:
        raise DeductionError(f"The operator {op} requires cmp_mode in [0, 5] (eq/ne/lt/le/gt/ge), but got {mode}")
    oc = kwargs.get("out_cols")
    if oc is None:
        raise DeductionError(f"The operator {op} requires an 'out_cols' keyword argument")
    cols = _kw_int(kwargs, "out_cols")
    if cols is not None and cols <= 0:
        raise DeductionError(f"The operator {op} requires out_cols > 0, but got {cols}")
    cd = kwargs.get("count_dtype")
    cdt = norm_dtype(cd) if cd is not None and not isinstance(cd, ir.NoneConst) else "INT32"
    return src_shape[0], _norm_dim(oc), cdt       # (count_dtype's INT32 / UINT32: dtypes.txt)


@_rule("gather_compare")
def _r_gather_compare(op, args, kwargs):
    src = _need_tile(args, 0, op)
    if len(src.shape) != 2:
        raise DeductionError(f"The operator {op} requires 2D src, but got rank {len(src.shape)}")
    if len(args) > 2 and args[2].type is not None and not isinstance(args[2].type, ir.TileType):
        raise DeductionError(f"The operator {op} requires tmp to be a TileType, but got "
                             f"{type(args[2].type).__name__}")
    rows, oc, cdt = gather_compare_extents(op, src.shape, kwargs)
    dst_shape = (rows, oc)
    cdst_shape = (_c(1), rows)
    dst = build_result_type(_fin(dst_shape), "INT32", _lay(src, dst_shape), stamped_space="Vec")
    cdst = build_result_type(_fin(cdst_shape), cdt, fresh_view(cdst_shape), stamped_space="Vec")
    return ir.TupleType((dst, cdst))


@_rule("sort32")
def _r_sort32(op, args, kwargs):
    src = _need_tile(args, 0, op)
    shape = tuple(src.shape[:-1]) + (s_mul(src.shape[-1], _c(2)),)
    return _Res(shape, norm_dtype(src.dtype), _lay(src, shape))


@_rule("mrgsort_format2")
def _r_mrgsort2(op, args, kwargs):
    src0 = _need_tile(args, 0, op)
    tmp = _need_tile(args, len(args) - 1, op)
    return _Res(tuple(tmp.shape), norm_dtype(src0.dtype), _lay(src0, tuple(tmp.shape)))


@_rule("mrgsort_format1")
def _r_mrgsort1(op, args, kwargs):
    src = _need_tile(args, 0, op)
    return _Res(tuple(src.shape), norm_dtype(src.dtype), _lay(src, tuple(src.shape)))


# ---------------------------------------------------------------- 3.12 cross-core

_SPLIT = {"NONE": 0, "UP_DOWN": 1, "LEFT_RIGHT": 2}


def _split_mode(kwargs) -> int:
    v = kwargs.get("split")
    if v is None:
        return 0
    c = const_value(v)
    if c is not None:
        return c
    name = _kw_enum(kwargs, "split")
    if name in _SPLIT:
        return _SPLIT[name]
    raise _Unknown(f"split mode {v!r}")


def check_split_boundary_valid(op: str, shape, valid, split_axis: int) -> None:
    """CheckSplitBoundaryCarriesValid (tile_ops/cross_core.cpp:214-300), the shard side
    (halve): a narrowed column extent crosses the Cube<->Vector FIFO only when it is static,
    not per-lane (LEFT_RIGHT), and the row extent is static and not per-lane (UP_DOWN)."""
    if len(shape) != 2 or len(valid) != 2 or prove_eq(valid[1], shape[1]):
        return
    ext = lambda i: f"{_shown(valid[i])} of {_shown(shape[i])}"
    cols = _shown(shape[1])
    if split_axis == 1:
        raise DeductionError(
            f"{op}: LEFT_RIGHT splits the column axis, but this tile's valid column extent ({ext(1)}) does not "
            "cover the full box, so the two AIV lanes would hold different amounts of real data. A per-lane "
            "column extent cannot cross this boundary: the Cube<->Vector FIFO pins the transported column extent "
            "to the physical one, and the only way to restore a narrower extent afterwards (pto.treshape) is "
            "compile-time static and so cannot express a per-lane value.\n"
            "Author one of these instead:\n"
            "  * split the row axis: mode=pl.SplitMode.UP_DOWN (a per-lane ROW extent IS carried)\n"
            "  * make the columns fully valid before the crossing and let the padding be don't-care at the store:\n"
            f"        acc = pl.set_validshape(acc, <valid_rows>, {cols})\n"
            "        out[..., c0 : c0 + <half>] = shard   # c0 = aiv_id * <half>\n"
            "  * keep the ragged column tail in its own matmul outside the pl.split_aiv region")
    if const_value(valid[1]) is None:
        raise DeductionError(
            f"{op}: this tile's valid column extent ({ext(1)}) is a runtime value narrower than the physical box. "
            "A narrowed column extent has to be rebuilt after the boundary's full-box transport, and the only "
            "rebuild available (pto.treshape) is compile-time static.\n"
            "Fix: make the columns fully valid before the crossing --\n"
            f"        acc = pl.set_validshape(acc, <valid_rows>, {cols})\n"
            "    and store the full column box; the padded columns are don't-care.")
    if split_axis == 0 and not prove_eq(valid[0], shape[0]):
        raise DeductionError(
            f"{op}: UP_DOWN split with BOTH a per-lane row extent ({ext(0)}, so the lanes hold different row "
            f"counts) and a narrowed column extent ({ext(1)}) is not supported. The per-lane row extent rides on "
            "the TPOP valid_row operand, but the narrowed column extent can only be restored by pto.treshape, "
            "which rebuilds BOTH axes from one static type and would overwrite that per-lane row.\n"
            "Fix: widen the columns before the crossing and store the full column box --\n"
            f"        acc = pl.set_validshape(acc, {_shown(valid[0])}, {cols})\n"
            f"        out[r0 : r0 + <half>, 0 : {cols}] = shard")
    if const_value(valid[0]) is None:
        raise DeductionError(
            f"{op}: this tile's valid row extent ({ext(0)}) is a runtime value and its valid column extent "
            f"({ext(1)}) is narrower than the physical box. The narrowed column extent forces a full-box "
            "transport whose logical extents are rebuilt by the static pto.treshape, which cannot express a "
            "runtime row extent.\n"
            "Fix: make the columns fully valid before the crossing --\n"
            f"        acc = pl.set_validshape(acc, <valid_rows>, {cols})\n"
            "    and store the full column box; the padded columns are don't-care.")


def split_reshape(shape, valid, ax: int, halve: bool) -> tuple:
    """ReshapeSplitAxis (tile_ops/cross_core.cpp:121-157): the split axis halved (ceil; a
    dynamic extent floordiv(d, 2), its valid floordiv(v + 1, 2)) or doubled."""
    shape, valid = list(shape), list(valid)
    if halve:
        shape[ax] = s_ceildiv(shape[ax], 2) if const_value(shape[ax]) is not None else s_floordiv(shape[ax], _c(2))
    else:
        shape[ax] = s_mul(shape[ax], _c(2))
    if ax < len(valid):
        if halve:
            valid[ax] = s_ceildiv(valid[ax], 2) if const_value(valid[ax]) is not None else s_floordiv(s_add(valid[ax], _c(1)), _c(2))
        else:
            valid[ax] = s_mul(valid[ax], _c(2))
    return tuple(shape), tuple(valid)


def split_code(op: str, kwargs) -> int:
    """ReadSplitAttr's range (cross_core.cpp:58-75)."""
    split = _split_mode(kwargs)
    if split not in (0, 1, 2):
        raise DeductionError(f"{op} split must be 0 (NONE/no split axis), 1 (UP_DOWN/axis0) or 2 "
                             f"(LEFT_RIGHT/axis1), but got {split}")
    return split


@_rule("aiv_shard", "aic_gather")
def _r_shard(op, args, kwargs):
    """DeduceSplitReshape (cross_core.cpp:318-375)."""
    x = _need_tile(args, 0, op)
    split = split_code(op, kwargs)
    halve = op == "tile.aiv_shard"
    shape, valid = tuple(x.shape), tuple(valid_shape_of(x))
    if split == 0:
        if halve:
            check_split_boundary_valid(op, shape, valid, -1)
        return _Res(shape, norm_dtype(x.dtype), fresh_view(valid))
    if len(shape) != 2:
        raise DeductionError(f"{op} requires a 2D tile, but got rank {len(shape)}")
    ax = split - 1
    stride = _kw_int(kwargs, "lane_stride")
    if stride is not None:
        if stride <= 0:
            raise DeductionError(f"{op}: 'lane_stride' must be a positive partition stride, but got {stride}")
        ext = const_value(shape[ax])
        if ext is not None and stride > (ext + 1) // 2:
            raise DeductionError(f"{op}: 'lane_stride' {stride} exceeds the per-lane physical half "
                                 f"{(ext + 1) // 2} of a {ext}-wide split axis")
    if halve:
        check_split_boundary_valid(op, shape, valid, ax)
    shape, valid = split_reshape(shape, valid, ax, halve)
    return _Res(tuple(shape), norm_dtype(x.dtype), fresh_view(tuple(valid)))
