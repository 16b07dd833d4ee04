"""TileView semantics (spec: tileview.md; PyPTO include/pypto/ir/tile_view_semantics.h).

Conventions (shared with ``tilemem.ir``):

* memory spaces are bare enum names: ``"DDR" "Vec" "Mat" "Left" "Right" "Acc" "Bias"
  "ScalarLocal" "LeftScale" "RightScale"``; ``None`` = no memory space ("absent" row).
* layouts are bare names ``"none_box" "row_major" "col_major"``; pad values ``"null" "zero"
  "max" "min"``; compact modes ``"null" "normal"``; dtypes bare ``"FP32"``, ``"BF16"``, ...
  Every function here also accepts the printed spellings (``"pl.Mem.Vec"``,
  ``"pl.TileLayout.row_major"``, ``"pl.FP32"``, ``"pl.MemorySpace.Vec"``) and normalises them.
* ``ir.TileView`` holds ONLY the printed fields (``None`` = implicit for the annotation's
  (shape, space)); ``pad=None``/``compact=None`` mean ``null``.

Three view notions are used:

* the *printed* view: ``ir.TileView`` or ``None`` (what an annotation shows);
* the *stored* view: an ``EffectiveView`` or ``None`` — PyPTO's ``tile_view_`` after the
  constructor's canonicalisation.  Its ``valid_shape`` may be ``()`` (= same as shape);
* the *effective* view: an ``EffectiveView`` with ``valid_shape`` always filled
  (``GetEffectiveTileView``).
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Sequence

from tilemem import ir
from tilemem.records import Record, record, replace

__all__ = [
    "SPACES", "LAYOUTS", "PAD_VALUES", "COMPACT_MODES", "DTYPES",
    "norm_space", "norm_layout", "norm_pad", "norm_compact", "norm_dtype",
    "dtype_bits", "dtype_bytes", "storage_bits", "storage_bytes", "is_float", "is_signed_int",
    "is_int", "promote_dtype",
    "const_value", "is_const", "mk_const", "exprs_equal", "expr_lists_equal", "index_const",
    "ImplicitLayout", "implicit_layout", "shape_layout", "implicit_fractal",
    "EffectiveView", "implicit_view", "FRESH", "fresh_view", "is_implicit_view",
    "canonicalize_view", "stored_view", "effective_view", "printed_view", "view_from_printed",
    "make_tile_type", "retype", "implicit_type", "build_result_type", "valid_shape_of",
    "DeductionError",
]


class DeductionError(ValueError):
    """PyPTO's deducer would throw for these inputs (typerules.md §7).  Defined with the
    views: reading an operand's valid shape is where the first of these checks sits."""

# ----------------------------------------------------------------------------- enums

SPACES = ("DDR", "Vec", "Mat", "Left", "Right", "Acc", "Bias", "ScalarLocal", "LeftScale", "RightScale")
LAYOUTS = ("none_box", "row_major", "col_major")
PAD_VALUES = ("null", "zero", "max", "min")
COMPACT_MODES = ("null", "normal")

_NULLS = (None, "null")
_SPACE_NAMES = frozenset(SPACES)


def _last(x) -> Optional[str]:
    if x is None:
        return None
    t = type(x)
    if t is str:                    # (the commonest first)
        return x.rsplit(".", 1)[-1]
    if t is ir.Dotted:
        return x.parts[-1]
    if isinstance(x, ir.Dotted):
        return x.parts[-1]
    if isinstance(x, ir.Name):
        return x.id
    if isinstance(x, ir.StrConst):
        return x.value
    if isinstance(x, str):
        return x.rsplit(".", 1)[-1]
    raise TypeError(f"not an enum reference: {x!r}")


def norm_space(s) -> Optional[str]:
    """``"pl.Mem.Vec"`` / ``Dotted(pl.MemorySpace.Vec)`` / ``"Vec"`` -> ``"Vec"``; None stays None."""
    if s.__class__ is str and s in _SPACE_NAMES:      # a bare name (the commonest)
        return s
    v = _last(s)
    if v is not None and v not in SPACES:
        raise ValueError(f"unknown memory space {s!r}")
    return v


