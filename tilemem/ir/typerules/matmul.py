"""Result types of the matmul family (typerules.md §3.7)."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.ir.symbolic import int_const as _c, prove_eq
from tilemem.ir.typerules.common import (
    _Res, _dt_text, _need_tile, _provably_less, _rule, _shape_text, acc_compact, bcast,
    extent_text, matching_extents,
)
from tilemem.ir.views import (
    DeductionError, EffectiveView, const_value, effective_view, fresh_view, is_float,
    norm_dtype, norm_space, stored_view, valid_shape_of,
)


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
        matching_extents(op, "physical inner dimensions (physical K)", lhs.shape[1], rhs.shape[0],
                         "lhs K", "rhs K")
        vl, vr = const_value(valid_shape_of(lhs)[1]), const_value(valid_shape_of(rhs)[0])
        if vl is not None and vr is not None and vl > vr:
            raise DeductionError(f"The operator {op} requires rhs valid K to cover lhs valid K, but got "
                                 f"lhs K={vl} and rhs K={vr}")
        if norm_dtype(lhs.dtype) != norm_dtype(rhs.dtype):
            raise DeductionError(f"The operator {op} requires identical lhs and rhs data types, but got "
                                 f"{_dt_text(lhs.dtype)} and {_dt_text(rhs.dtype)}")
    return shape, valid


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
            matching_extents(op, f"physical {what} dimensions", acc.shape[i], shape[i], f"acc {what}",
                             f"product {what}")
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
        raise DeductionError(f"GEMV requires rhs logical K to cover lhs logical K, but got lhs K={extent_text(lv[1])} "
                             f"and rhs K={extent_text(rv[0])}")
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
        matching_extents(op, f"{what} dimensions", a, b, f"acc {what}", f"{other} {what}")
    matching_extents(op, "inner dimensions", lhs.shape[-1], rhs.shape[-2], "lhs K", "rhs K")


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
