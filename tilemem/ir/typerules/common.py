"""What the tile ops' type rules share: the argument record, the sub-rules several
ops use (windows, write unions, reshapes, bounds checks), the op families, argument
helpers, the result record and the rule registry.

Its underscore names are the package's own (its rule modules use them; they are no API).
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Callable, Optional, Sequence

from tilemem import ir
from tilemem.ir.symbolic import (
    int_const as _c, prove_eq, prove_le, prove_zero, s_add, s_max, s_min, s_sub,
)
from tilemem.ir.views import (
    DeductionError, EffectiveView, const_value, effective_view, expr_lists_equal, exprs_equal,
    fresh_view, norm_dtype, norm_space, valid_shape_of,
)
from tilemem.records import Record, record, replace


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


def extent_text(e) -> str:
    """An extent as PyPTO's PythonPrint shows it in a message: a var by its name (the DSL
    reader's ``hint#serial`` keys by the hint), an INDEX constant bare (no ``pl.const``)."""
    from tilemem.ir.printer import print_expr
    return print_expr(message_form(e))


def message_form(e):
    """``e`` as a message prints it (see extent_text)."""
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


def matching_extents(op: str, dims: str, a, b, left: str, right: str) -> None:
    """PyPTO's check that two extents of an op's operands agree, on what is constant: "The
    operator {op} requires matching {dims}, but got {left}={a} and {right}={b}"."""
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None and ca != cb:
        raise DeductionError(f"The operator {op} requires matching {dims}, but got {left}={ca} and {right}={cb}")


def _starts_inside(op: str, i: int, offset, noun: str, holder: str) -> None:
    """Dimension ``i`` of a window or write (``noun``) starts inside its source or target
    (``holder``): its offset is not provably negative."""
    if _provably_less(offset, _c(0)):
        raise DeductionError(f"{op} offset {i} is provably negative ({extent_text(offset)}); a {noun} must "
                             f"start inside its {holder}")


def _ends_inside(op: str, i: int, offset, reach, extent, verb: str, holder: str, tail: str) -> None:
    """Dimension ``i`` of what ``op`` reads or writes (``verb``) ends inside its source or
    target (``holder``, of ``extent``): offset + reach is not provably past it."""
    if _integer_dim(offset) and _integer_dim(reach) and _provably_less(extent, s_add(offset, reach)):
        raise DeductionError(f"{op} {verb} past the end of dimension {i}: offset {extent_text(offset)} + extent "
                             f"{extent_text(reach)} exceeds the {holder} extent {extent_text(extent)}{tail}")


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
        _starts_inside(op, i, o, "window", "source")
        r = request[i] if request is not None and i < len(request) else None
        if r is not None and _provably_less(w, r):
            raise DeductionError(f"{op} valid_shape {i} is {extent_text(r)}, which exceeds the window extent "
                                 f"{extent_text(w)}; a valid region cannot be larger than the shape that holds it")
        reach = r if clamped and r is not None else w
        if not clamp:
            _ends_inside(op, i, o, reach, src, "reads", "source", "." + (f" {remedy}" if remedy else ""))


def check_write_bounds(op: str, phys: Sequence, offsets: Sequence, reach: Sequence, remedy: str = "") -> None:
    """type_inference.cpp CheckWriteDimBounds: a write starts inside its target and the
    extent it touches (``reach``: the source's physical shape for an exact subview, its
    valid shape for a valid-region transfer) ends inside it."""
    if len(phys) != len(reach) or len(offsets) != len(reach):
        return
    for i, r in enumerate(reach):
        o, tgt = offsets[i], phys[i]
        _starts_inside(op, i, o, "write", "target")
        _ends_inside(op, i, o, r, tgt, "writes", "target", f". {remedy}" if remedy else "")


def _shape_text(dims: Sequence) -> str:
    """FormatShape: ``[a, b]`` with each extent as PyPTO prints it."""
    return "[" + ", ".join(extent_text(d) for d in dims) + "]"


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
            f"{op} leaves a gap in dimension {d}: the write starts at {extent_text(o[d])}, which is not provably "
            f"at or before the target valid extent {extent_text(T[d])}. A valid shape names one contiguous "
            f"origin-anchored rectangle, so a write that grows it must abut the region already there")
    for i in range(len(T)):
        if i == d:
            continue
        if not prove_zero(o[i]):
            raise DeductionError(
                f"{op} grows dimension {d}, so it must span dimension {i} from the origin, but it starts at "
                f"{extent_text(o[i])}. The added region would be narrower than the region it extends, making the "
                f"union an L-shape")
        if not prove_eq(S[i], T[i]):
            raise DeductionError(
                f"{op} grows dimension {d}, so its extent in dimension {i} ({extent_text(S[i])}) must provably "
                f"equal the target valid extent ({extent_text(T[i])}). The added region would otherwise not line "
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


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def _need_tile(args, i, op) -> ir.TileType:
    if i < len(args) and i < len(_ORDINALS) and isinstance(args[i].type, (ir.ScalarType, ir.TensorType)):
        # a typed operand of another kind: the deducer's As<TileType> check
        raise DeductionError(f"The operator {op} requires {_ORDINALS[i]} argument to be a TileType, but got "
                             f"{type(args[i].type).__name__}")
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


def _dt_text(dtype) -> str:
    """DataType::ToString, for messages (bfloat16, fp32, int8)."""
    d = norm_dtype(dtype)
    return "bfloat16" if d == "BF16" else d.lower()


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


# ============================================================================ rules

_RULES: dict[str, Callable] = {}


def _rule(*names):
    def deco(fn):
        for n in names:
            _RULES[n] = fn
        return fn
    return deco