def norm_layout(s) -> Optional[str]:
    v = _last(s)
    if v is not None and v not in LAYOUTS:
        raise ValueError(f"unknown tile layout {s!r}")
    return v


def _name_or_null(s, names, what: str) -> str:
    """The enum member's name, checked against ``names``; None -> "null"."""
    v = _last(s)
    if v is None:
        return "null"
    if v not in names:
        raise ValueError(f"unknown {what} {s!r}")
    return v


def norm_pad(s) -> str:
    """Pad value name; None -> "null"."""
    return _name_or_null(s, PAD_VALUES, "pad value")


def norm_compact(s) -> str:
    """Compact mode name; None -> "null"."""
    return _name_or_null(s, COMPACT_MODES, "compact mode")


# ----------------------------------------------------------------------------- dtypes (backend.md §5)

_BITS = {
    "BOOL": 1,
    "INT4": 4, "UINT4": 4, "FP4": 4, "HF4": 4,
    "INT8": 8, "UINT8": 8, "FP8E4M3FN": 8, "FP8E5M2": 8, "FP8E8M0": 8, "HF8": 8,
    "INT16": 16, "UINT16": 16, "FP16": 16, "BF16": 16,
    "INT32": 32, "UINT32": 32, "FP32": 32,
    "INT64": 64, "UINT64": 64, "INDEX": 64, "TASK_ID": 64,
}
DTYPES = tuple(_BITS)
_FLOATS = {"FP4", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "FP16", "FP32", "BF16", "HF4", "HF8"}
_SIGNED = {"INT4", "INT8", "INT16", "INT32", "INT64", "INDEX"}
_UNSIGNED = {"UINT4", "UINT8", "UINT16", "UINT32", "UINT64", "BOOL", "TASK_ID"}


def norm_dtype(d) -> str:
    """``"pl.FP32"`` / ``Dotted(pl.FP32)`` / ``"FP32"`` -> ``"FP32"``."""
    if d.__class__ is str and d in _BITS:       # a bare name (the commonest)
        return d
    v = _last(d)
    if v is None:
        raise ValueError("missing dtype")
    return v


def dtype_bits(d) -> int:
    """``DataType::GetBit`` (0 for unknown)."""
    return _BITS.get(norm_dtype(d), 0)


def dtype_bytes(d) -> int:
    """``GetByte`` = ceil(bits / 8)."""
    return (dtype_bits(d) + 7) // 8


def storage_bits(d) -> int:
    """``GetStorageBitWidth``: 4 for 4-bit types, else bytes * 8."""
    b = dtype_bits(d)
    return 4 if b == 4 else dtype_bytes(d) * 8


def storage_bytes(n: int, d) -> Optional[int]:
    """``StaticStorageBytes(n, dtype)`` = ceil(n * storage_bits / 8); None if bits == 0."""
    sb = storage_bits(d)
    if sb == 0:
        return None
    v = (n * sb + 7) // 8
    return v if v < (1 << 64) else None


def is_float(d) -> bool:
    return norm_dtype(d) in _FLOATS


def is_signed_int(d) -> bool:
    return norm_dtype(d) in _SIGNED


def is_int(d) -> bool:
    d = norm_dtype(d)
    return d in _SIGNED or d in _UNSIGNED


def promote_dtype(a, b) -> str:
    """PROMOTE (type_inference.cpp:108-147): same -> a; exactly one float -> it; more bits
    wins; equal bits -> a if a is a signed int, else b if b is, else a."""
    a, b = norm_dtype(a), norm_dtype(b)
    if a == b:
        return a
    fa, fb = is_float(a), is_float(b)
    if fa != fb:
        return a if fa else b
    ba, bb = dtype_bits(a), dtype_bits(b)
    if ba != bb:
        return a if ba > bb else b
    if is_signed_int(a):
        return a
    if is_signed_int(b):
        return b
    return a


