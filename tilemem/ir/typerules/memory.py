"""Result types of the memory and creation tile ops: move, load, create, write, full,
mgather (typerules.md §3.8)."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Mapping, Optional, Sequence

from tilemem import ir
from tilemem.ir.symbolic import int_const as _c, prove_le, s_max, s_min, s_sub
from tilemem.ir.typerules.common import (
    _Res, _Unknown, _dims, _dt_text, _kw_bool, _kw_enum, _kw_int, _list_items, _need_kwarg,
    _need_tile, _provably_less, _rule, _wrap, check_window_bounds, extent_text,
)
from tilemem.ir.views import (
    DeductionError, EffectiveView, const_value, effective_view, exprs_equal, fresh_view,
    implicit_layout, norm_dtype, norm_layout, norm_space, shape_layout, stored_view,
)
from tilemem.records import replace


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
    # one rank for offsets, shapes and valid_shape: the ir wrapper's check (PyPTO's words, seen
    # from its reader), then DeduceTileLoadType's (tile_ops/memory.cpp)
    if len(args) > 2 and len(offs) != len(shapes):
        raise DeductionError(f"offsets and shapes must have same number of dimensions, got {len(offs)} offsets "
                             f"and {len(shapes)} shapes")
    if len(req) != len(shapes):
        raise DeductionError(f"The operator {op} requires valid_shape and shapes to have the same number of "
                             f"dimensions, but got {len(req)} valid_shape and {len(shapes)} shapes")
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
            errors.append(f"{op} valid_shape dimension {i} has provably negative extent {extent_text(v)}; expected "
                          f"0 <= valid_shape[{i}] <= shape[{i}] ({extent_text(s)})")
        if _provably_less(s, v):
            errors.append(f"{op} valid_shape dimension {i} extent {extent_text(v)} provably exceeds physical shape "
                          f"extent {extent_text(s)}")
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
