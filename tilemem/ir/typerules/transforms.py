"""Result types of the view and transform tile ops (slice, reshape, transpose,
reinterpret, assemble, extract, concat, ...) and fill-pad (typerules.md §3.9-§3.10)."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Sequence

from tilemem import ir
from tilemem.ir.symbolic import finalize_dims as _fin, int_const as _c, prove_eq, s_floordiv, s_mul
from tilemem.ir.typerules.common import (
    _Res, _Unknown, _dims, _dt_text, _kw_int, _list_items, _need_tile, _norm_dim, _rule,
    check_window_bounds, check_write_bounds, extent_text, reshape_valid, window_read,
    write_union,
)
from tilemem.ir.typerules.memory import _opt_valid, _value_shape
from tilemem.ir.views import (
    DeductionError, const_value, dtype_bits, dtype_bytes, effective_view, expr_lists_equal,
    fresh_view, implicit_layout, norm_dtype, norm_pad, norm_space, shape_layout, stored_view,
    valid_shape_of,
)
from tilemem.records import replace


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
            raise DeductionError(f"{op} cannot drop dimension {a}: its valid extent is {extent_text(valid[a])}, which is "
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