# ----------------------------------------------------------------------------- expression helpers


def const_value(e) -> Optional[int]:
    """Integer value of a ConstInt-like expr (``IntConst``, ``pl.const(v, T)``, ``-c``), else None."""
    t = type(e)
    if t is ir.IntConst:            # (the commonest first)
        return e.value
    if t is ir.Name:
        return None
    if isinstance(e, bool):
        return None
    if isinstance(e, int):
        return e
    if isinstance(e, ir.IntConst):
        return e.value
    if isinstance(e, ir.Call) and e.func == "pl.const" and e.args and not e.kwargs:
        return const_value(e.args[0])
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        v = const_value(e.operand)
        return None if v is None else -v
    return None


def is_const(e) -> bool:
    return const_value(e) is not None


def mk_const(v: int) -> ir.IntConst:
    return ir.IntConst(int(v))


def index_const(v: int) -> ir.Call:
    """``pl.const(v, pl.INDEX)`` — how an integer leaf of a composite dim expr prints."""
    return ir.Call("pl.const", (ir.IntConst(int(v)), ir.Dotted(("pl", "INDEX"))))


def exprs_equal(a, b) -> bool:
    """``AreExprsEqual`` (expr.cpp:56-84): ConstInts by value; binary exprs / calls
    structurally; variables by name (printed names identify vars)."""
    if a is b:
        return True
    ca, cb = const_value(a), const_value(b)
    if ca is not None or cb is not None:
        return ca is not None and ca == cb
    if isinstance(a, ir.BinOp) and isinstance(b, ir.BinOp):
        return a.op == b.op and exprs_equal(a.left, b.left) and exprs_equal(a.right, b.right)
    if isinstance(a, ir.UnaryOp) and isinstance(b, ir.UnaryOp):
        return a.op == b.op and exprs_equal(a.operand, b.operand)
    if isinstance(a, ir.Call) and isinstance(b, ir.Call):
        return (a.func == b.func and len(a.args) == len(b.args)
                and all(exprs_equal(x, y) for x, y in zip(a.args, b.args)) and a.kwargs == b.kwargs)
    return a == b


def expr_lists_equal(a: Sequence, b: Sequence) -> bool:
    return len(a) == len(b) and all(exprs_equal(x, y) for x, y in zip(a, b))


# ----------------------------------------------------------------------------- implicit layout (§4)


@record(frozen=True)
class ImplicitLayout(Record):
    def __init__(self, blayout: str, slayout: str, fractal: int):
        self.blayout, self.slayout, self.fractal = blayout, slayout, fractal


def shape_layout(shape: Sequence) -> str:
    """``InferImplicitTileLayoutFromShape``: col_major iff 2-D, both dims ConstInt,
    cols == 1 and rows > 1; otherwise row_major."""
    if len(shape) == 2:
        r, c = const_value(shape[0]), const_value(shape[1])
        if r is not None and c is not None and c == 1 and r > 1:
            return "col_major"
    return "row_major"


def implicit_fractal(space) -> int:
    space = norm_space(space)
    if space in ("LeftScale", "RightScale"):
        return 32
    if space == "Acc":
        return 1024
    return 512


def implicit_layout(shape: Sequence, space) -> ImplicitLayout:
    """``GetImplicitTileLayout(shape, space)`` (tileview.md §4 table)."""
    space = norm_space(space)
    lay = _FIXED_LAYOUT.get(space)
    if lay is not None:
        return lay
    by_shape = _SHAPE_LAYOUT.get(space)
    if by_shape is None:
        raise ValueError(space)
    return by_shape[shape_layout(shape)]


