"""Result types of the gather, scatter and sort tile ops (typerules.md §3.11)."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Mapping, Sequence

from tilemem import ir
from tilemem.ir.symbolic import finalize_dims as _fin, int_const as _c, s_floordiv, s_mul
from tilemem.ir.typerules.common import _Res, _Unknown, _kw_int, _lay, _need_tile, _norm_dim, _rule
from tilemem.ir.views import (
    DeductionError, build_result_type, dtype_bytes, effective_view, fresh_view, norm_dtype,
)


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
