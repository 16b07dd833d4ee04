"""Result types of the cross-core tile ops: the AIV shard ops and their split modes
(typerules.md §3.12)."""
from __future__ import annotations

from tilemem.ir.symbolic import int_const as _c, prove_eq, s_add, s_ceildiv, s_floordiv, s_mul
from tilemem.ir.typerules.common import (
    _Res, _Unknown, _kw_enum, _kw_int, _need_tile, _rule, extent_text,
)
from tilemem.ir.views import DeductionError, const_value, fresh_view, norm_dtype, valid_shape_of


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
    ext = lambda i: f"{extent_text(valid[i])} of {extent_text(shape[i])}"
    cols = extent_text(shape[1])
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
            f"        acc = pl.set_validshape(acc, {extent_text(valid[0])}, {cols})\n"
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