# The implicit layouts (frozen records, shared): the spaces whose layout is fixed, and
# those whose block layout follows the shape (shape_layout's row_major / col_major).
_FIXED_LAYOUT = {
    "Mat": ImplicitLayout("col_major", "row_major", 512),
    "Left": ImplicitLayout("col_major", "row_major", 512),
    "Acc": ImplicitLayout("col_major", "row_major", 1024),
    "LeftScale": ImplicitLayout("row_major", "row_major", 32),
    "RightScale": ImplicitLayout("col_major", "col_major", 32),
}
_NONE_BOX = {b: ImplicitLayout(b, "none_box", 512) for b in ("row_major", "col_major")}
_SHAPE_LAYOUT = {
    None: _NONE_BOX, "DDR": _NONE_BOX, "Vec": _NONE_BOX, "Bias": _NONE_BOX, "ScalarLocal": _NONE_BOX,
    "Right": {b: ImplicitLayout(b, "col_major", 512) for b in ("row_major", "col_major")},
}


# ----------------------------------------------------------------------------- full views


@record(frozen=True)
class EffectiveView(Record):
    """All 8 TileView fields with their real values (PyPTO's ``TileView`` struct).

    ``valid_shape == ()`` means "same as shape" (only in a stored view; an effective view
    always has it filled).  ``pad``/``compact`` use the names ``"null"`` etc.
    """
    def __init__(self, valid_shape: tuple = (), stride: tuple = (),
                 start_offset: Optional[ir.Expr] = None, blayout: str = "row_major",
                 slayout: str = "none_box", fractal: int = 512, pad: str = "null",
                 compact: str = "null"):
        self.valid_shape, self.stride, self.start_offset = valid_shape, stride, start_offset
        self.blayout, self.slayout, self.fractal = blayout, slayout, fractal
        self.pad, self.compact = pad, compact

    def with_layout(self, lay: ImplicitLayout) -> "EffectiveView":
        return replace(self, blayout=lay.blayout, slayout=lay.slayout, fractal=lay.fractal)

    def layout(self) -> ImplicitLayout:
        return ImplicitLayout(self.blayout, self.slayout, self.fractal)


FRESH = EffectiveView()


def fresh_view(valid_shape: Sequence = (), **kw) -> EffectiveView:
    """The default-constructed TileView (row_major, none_box, 512) with overrides."""
    return EffectiveView(valid_shape=tuple(valid_shape), **kw)


def implicit_view(shape: Sequence, space) -> EffectiveView:
    """``GetImplicitTileView(shape, space)`` (valid_shape = full shape)."""
    lay = implicit_layout(shape, space)
    return EffectiveView(tuple(shape), (), None, lay.blayout, lay.slayout, lay.fractal)


def is_implicit_view(view: EffectiveView, shape: Sequence, space) -> bool:
    """``IsImplicitPrintedTileView``."""
    lay = implicit_layout(shape, space)
    return ((not view.valid_shape or expr_lists_equal(view.valid_shape, shape))
            and not view.stride and view.start_offset is None
            and view.pad in _NULLS and view.compact in _NULLS
            and view.blayout == lay.blayout and view.slayout == lay.slayout and view.fractal == lay.fractal)


def canonicalize_view(view: Optional[EffectiveView], shape: Sequence, space) -> Optional[EffectiveView]:
    """TileType constructor canonicalisation: clear a valid_shape structurally equal to the
    shape, then drop the view if it is implicit for (shape, space)."""
    if view is None:
        return None
    view = _cleared(view, shape)
    if _implicit_cleared(view, shape, space):
        return None
    return view


def _cleared(view: EffectiveView, shape: Sequence) -> EffectiveView:
    """The view with a valid_shape structurally equal to the shape cleared (the first step
    of the canonicalisation; a cleared view's valid_shape is empty or differs from the
    shape, so clearing again changes nothing)."""
    if view.valid_shape and expr_lists_equal(view.valid_shape, shape):
        return replace(view, valid_shape=())
    return view


def _implicit_cleared(view: EffectiveView, shape: Sequence, space) -> bool:
    """``is_implicit_view`` of a cleared view (see :func:`_cleared`): its valid_shape is
    implicit only when empty."""
    if (view.valid_shape or view.stride or view.start_offset is not None
            or view.pad not in _NULLS or view.compact not in _NULLS):
        return False
    lay = implicit_layout(shape, space)
    return view.blayout == lay.blayout and view.slayout == lay.slayout and view.fractal == lay.fractal


def view_from_printed(pv: Optional[ir.TileView], shape: Sequence, space) -> Optional[EffectiveView]:
    """Stored view of an annotation: printed fields, the rest from the implicit view of
    (shape, space).  ``None`` -> ``None`` (no stored view)."""
    if pv is None:
        return None
    lay = implicit_layout(shape, space)
    return EffectiveView(
        valid_shape=tuple(pv.valid_shape) if pv.valid_shape is not None else (),
        stride=tuple(pv.stride) if pv.stride is not None else (),
        start_offset=pv.start_offset,
        blayout=norm_layout(pv.blayout) if pv.blayout is not None else lay.blayout,
        slayout=norm_layout(pv.slayout) if pv.slayout is not None else lay.slayout,
        fractal=int(pv.fractal) if pv.fractal is not None else lay.fractal,
        pad=norm_pad(pv.pad),
        compact=norm_compact(pv.compact),
    )


def printed_view(view: Optional[EffectiveView], shape: Sequence, space,
                 cleared: bool = False) -> Optional[ir.TileView]:
    """The ``pl.TileView(...)`` the printer emits for a stored view (fields differing from the
    implicit view of (shape, space)); None when no view is stored.  ``cleared``: the view's
    valid_shape is known to be empty or other than the shape (see :func:`_cleared`)."""
    if view is None:
        return None
    lay = implicit_layout(shape, space)
    vs = view.valid_shape
    return ir.TileView(
        valid_shape=tuple(vs) if vs and (cleared or not expr_lists_equal(vs, shape)) else None,
        stride=tuple(view.stride) if view.stride else None,
        start_offset=view.start_offset,
        blayout=view.blayout if view.blayout != lay.blayout else None,
        slayout=view.slayout if view.slayout != lay.slayout else None,
        fractal=view.fractal if view.fractal != lay.fractal else None,
        pad=view.pad if view.pad not in _NULLS else None,
        compact=view.compact if view.compact not in _NULLS else None,
    )


def stored_view(t: ir.TileType) -> Optional[EffectiveView]:
    """The stored (canonical) view of a TileType annotation, or None."""
    return canonicalize_view(view_from_printed(t.view, t.shape, norm_space(t.space)), t.shape, norm_space(t.space))


def effective_view(t: ir.TileType) -> EffectiveView:
    """``GetEffectiveTileView``: the stored view with an empty valid_shape filled by the
    shape, else the implicit view of (shape, space)."""
    v = view_from_printed(t.view, t.shape, norm_space(t.space))
    if v is None:
        return implicit_view(t.shape, t.space)
    if not v.valid_shape:
        v = replace(v, valid_shape=tuple(t.shape))
    return v


def valid_shape_of(t: ir.TileType) -> tuple:
    """VS(t): the stored non-empty valid_shape, else the shape (TIH:686-717).  A stored
    valid_shape of another rank than the shape (an ND load kept under a 2D annotation,
    ast_parser.py:450-485) is PyPTO's ResolveValidShape error: the deducer of an op that
    reads the operand's valid region throws (a store or a plain assignment does not)."""
    if t.view is not None and t.view.valid_shape:
        if len(t.view.valid_shape) != len(t.shape):
            raise DeductionError(
                f"TileType valid_shape rank ({len(t.view.valid_shape)}) must match the physical shape rank "
                f"({len(t.shape)}): valid_shape {_shape_text(t.view.valid_shape)} vs shape {_shape_text(t.shape)}")
        return tuple(t.view.valid_shape)
    return tuple(t.shape)


def _shape_text(dims) -> str:
    from tilemem.ir.printer import print_expr
    return "[" + ", ".join(print_expr(d) for d in dims) + "]"


# ----------------------------------------------------------------------------- building types


def make_tile_type(shape: Sequence, dtype, memref, space, view: Optional[EffectiveView]) -> ir.TileType:
    """``TileType(shape, dtype, memref, view, space)``: canonicalise ``view`` against
    (shape, space) and return the annotation (printed view or None)."""
    space = norm_space(space)
    shape = tuple(shape)
    sv = canonicalize_view(view, shape, space)
    return ir.TileType(shape, norm_dtype(dtype), memref, space, printed_view(sv, shape, space, True))


def implicit_type(shape: Sequence, dtype, memref, space) -> ir.TileType:
    """A tile type whose view is the implicit view of (shape, space) (retargeted
    tile.load / tile.create results, tileview.md §5)."""
    return ir.TileType(tuple(shape), norm_dtype(dtype), memref, norm_space(space), None)


def retype(t: ir.TileType, new_space) -> ir.TileType:
    """The pass's retyping of a Var/IterArg whose space is resolved to ``new_space``
    (tileview.md §5, pass.cpp:488-504).

    Space changed (an absent space counts as changed): effective view computed with the OLD
    space, blayout/slayout/fractal overwritten by the implicit layout of the NEW space, the
    other fields kept, then canonicalised against the new space.  Unchanged: stored view kept.
    """
    new_space = norm_space(new_space)
    old_space = norm_space(t.space)
    if old_space == new_space and new_space is not None:
        sv = stored_view(t)           # (canonical: its valid_shape cleared)
        return ir.TileType(tuple(t.shape), norm_dtype(t.dtype), t.memref, new_space,
                           printed_view(sv, t.shape, new_space, True))
    ev = effective_view(t).with_layout(implicit_layout(t.shape, new_space))
    return make_tile_type(t.shape, t.dtype, t.memref, new_space, ev)


def respace(t: ir.TileType, new_space) -> ir.TileType:
    """The LHS of a call the pass does not rebuild (none of its arguments changed), whose
    var is resolved to ``new_space`` (pass.cpp:713-748): the LHS is synced to the call's
    own, unchanged result type — its STORED view kept as it is (no layout refresh, unlike
    ``retype``) — with the resolved space, canonicalised against that space.  E.g. a Mat
    ``transpose_view`` of an unresolved phi whose result the pass puts in Vec keeps its
    ``row_major``/``col_major`` view, printed relative to Vec as ``slayout=col_major``."""
    return make_tile_type(t.shape, t.dtype, t.memref, new_space, stored_view(t))


def build_result_type(shape: Sequence, dtype, raw_view: Optional[EffectiveView], *,
                      deducer_space=None, stamped_space=None, lhs_space=None,
                      memref=None, lhs_memref=None) -> ir.TileType:
    """Model the three canonicalisations a deduced call type goes through (typerules.md §1).

    1. The deducer builds ``TileType(shape, dtype, memref, raw_view, deducer_space)``:
       canonicalised against ``deducer_space`` (often None).
    2. If ``deducer_space`` is None the registry stamps ``stamped_space`` (resolver result, or
       the first TileType arg's space) and rebuilds with the SAME stored view:
       canonicalised against that space.
    3. The pass syncs the LHS: ``TileType(shape, dtype, memref or lhs_memref, stored view,
       lhs_space)``: canonicalised against the LHS space (``lhs_space`` None = keep the call's).

    Returns the LHS annotation type (printed view relative to the final space).
    """
    shape = tuple(shape)
    space = norm_space(deducer_space)
    # each canonicalisation clears the valid_shape (once is enough: see _cleared) and drops
    # an implicit view
    stored = raw_view
    if stored is not None:
        stored = _cleared(stored, shape)
        if _implicit_cleared(stored, shape, space):
            stored = None
    if space is None:
        space = norm_space(stamped_space)
        if stored is not None and _implicit_cleared(stored, shape, space):
            stored = None
    lhs_space = norm_space(lhs_space)
    if lhs_space is not None and lhs_space != space:
        space = lhs_space
        if stored is not None and _implicit_cleared(stored, shape, space):
            stored = None
    mr = memref if memref is not None else lhs_memref
    return ir.TileType(shape, norm_dtype(dtype), mr, space, printed_view(stored, shape, space, True))
