"""Result-type rules (typerules.md worked examples W1-W34, tileview.md §5-§8).

Inputs are built as the types the pass sees (after retyping / move insertion); every
expected value is the exact LHS annotation PyPTO printed, written as an ``ir`` object.
"""
import re

import pytest

from tilemem import ir
from tilemem.ir import typerules as R
from tilemem.ir import symbolic as S
from tilemem.ir.typerules import ArgInfo, DeductionError, derive_result_type as derive

from ir_helpers import T, d, dims  # noqa: F401  (not every helper is used in each file)


# ----------------------------------------------------------------------------- helpers




def L(*xs):
    return ir.ListExpr(dims(xs))


def mem(s):
    return ir.Dotted(("pl", "Mem", s))


def lay(s):
    return ir.Dotted(("pl", "TileLayout", s))


def pad(s):
    return ir.Dotted(("pl", "PadValue", s))


def dt(s):
    return ir.Dotted(("pl", s))


def pconst(v, t="INDEX"):
    return ir.Call("pl.const", (ir.IntConst(v), ir.Dotted(("pl", t))))


def pmin(a, b):
    return ir.Call("pl.min", (a, b))


def pmax(a, b):
    return ir.Call("pl.max", (a, b))


def move(src, target, lhs=None, **kw):
    kwargs = {"target_memory": mem(target)}
    kwargs.update({k: lay(v) for k, v in kw.items()})
    return derive("tile.move", [src], kwargs, lhs_space=lhs or target)


# common tiles (typerules.md §6 preamble)
m = T([16, 128], "FP32", "Mat")
mp = T([16, 128], "FP32", "Mat", valid_shape=[16, 100])
t = T([16, 128], "FP32", "Vec")
tp = T([16, 128], "FP32", "Vec", valid_shape=[16, 100])
COLROW = dict(blayout="col_major", slayout="row_major")
m_Vec = T([16, 128], "FP32", "Vec", **COLROW)


# ----------------------------------------------------------------------------- move (tileview.md §6)


def test_move_mat_to_vec_no_kwargs():
    assert move(m, "Vec") == m_Vec
    assert move(T([16, 128], "BF16", "Mat"), "Vec") == T([16, 128], "BF16", "Vec", **COLROW)


def test_move_mat_to_vec_with_layout_kwargs():
    assert move(T([16, 128], "BF16", "Mat"), "Vec", blayout="row_major", slayout="none_box") == \
        T([16, 128], "BF16", "Vec")


def test_move_vec_to_left_right():
    v = T([16, 128], "BF16", "Vec")
    assert move(v, "Left") == T([16, 128], "BF16", "Left")
    assert move(v, "Right") == T([16, 128], "BF16", "Right")
    assert move(T([128, 1], "BF16", "Vec"), "Right") == T([128, 1], "BF16", "Right", blayout="row_major")


def test_move_acc_to_vec_pass_kwargs():
    acc = T([16, 128], "FP32", "Acc")
    # an Acc -> Vec move carries these kwargs whatever the backend (rules/p2_moves.dl)
    kw = {"target_memory": mem("Vec"), "blayout": lay("row_major"), "slayout": lay("none_box")}
    assert derive("tile.move", [acc], kw, lhs_space="Vec") == T([16, 128], "FP32", "Vec")


def test_move_w10_acc_valid_compact_not_carried():
    c = T([16, 64], "FP32", "Acc", valid_shape=[10, 40], compact="normal")
    c_vec = move(c, "Vec", blayout="row_major", slayout="none_box")
    assert c_vec == T([16, 64], "FP32", "Vec", valid_shape=[10, 40])
    assert derive("tile.exp", [c_vec], {}, lhs_space="Vec") == c_vec


def test_move_w31_n1_mat_to_vec():
    m1 = T([16, 1], "FP32", "Mat")
    m1_vec = move(m1, "Vec")
    assert m1_vec == T([16, 1], "FP32", "Vec", slayout="row_major")
    assert derive("tile.row_expand_mul", [tp, m1_vec], {}, lhs_space="Vec") == tp


def test_move_w32_bias_does_not_dictate():
    assert move(m, "Bias") == T([16, 128], "FP32", "Bias", **COLROW)


def test_move_w33_backend_first_consumer_exp():
    # with a backend, the move carries tile.exp's input layout (rules/p2_moves.dl)
    kw = {"target_memory": mem("Vec"), "blayout": lay("row_major"), "slayout": lay("none_box")}
    m_vec = derive("tile.move", [mp], kw, lhs_space="Vec")
    assert m_vec == tp
    assert derive("tile.exp", [m_vec], {}, lhs_space="Vec") == tp
    assert derive("tile.row_sum", [m_vec, t], {}, lhs_space="Vec") == T([16, 1], "FP32", "Vec")
    assert derive("tile.row_expand_sub", [m_vec, T([16, 1], "FP32", "Vec")], {}, lhs_space="Vec") == tp


def test_move_backend_consumer_without_spec():
    # tile.neg has no layout spec: the move keeps the Mat layout and consumers carry it
    kw = {"target_memory": mem("Vec")}
    m_vec = derive("tile.move", [m], kw, lhs_space="Vec")
    assert m_vec == m_Vec
    assert derive("tile.neg", [m_vec], {}, lhs_space="Vec") == m_Vec
    assert derive("tile.exp", [m_vec], {}, lhs_space="Vec") == m_Vec


def test_move_requires_target():
    with pytest.raises(DeductionError):
        derive("tile.move", [m], {}, lhs_space="Vec")


def test_move_to_scale_space():
    s = T([16, 32], "UINT8", "Mat", blayout="row_major", slayout="row_major", fractal=32)
    assert move(s, "LeftScale") == T([16, 32], "FP8E8M0", "LeftScale")
    with pytest.raises(DeductionError):
        move(T([16, 32], "FP32", "Mat"), "LeftScale")


# ----------------------------------------------------------------------------- elementwise (W1, W2, W20, W30)


def test_w1_w2_lhs_decides_layout():
    assert derive("tile.add", [m_Vec, t], {}, lhs_space="Vec") == m_Vec
    assert derive("tile.add", [t, m_Vec], {}, lhs_space="Vec") == t
    assert derive("pl.tile.and_", [m_Vec, t], {}, lhs_space="Vec") == m_Vec


def test_w20_broadcast_first_operand_shapes_view():
    b = T([16, 1], "FP32", "Vec")
    assert derive("tile.add", [b, tp], {}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec", valid_shape=[16, 1], blayout="col_major")
    assert derive("tile.add", [tp, b], {}, lhs_space="Vec") == tp
    row = T([1, 128], "FP32", "Vec")
    assert derive("tile.mul", [row, t], {}, lhs_space="Vec") == T([16, 128], "FP32", "Vec", valid_shape=[1, 128])


def test_broadcast_error():
    with pytest.raises(DeductionError):
        derive("tile.add", [T([16, 128]), T([16, 64])], {}, lhs_space="Vec")


def test_w30_dtype_promotion():
    tb = T([16, 128], "BF16", "Vec")
    h = T([16, 128], "FP16", "Vec")
    two = ir.FloatConst("2.0")
    assert derive("tile.addsc", [tb, two, tb], {}, lhs_space="Vec") == T([16, 128], "FP32", "Vec")
    assert derive("tile.expands", [tb, ir.FloatConst("1.0")], {}, lhs_space="Vec") == T([16, 128], "FP32", "Vec")
    assert derive("tile.adds", [tb, two], {}, lhs_space="Vec") == tb
    assert derive("tile.add", [tb, h], {}, lhs_space="Vec") == tb
    assert derive("tile.add", [h, tb], {}, lhs_space="Vec") == h
    i16 = T([16, 128], "INT16", "Vec")
    assert derive("tile.expands", [i16, ArgInfo(ir.Name("s"), ir.ScalarType("INT32"))], {}, lhs_space="Vec") == \
        T([16, 128], "INT32", "Vec")
    assert derive("tile.expands", [i16, pconst(1, "INT16")], {}, lhs_space="Vec") == i16


def test_ternary_and_select_ops():
    mask = T([16, 128], "UINT8", "Vec")
    assert derive("tile.sel", [mask, m_Vec, t, t], {}, lhs_space="Vec") == m_Vec
    assert derive("tile.sels", [mask, tp, t, ir.FloatConst("0.0")], {}, lhs_space="Vec") == tp
    assert derive("tile.addc", [tp, t, t], {}, lhs_space="Vec") == tp
    assert derive("tile.prelu", [tp, t, t], {}, lhs_space="Vec") == tp
    assert derive("tile.rem", [m_Vec, t, t], {}, lhs_space="Vec") == m_Vec
    i32 = T([16, 128], "INT32", "Vec")
    assert derive("tile.shl", [i32, T([16, 128], "INT16", "Vec")], {}, lhs_space="Vec") == i32


def test_tile_scalar_ops_ignore_scalar_dtype():
    for op in ("tile.muls", "tile.adds", "tile.divs", "tile.maximums", "tile.minimums", "tile.subs", "tile.lrelu"):
        assert derive(op, [tp, ir.FloatConst("2.0")], {}, lhs_space="Vec") == tp


# ----------------------------------------------------------------------------- unary / cast (W3)


def test_w3_cast_carries_layout():
    kw = {"target_type": dt("BF16"), "mode": ir.StrConst("round")}
    assert derive("tile.cast", [m_Vec], kw, lhs_space="Vec") == T([16, 128], "BF16", "Vec", **COLROW)
    with pytest.raises(DeductionError):
        derive("tile.cast", [t], {"target_type": dt("FP32")}, lhs_space="Vec")


@pytest.mark.parametrize("op", ["tile.neg", "tile.exp", "tile.sqrt", "tile.abs", "tile.relu", "tile.recip",
                                "tile.log", "tile.sin", "tile.cos", "tile.rsqrt"])
def test_unary_keeps_input_view(op):
    assert derive(op, [mp.__class__(mp.shape, "FP32", None, "Vec", mp.view)], {}, lhs_space="Vec") == tp
    assert derive(op, [m_Vec], {}, lhs_space="Vec") == m_Vec


def test_unary_fillpad_pad_is_inherited():
    x = T([32, 128], "FP32", "Vec", pad="min")
    assert derive("tile.exp", [x], {}, lhs_space="Vec") == x
    assert derive("tile.cast", [x], {"target_type": dt("BF16")}, lhs_space="Vec") == T([32, 128], "BF16", "Vec", pad="min")


# ----------------------------------------------------------------------------- reductions (W4, W16, W18)


def test_w4_row_sum_and_row_expand():
    assert derive("tile.row_sum", [m_Vec, t], {}, lhs_space="Vec") == T([16, 1], "FP32", "Vec")
    s = T([16, 1], "FP32", "Vec")
    assert derive("tile.row_expand_mul", [m_Vec, s], {}, lhs_space="Vec") == m_Vec


def test_w16_reductions():
    a = derive("tile.slice", [tp, L(1, 128), L(0, 0)], {}, lhs_space="Vec")
    assert a == T([1, 128], "FP32", "Vec", valid_shape=[1, 100])
    assert derive("tile.row_sum", [a, a], {}, lhs_space="Vec") == T([1, 1], "FP32", "Vec", blayout="col_major")
    assert derive("tile.col_sum", [tp], {}, lhs_space="Vec") == T([1, 128], "FP32", "Vec", valid_shape=[1, 100])
    assert derive("tile.row_argmax", [tp, tp], {}, lhs_space="Vec") == T([16, 1], "INT32", "Vec")
    assert derive("tile.col_argmax", [tp, tp], {}, lhs_space="Vec") == T([1, 128], "INT32", "Vec", valid_shape=[1, 100])


def test_w18_symbolic_valid():
    tn = T([16, 128], "FP32", "Vec", valid_shape=["n", "n"])
    packed = ir.BinOp("//", ir.BinOp("+", ir.Name("n"), pconst(7)), pconst(8))
    assert derive("tile.cmps", [tn, ir.FloatConst("0.0")], {"cmp_type": ir.IntConst(1)}, lhs_space="Vec") == \
        T([16, 32], "UINT8", "Vec", valid_shape=["n", packed])
    assert derive("tile.row_sum", [tn, tn], {}, lhs_space="Vec") == T([16, 1], "FP32", "Vec", valid_shape=["n", 1])


def test_row_reduction_layout_errors():
    with pytest.raises(DeductionError):
        derive("tile.row_min", [m_Vec, m_Vec], {}, lhs_space="Vec")
    with pytest.raises(DeductionError):
        derive("tile.row_expand_add", [m_Vec, T([16, 1], "FP32", "Vec")], {}, lhs_space="Vec")
    assert derive("tile.row_expand_add", [tp, T([16, 1], "FP32", "Vec")], {}, lhs_space="Vec") == tp


def test_col_expand():
    c = T([1, 128], "FP32", "Vec")
    assert derive("tile.col_expand_mul", [m_Vec, c], {}, lhs_space="Vec") == m_Vec
    assert derive("tile.col_expand", [tp, c], {}, lhs_space="Vec") == tp


# ----------------------------------------------------------------------------- compare (W17)


def test_w17_cmp_packed():
    mp_vec = move(mp, "Vec")
    assert mp_vec == T([16, 128], "FP32", "Vec", valid_shape=[16, 100], **COLROW)
    assert derive("tile.cmp", [mp_vec, tp], {"cmp_type": ir.IntConst(1)}, lhs_space="Vec") == \
        T([16, 32], "UINT8", "Vec", valid_shape=[16, 13], **COLROW)
    assert derive("tile.cmps", [tp, ir.FloatConst("0.0")], {"cmp_type": ir.IntConst(1)}, lhs_space="Vec") == \
        T([16, 32], "UINT8", "Vec", valid_shape=[16, 13])


# ----------------------------------------------------------------------------- slice / views (W5-W8, W25, W27, W28, W34)


def test_w5_slice_of_mat():
    assert derive("tile.slice", [m, L(16, 64), L(0, 0)], {}, lhs_space="Mat") == T([16, 64], "FP32", "Mat")
    assert derive("tile.slice", [m, L(16, 64), L(0, 0), L(16, 50)], {}, lhs_space="Mat") == \
        T([16, 64], "FP32", "Mat", valid_shape=[16, 50], blayout="row_major", slayout="none_box")


def test_w6_slice_window_read():
    assert derive("tile.slice", [mp, L(16, 64), L(0, 64)], {}, lhs_space="Mat") == \
        T([16, 64], "FP32", "Mat", valid_shape=[16, 36])
    assert derive("tile.slice", [mp, L(16, 64), L(0, 0)], {}, lhs_space="Mat") == T([16, 64], "FP32", "Mat")


def test_slice_symbolic_offset_window_read():
    # typerules.md §2.1 verified example
    got = derive("tile.slice", [tp, L(16, 64), L(0, "n")], {}, lhs_space="Vec")
    want = pmin(pmax(ir.BinOp("-", pconst(100), ir.Name("n")), pconst(0)), pconst(64))
    assert got == T([16, 64], "FP32", "Vec", valid_shape=[16, want])


def test_slice_symbolic_source_valid():
    # corpus: slice of valid [cs_rows, 16] at row offset lv, window/request [1, 16]
    src = T([8, 16], "FP32", "Vec", valid_shape=["cs_rows", 16])
    got = derive("tile.slice", [src, L(1, 16), L("lv", 0), L(1, 16)], {}, lhs_space="Vec")
    want = pmin(pmax(ir.BinOp("-", ir.Name("cs_rows"), ir.Name("lv")), pconst(0)), pconst(1))
    assert got == T([1, 16], "FP32", "Vec", valid_shape=[want, 16])
    # symbolic valid, zero offset: min(rows, window)
    src = T([16, 512], "BF16", "Mat", valid_shape=["x_rows", 512])
    got = derive("tile.extract", [src, ir.IntConst(0), ir.Name("ko"), L(16, 256)], {"target_memory": mem("Left")},
                 lhs_space="Left")
    assert got == T([16, 256], "BF16", "Left", valid_shape=[pmin(ir.Name("x_rows"), pconst(16)), 256],
                    blayout="row_major", compact="normal")


def test_w7_transpose_view():
    assert derive("tile.transpose_view", [m], {}, lhs_space="Mat") == \
        T([128, 16], "FP32", "Mat", blayout="row_major", slayout="col_major")
    bf = T([16, 128], "BF16", "Mat")
    assert derive("tile.transpose_view", [bf], {}, lhs_space="Mat") == \
        T([128, 16], "BF16", "Mat", blayout="row_major", slayout="col_major")


def test_w8_transpose_reshape_mat():
    assert derive("tile.transpose", [m, ir.IntConst(0), ir.IntConst(1)], {}, lhs_space="Mat") == \
        T([128, 16], "FP32", "Mat")
    assert derive("tile.reshape", [m, L(32, 64)], {}, lhs_space="Mat") == T([32, 64], "FP32", "Mat")
    with pytest.raises(DeductionError):
        derive("tile.reshape", [T([16, 128], "FP32", "Mat", valid_shape=[8, 128]), L(32, 64)], {}, lhs_space="Mat")


def test_w25_transpose_of_row_vector():
    cv = T([1, 128], "FP32", "Vec")
    assert derive("tile.transpose", [cv, ir.IntConst(0), ir.IntConst(1)], {}, lhs_space="Vec") == \
        T([128, 1], "FP32", "Vec", blayout="row_major")
    assert derive("tile.transpose_view", [cv], {}, lhs_space="Vec") == T([128, 1], "FP32", "Vec")
    assert derive("tile.transpose", [tp, ir.IntConst(0), ir.IntConst(1)], {}, lhs_space="Vec") == \
        T([128, 16], "FP32", "Vec")


def test_w27_slice_reshape_of_acc():
    c = T([16, 64], "FP32", "Acc")
    assert derive("tile.slice", [c, L(16, 32), L(0, 32), L(8, 32)], {}, lhs_space="Acc") == \
        T([16, 32], "FP32", "Acc", valid_shape=[8, 32], blayout="row_major", slayout="none_box", fractal=512)
    assert derive("tile.slice", [c, L(16, 32), L(0, 0)], {}, lhs_space="Acc") == T([16, 32], "FP32", "Acc")
    assert derive("tile.reshape", [c, L(32, 32)], {}, lhs_space="Acc") == T([32, 32], "FP32", "Acc")


def test_w28_reshape_and_slice_of_partial_vec():
    t8 = T([16, 128], "FP32", "Vec", valid_shape=[8, 128])
    assert derive("tile.reshape", [t8, L(32, 64)], {}, lhs_space="Vec") == \
        T([32, 64], "FP32", "Vec", valid_shape=[16, 64])
    assert derive("tile.reshape", [t8, L(1, 16, 128)], {}, lhs_space="Vec") == \
        T([1, 16, 128], "FP32", "Vec", valid_shape=[1, 8, 128])
    assert derive("tile.reshape", [t8, L(2048, 1)], {}, lhs_space="Vec") == \
        T([2048, 1], "FP32", "Vec", valid_shape=[1024, 1])        # blayout from the new shape
    assert derive("tile.slice", [t8, L(16, 64), L(0, 64)], {"pad_value": pad("zero")}, lhs_space="Vec") == \
        T([16, 64], "FP32", "Vec", valid_shape=[8, 64], pad="zero")
    assert derive("tile.slice", [t8, L(1, 128), L(0, 0)], {"drop_dims": L(0)}, lhs_space="Vec") == \
        T([1, 128], "FP32", "Vec")
    assert derive("tile.slice", [t8, L(1, 128), L(0, 0), L(1, 128), L(0)], {}, lhs_space="Vec") == \
        T([1, 128], "FP32", "Vec")


def test_w34_slice_of_left_and_right():
    al = move(T([16, 128], "BF16", "Mat"), "Left")
    assert al == T([16, 128], "BF16", "Left")
    br = move(T([128, 64], "BF16", "Mat"), "Right")
    assert br == T([128, 64], "BF16", "Right")
    sl = derive("tile.slice", [al, L(16, 64), L(0, 0), L(16, 40)], {}, lhs_space="Left")
    assert sl == T([16, 64], "BF16", "Left", valid_shape=[16, 40], blayout="row_major", slayout="none_box")
    sr = derive("tile.slice", [br, L(64, 64), L(0, 0), L(64, 40)], {}, lhs_space="Right")
    assert sr == T([64, 64], "BF16", "Right", valid_shape=[64, 40], slayout="none_box")
    assert derive("tile.matmul", [sl, sr], {}, lhs_space="Acc") == T([16, 64], "FP32", "Acc", valid_shape=[16, 40])


def test_slice_keeps_stored_view_layout():
    # a stored view's layout (incl. a moved Vec tile's col/row) is copied
    assert derive("tile.slice", [m_Vec, L(16, 64), L(0, 0)], {}, lhs_space="Vec") == \
        T([16, 64], "FP32", "Vec", **COLROW)


# ----------------------------------------------------------------------------- matmul family (W9-W11, W26, W29)


def test_w9_matmul_and_set_validshape():
    a, b = T([16, 128], "BF16", "Left"), T([128, 64], "BF16", "Right")
    c = derive("tile.matmul", [a, b], {}, lhs_space="Acc")
    assert c == T([16, 64], "FP32", "Acc")
    assert derive("tile.set_validshape", [c, ir.IntConst(8), ir.IntConst(32)], {}, lhs_space="Acc") == \
        T([16, 64], "FP32", "Acc", valid_shape=[8, 32])


def test_w10_partial_matmul_compact():
    a = T([16, 128], "BF16", "Left", valid_shape=[10, 128])
    b = T([128, 64], "BF16", "Right", valid_shape=[128, 40])
    assert derive("tile.matmul", [a, b], {}, lhs_space="Acc") == \
        T([16, 64], "FP32", "Acc", valid_shape=[10, 40], compact="normal")
    # full rows, partial cols: no compact
    a = T([16, 128], "BF16", "Left")
    assert derive("tile.matmul", [a, b], {}, lhs_space="Acc") == T([16, 64], "FP32", "Acc", valid_shape=[16, 40])


def test_w11_symbolic_rows_matmul_acc():
    a = T([16, 128], "BF16", "Left", valid_shape=["n", 128])
    b = T([128, 64], "BF16", "Right")
    want = T([16, 64], "FP32", "Acc", valid_shape=["n", 64], compact="normal")
    c = derive("tile.matmul", [a, b], {}, lhs_space="Acc")
    assert c == want
    assert derive("tile.matmul_acc", [c, a, b], {}, lhs_space="Acc") == want
    assert derive("tile.matmul_bias", [a, b, T([1, 64], "FP32", "Bias")], {}, lhs_space="Acc") == want


def test_matmul_int8():
    a, b = T([16, 32], "INT8", "Left"), T([32, 16], "INT8", "Right")
    assert derive("tile.matmul", [a, b], {}, lhs_space="Acc") == T([16, 16], "INT32", "Acc")


def test_w26_gemv():
    a = T([1, 128], "BF16", "Left")
    b = T([128, 64], "BF16", "Right", valid_shape=[128, 40])
    r = derive("tile.gemv", [a, b], {}, lhs_space="Acc")
    assert r == T([16, 64], "FP32", "Acc", valid_shape=[1, 40])
    assert derive("tile.gemv_acc", [r, a, b], {}, lhs_space="Acc") == r


def test_w29_matmul_mx():
    lhs = T([16, 64], "FP8E4M3FN", "Left", valid_shape=[10, 64])
    rhs = T([64, 32], "FP8E4M3FN", "Right")
    ls, rs = T([16, 2], "FP8E8M0", "LeftScale"), T([2, 32], "FP8E8M0", "RightScale")
    assert derive("tile.matmul_mx", [lhs, ls, rhs, rs], {}, lhs_space="Acc") == \
        T([16, 32], "FP32", "Acc", valid_shape=[10, 32], compact="normal")


def test_batch_matmul():
    a, b = T([4, 16, 32], "BF16", "Left"), T([32, 16], "BF16", "Right")
    assert derive("tile.batch_matmul", [T([16, 32], "BF16", "Left", valid_shape=[8, 32]), b], {}, lhs_space="Acc") == \
        T([16, 16], "FP32", "Acc")
    with pytest.raises(DeductionError):
        derive("tile.matmul", [a, b], {}, lhs_space="Acc")


# ----------------------------------------------------------------------------- extract (W12, W13)


def test_w12_extract():
    a, b = T([16, 128], "BF16", "Mat"), T([128, 64], "BF16", "Mat")
    z = ir.IntConst(0)
    assert derive("tile.extract", [a, z, z, L(16, 64)], {"target_memory": mem("Left")}, lhs_space="Left") == \
        T([16, 64], "BF16", "Left", blayout="row_major")
    assert derive("tile.extract", [b, z, z, L(64, 64)], {"target_memory": mem("Right")}, lhs_space="Right") == \
        T([64, 64], "BF16", "Right")


def test_w13_extract_partial():
    a = T([16, 128], "BF16", "Mat", valid_shape=[10, 128])
    b = T([128, 64], "BF16", "Mat", valid_shape=[128, 40])
    z = ir.IntConst(0)
    assert derive("tile.extract", [a, z, z, L(16, 64)], {"target_memory": mem("Left")}, lhs_space="Left") == \
        T([16, 64], "BF16", "Left", valid_shape=[10, 64], blayout="row_major", compact="normal")
    assert derive("tile.extract", [b, z, z, L(64, 64)], {"target_memory": mem("Right")}, lhs_space="Right") == \
        T([64, 64], "BF16", "Right", valid_shape=[64, 40], compact="normal")
    assert derive("tile.extract", [a, z, ir.IntConst(64), L(16, 64)], {"target_memory": mem("Vec")},
                  lhs_space="Vec") == T([16, 64], "BF16", "Vec", valid_shape=[10, 64])
    # default target Vec
    assert derive("tile.extract", [a, z, ir.IntConst(64), L(16, 64)], {}, lhs_space="Vec") == \
        T([16, 64], "BF16", "Vec", valid_shape=[10, 64])


# ----------------------------------------------------------------------------- fillpad (W14), set_validshape (W15)


def test_w14_fillpad():
    mp_vec = move(mp, "Vec")
    assert derive("tile.fillpad", [mp_vec], {"pad_value": pad("max")}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec", pad="max", **COLROW)
    assert derive("tile.fillpad", [tp], {}, lhs_space="Vec") == T([16, 128], "FP32", "Vec", pad="zero")
    assert derive("tile.fillpad_expand", [tp, L(32, 128)], {"pad_value": pad("min")}, lhs_space="Vec") == \
        T([32, 128], "FP32", "Vec", pad="min")
    with pytest.raises(DeductionError):
        derive("tile.fillpad", [tp], {"pad_value": pad("null")}, lhs_space="Vec")


def test_fillpad_keeps_input_memref():
    mr = ir.Subscript(ir.Call("pl.MemRef", (ir.StrConst("mem_vec_0", '"'),)), (ir.IntConst(0),))
    x = T([16, 128], "FP32", "Vec", memref=mr, valid_shape=[16, 100])
    assert derive("tile.fillpad", [x], {}, lhs_space="Vec") == T([16, 128], "FP32", "Vec", memref=mr, pad="zero")


def test_w15_set_validshape():
    assert derive("tile.set_validshape", [tp, ir.Name("n"), ir.IntConst(64)], {}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec", valid_shape=["n", 64])


# ----------------------------------------------------------------------------- creation (W19), concat


def test_w19_full_and_concat():
    assert derive("tile.full", [L(16, 1)], {"dtype": dt("FP32"), "value": ir.FloatConst("0.0")}, lhs_space="Vec") == \
        T([16, 1], "FP32", "Vec", blayout="row_major")
    assert derive("tile.full", [L(16, 128)], {"dtype": dt("FP32"), "value": ir.FloatConst("0.0")}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec")
    assert derive("tile.concat", [tp, tp], {}, lhs_space="Vec") == T([16, 256], "FP32", "Vec")


def test_tri_random_ci():
    assert derive("tile.tri", [ir.IntConst(0), L(16, 16), L(8, 16)], {"dtype": dt("FP32")}, lhs_space="Vec") == \
        T([16, 16], "FP32", "Vec", valid_shape=[8, 16])
    assert derive("tile.ci", [ir.IntConst(0), L(1, 128)], {"dtype": dt("INT32")}, lhs_space="Vec") == \
        T([1, 128], "INT32", "Vec")


# ----------------------------------------------------------------------------- gather family (W21, W22, W27b)


def test_w21_gather_compare_tuple():
    tmp = T([16, 128], "FP32", "Vec")
    got = derive("tile.gather_compare", [m_Vec, ir.FloatConst("0.0"), tmp],
                 {"cmp_mode": ir.IntConst(1), "offset": ir.IntConst(0), "out_cols": ir.IntConst(32)},
                 lhs_space=None)
    assert got == ir.TupleType((T([16, 32], "INT32", "Vec", **COLROW), T([1, 16], "INT32", "Vec")))


def test_w22_gatherb():
    o = T([16, 16], "UINT32", "Vec", valid_shape=[8, 8])
    assert derive("tile.gatherb", [tp, o], {}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec", valid_shape=[8, 64])


def test_w27b_mgather():
    xf = ir.TensorType(dims([1024, 128]), "FP32")
    ix = T([16, 1], "INT32", "Vec", valid_shape=[10, 1])
    assert derive("tile.mgather", [ArgInfo(ir.Name("xf"), xf), ix], {}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec", valid_shape=[10, 128])
    assert derive("tile.mgather", [ArgInfo(ir.Name("xf"), xf), ix], {"coalesce": ir.IntConst(1)}, lhs_space="Vec") == \
        T([16, 1], "FP32", "Vec", valid_shape=[10, 1], blayout="row_major")


def test_gather_mask_sort():
    src = T([16, 64], "FP32", "Vec", valid_shape=[8, 64])
    assert derive("tile.gather_mask", [src], {"mask_pattern": ir.IntConst(1)}, lhs_space="Vec") == \
        T([16, 32], "FP32", "Vec")
    assert derive("tile.gather_mask", [src], {"mask_pattern": ir.IntConst(3), "output_dtype": dt("INT32")},
                  lhs_space="Vec") == T([16, 16], "INT32", "Vec")
    assert derive("tile.sort32", [T([1, 32], "FP32", "Vec"), T([1, 32], "UINT32", "Vec")], {}, lhs_space="Vec") == \
        T([1, 64], "FP32", "Vec")
    assert derive("tile.mrgsort_format1", [src, ir.IntConst(64)], {}, lhs_space="Vec") == T([16, 64], "FP32", "Vec")
    idx = T([4, 8], "INT32", "Vec")
    assert derive("tile.gather", [src, idx, idx], {}, lhs_space="Vec") == T([4, 8], "FP32", "Vec")


def test_scatter_keeps_dst_view():
    dst = T([16, 128], "FP32", "Vec", valid_shape=[16, 100], stride=[128, 1])
    assert derive("tile.scatter_mask", [dst, t], {"mask_pattern": ir.IntConst(1)}, lhs_space="Vec") == dst
    assert derive("tile.scatter_update", [dst, t, t], {}, lhs_space="Vec") == dst


# ----------------------------------------------------------------------------- reinterpret / cross-core (W23, W24)


def test_w23_reinterpret_and_aiv_shard():
    assert derive("tile.reinterpret_view", [tp], {"dtype": dt("FP16")}, lhs_space="Vec") == \
        T([16, 256], "FP16", "Vec", valid_shape=[16, 200])
    assert derive("tile.aiv_shard", [tp], {"split": ir.IntConst(1)}, lhs_space="Vec") == \
        T([8, 128], "FP32", "Vec", valid_shape=[8, 100])
    assert derive("tile.aiv_shard", [T([64, 256], "FP32", "Acc")], {"split": ir.Dotted(("pl", "SplitMode", "UP_DOWN"))},
                  lhs_space="Vec") == T([32, 256], "FP32", "Vec")
    with pytest.raises(DeductionError):
        derive("tile.reinterpret_view", [m_Vec], {"dtype": dt("FP16")}, lhs_space="Vec")


def test_w24_aic_gather():
    assert derive("tile.aic_gather", [tp], {"split": ir.IntConst(1)}, lhs_space="Mat") == \
        T([32, 128], "FP32", "Mat", valid_shape=[32, 100], blayout="row_major", slayout="none_box")


def test_tpush_tpop_not_derived():
    assert derive("tile.tpush_to_aic", [t], {"split": ir.IntConst(0)}, lhs_space=None) is None
    assert derive("tile.tpop_from_aic", [], {}, lhs_space="Vec") is None


# ----------------------------------------------------------------------------- assemble (§2.2), write, gather_row


def test_assemble_write_union():
    tgt = T([16, 128], "FP32", "Vec", valid_shape=[16, 64])
    src = T([16, 32], "FP32", "Vec")
    assert derive("tile.assemble", [tgt, src, L(0, 64)], {}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec", valid_shape=[16, 96])
    assert derive("tile.assemble", [tgt, src, L(0, 32)], {}, lhs_space="Vec") == tgt
    assert derive("tile.assemble", [tgt, src, L(0, 0)], {}, lhs_space="Vec") == tgt
    # fully valid target: unchanged; Mat layout kept (E(target))
    assert derive("tile.assemble", [m, src, L(0, 0)], {}, lhs_space="Mat") == m


def test_write_and_gather_row_return_arg0():
    x = T([16, 128], "FP32", "Vec", valid_shape=[16, 100])
    assert derive("tile.write", [x, L(0, 0), ir.FloatConst("1.0")], {}, lhs_space="Vec") == x
    gm = ir.TensorType((ir.IntConst(256), ir.IntConst(128)), "FP32")
    assert derive("tile.gather_row", [x, gm, L(0, 0), L(0, 0), L(1, 128)], {}, lhs_space="Vec") == x
    # its valid_shape narrows the transfer only: the destination keeps its type
    assert derive("tile.gather_row", [x, gm, L(0, 0), L(0, 0), L(1, 128)], {"valid_shape": L(1, 64)},
                  lhs_space="Vec") == x


def test_gather_row_operand_contract():
    """CheckGatherRowOperands (type_inference.cpp): a GM source, a constant window, a
    valid_shape of the window's rank inside it, none dynamic under transpose=True."""
    x = T([16, 128], "FP32", "Mat")
    gm = ir.TensorType((ir.IntConst(256), ir.IntConst(128)), "FP32")
    n = ir.Name("n")
    bad = [
        ([x, t, L(0, 0), L(0, 0), L(1, 128)], {}, "requires src to be a TensorType"),
        ([x, gm, L(0, 0), L(0, 0), ir.ListExpr((ir.IntConst(1), n))], {}, "shapes[1] to be a compile-time constant"),
        ([x, gm, L(0, 0), L(0, 0), L(1, 128)], {"valid_shape": L(1)}, "same rank as shapes (2), but got rank 1"),
        ([x, gm, L(0, 0), L(0, 0), L(1, 128)], {"valid_shape": ir.ListExpr((ir.IntConst(1), n)),
                                                 "transpose": ir.BoolConst(True)}, "dynamic valid_shape"),
        ([x, gm, L(0, 0), L(0, 0), L(1, 128)], {"valid_shape": L(2, 128)}, "extent 2 provably exceeds"),
    ]
    for args, kwargs, msg in bad:
        with pytest.raises(R.DeductionError, match=re.escape(msg)):
            derive("tile.gather_row", args, kwargs, lhs_space="Mat")
    # a dynamic extent without transpose passes
    assert derive("tile.gather_row", [x, gm, L(0, 0), L(0, 0), L(1, 128)],
                  {"valid_shape": ir.ListExpr((ir.IntConst(1), n))}, lhs_space="Mat") == x


# ----------------------------------------------------------------------------- load / create / retarget (TV §5, §7, §8)


def test_retargeted_load_collapses_view():
    written = T([16, 128], "FP32", "Vec", valid_shape=[16, 100])
    assert R.retargeted_type(written, "Vec") == T([16, 128], "FP32", "Vec")
    assert R.retargeted_type(T([16, 128], "BF16"), "pl.Mem.Mat") == T([16, 128], "BF16", "Mat")


def test_load_rule():
    a = ArgInfo(ir.Name("a"), ir.TensorType(dims([64, 128]), "FP32"))
    assert derive("tile.load", [a, L(0, 0), L(16, 128), L(16, 100)], {"target_memory": mem("Vec")}, lhs_space="Vec") == \
        T([16, 128], "FP32", "Vec", valid_shape=[16, 100])
    assert derive("tile.load", [a, L(0, 0), L(16, 128), L(16, 128)], {"target_memory": mem("Mat")}, lhs_space="Mat") == \
        T([16, 128], "FP32", "Mat")
    assert derive("tile.load", [a, L(0, 0), L(1, 128), L(1, 128)], {"target_memory": mem("Mat")}, lhs_space="Mat") == \
        T([1, 128], "FP32", "Mat", blayout="row_major", slayout="none_box")
    assert derive("tile.load", [a, L(0, 0), L(16, 1), L(16, 1)], {"target_memory": mem("Vec")}, lhs_space="Vec") == \
        T([16, 1], "FP32", "Vec")
    dn = ir.Call("pl.TensorView", (), (("stride", L(1, 64)), ("layout", ir.Dotted(("pl", "TensorLayout", "DN")))))
    b = ArgInfo(ir.Name("b"), ir.TensorType(dims([64, 128]), "FP32", dn))
    assert derive("tile.load", [b, L(0, 0), L(16, 128), L(16, 128)], {"target_memory": mem("Mat")}, lhs_space="Mat") == \
        T([16, 128], "FP32", "Mat", blayout="row_major", slayout="col_major")


def test_load_partial_source_clamps():
    pv = ir.Call("pl.TensorView", (), (("valid_shape", L(64, 100)), ("stride", L(128, 1)),
                                        ("layout", ir.Dotted(("pl", "TensorLayout", "ND")))))
    a = ArgInfo(ir.Name("a"), ir.TensorType(dims([64, 128]), "FP32", pv))
    assert derive("tile.load", [a, L(0, 64), L(16, 64), L(16, 64)], {"target_memory": mem("Vec")}, lhs_space="Vec") == \
        T([16, 64], "FP32", "Vec", valid_shape=[16, 36])


def test_create_rule():
    kw = {"dtype": dt("FP32"), "target_memory": mem("Acc")}
    assert derive("tile.create", [L(16, 16)], kw, lhs_space="Acc") == T([16, 16], "FP32", "Acc")
    kw = {"dtype": dt("FP32"), "target_memory": mem("Vec")}
    assert derive("tile.create", [L(16, 1)], kw, lhs_space="Vec") == T([16, 1], "FP32", "Vec")
    kw = {"dtype": dt("BF16"), "target_memory": mem("Mat"), "transpose": ir.BoolConst(True)}
    assert derive("tile.create", [L(16, 128)], kw, lhs_space="Mat") == \
        T([16, 128], "BF16", "Mat", blayout="row_major", slayout="col_major")
    kw = {"dtype": dt("BF16"), "target_memory": mem("Mat"), "flat_layout": ir.BoolConst(True)}
    assert derive("tile.create", [L(16, 128)], kw, lhs_space="Mat") == \
        T([16, 128], "BF16", "Mat", blayout="row_major", slayout="none_box")


# ----------------------------------------------------------------------------- API conventions


def test_non_tile_and_unknown_ops_return_none():
    assert derive("tile.store", [t, L(0, 0), ArgInfo(ir.Name("out"), ir.TensorType(dims([16, 128]), "FP32"))], {}) is None
    assert derive("tile.read", [t, L(0, 0)], {}) is None
    assert derive("tile.no_such_op", [t], {}) is None
    assert derive("tensor.add", [t, t], {}) is None
    # missing arg type -> cannot derive
    assert derive("tile.add", [ArgInfo(ir.Name("x"), None), t], {}, lhs_space="Vec") is None


def test_derive_call_type():
    call = ir.Call("pl.tile.add", (ir.Name("a"), ir.Name("b")))
    types = {"a": m_Vec, "b": t}
    assert R.derive_call_type(call, types.get, lhs_space="Vec") == m_Vec
    call = ir.Call("pl.tile.cast", (ir.Name("a"),), (("target_type", dt("BF16")), ("mode", ir.StrConst("round")),
                                                     ("attrs", ir.DictExpr(()))))
    assert R.derive_call_type(call, types.get, lhs_space="Vec") == T([16, 128], "BF16", "Vec", **COLROW)


def test_derive_call_type_memo():
    """A memo (CallTypes) gives a call the type of one that differs only in the names of
    its var arguments, and only then."""
    memo = R.CallTypes()
    types = {"a": m_Vec, "b": t, "c": m_Vec, "d": t, "r": ir.ScalarType("INDEX"),
             "s": ir.ScalarType("INDEX"), "n": T([16, "n"]), "m": T([16, "n"])}

    def derive_call(func, *args, memo=memo, **kw):
        call = ir.Call(func, tuple(a if isinstance(a, ir.Expr) else ir.Name(a) for a in args))
        return R.derive_call_type(call, types.get, lhs_space="Vec", memo=memo, **kw)

    first = derive_call("pl.tile.add", "a", "b")
    assert first == m_Vec and derive_call("pl.tile.add", "c", "d") is first
    assert derive_call("pl.tile.add", "b", "b") == derive_call("pl.tile.add", "b", "b", memo=None)
    # a name the result holds (a valid shape from scalar vars) is not shared
    for rows in ("r", "s"):
        want = derive_call("pl.tile.set_validshape", "a", rows, ir.IntConst(64), memo=None)
        assert ir.Name(rows) in want.view.valid_shape
        assert derive_call("pl.tile.set_validshape", "a", rows, ir.IntConst(64)) == want
    # a var named like a dim of an argument's type keeps its name in the key
    key, renamed = memo.key("tile.add", ir.Call("pl.tile.add", (ir.Name("n"), ir.Name("m"))),
                            [types["n"], types["m"]], "Vec", None, None)
    assert renamed == {"m": 0} and "n" in key[1] and "m" not in key[1]
    other, _ = memo.key("tile.add", ir.Call("pl.tile.add", (ir.Name("n"), ir.Name("k"))),
                        [types["n"], types["m"]], "Vec", None, None)
    assert other == key
    # names inside the arguments (an offset list's loop vars) are renamed alike, each
    # name to one place: [i, i] and [i, j] differ
    ten = ir.TensorType(dims([64, 128]), "FP32")
    types.update(x=ten, i=ir.ScalarType("INDEX"), j=ir.ScalarType("INDEX"))

    def load(*offsets):
        offs = ir.ListExpr(tuple(ir.Name(o) if isinstance(o, str) else ir.IntConst(o) for o in offsets))
        call = ir.Call("pl.tile.load", (ir.Name("x"), offs, ir.ListExpr(dims([16, 128])), ir.ListExpr(dims([16, 128]))),
                       (("target_memory", ir.Dotted(("pl", "Mem", "Vec"))),))
        return call, R.derive_call_type(call, types.get, memo=memo)
    (ci, ti), (cj, tj) = load("i", 0), load("j", 0)
    assert ti == R.derive_call_type(ci, types.get) and tj is ti
    key_ii = memo.key("tile.load", load("i", "i")[0], [ten, None, None, None], None, None, None)[0]
    key_ij = memo.key("tile.load", load("i", "j")[0], [ten, None, None, None], None, None, None)[0]
    assert key_ii != key_ij


def test_lhs_space_resync_and_memref():
    # call stamped Vec but the LHS resolved elsewhere: canonicalised against the LHS space
    assert derive("tile.add", [m_Vec, t], {}, lhs_space="Mat") == T([16, 128], "FP32", "Mat")
    mr = ir.Name("mr")
    assert derive("tile.add", [t, t], {}, lhs_space="Vec", lhs_memref=mr) == T([16, 128], "FP32", "Vec", memref=mr)


# ----------------------------------------------------------------------------- symbolic helpers


def test_symbolic_simplifier():
    n = ir.Name("n")
    assert S.s_sub(S.s_max(ir.IntConst(100), ir.IntConst(64)), ir.IntConst(64)) == ir.IntConst(36)
    assert S.s_add(S.s_add(n, ir.IntConst(3)), ir.IntConst(4)) == ir.BinOp("+", n, ir.IntConst(7))
    assert S.s_min(S.s_min(n, ir.IntConst(16)), ir.IntConst(64)) == ir.Call("pl.min", (n, ir.IntConst(16)))
    assert S.prove_le(ir.Call("pl.min", (n, ir.IntConst(16))), ir.IntConst(16))
    assert not S.prove_le(n, ir.IntConst(16))
    assert S.prove_le(S.s_add(n, ir.IntConst(1)), S.s_add(n, ir.IntConst(2)))
    assert S.finalize_expr(ir.BinOp("+", n, ir.IntConst(7))) == ir.BinOp("+", n, pconst(7))
    assert S.finalize_expr(pconst(7)) == ir.IntConst(7)


# ----------------------------------------------------------------------------- golden corpus self-consistency
#
# In every after.pto, each tile call that takes a tile var was re-deduced by PyPTO, so its LHS
# annotation must equal derive_result_type(the args' annotated types, LHS space); every yield /
# alias / load / create LHS must equal retype() (or retargeted_type()) of its before.pto type.
# The .pto text is Python syntax, so the stdlib ``ast`` module reads it (no tilemem parser needed).

import ast as _ast
import glob as _glob
import os as _os
import re as _re

from tilemem.ir.views import retype as _retype

_CORPUS = "/work/shared/corpus"
_MODELS = "/work/shared/corpus-models"
_BINOPS = {_ast.Add: "+", _ast.Sub: "-", _ast.Mult: "*", _ast.FloorDiv: "//", _ast.Mod: "%"}


def _dotted(n):
    if isinstance(n, _ast.Name):
        return (n.id,)
    if isinstance(n, _ast.Attribute):
        h = _dotted(n.value)
        return None if h is None else h + (n.attr,)
    return None


def _x(n):
    if isinstance(n, _ast.Constant):
        v = n.value
        if isinstance(v, bool):
            return ir.BoolConst(v)
        if isinstance(v, int):
            return ir.IntConst(v)
        if isinstance(v, float):
            return ir.FloatConst(repr(v))
        if isinstance(v, str):
            return ir.StrConst(v)
        return ir.NoneConst()
    if isinstance(n, _ast.Name):
        return ir.Name(n.id)
    if isinstance(n, _ast.Attribute):
        return ir.Dotted(_dotted(n))
    if isinstance(n, _ast.Call):
        return ir.Call(".".join(_dotted(n.func)), tuple(_x(a) for a in n.args),
                       tuple((k.arg, _x(k.value)) for k in n.keywords))
    if isinstance(n, (_ast.List, _ast.Tuple)):
        return (ir.ListExpr if isinstance(n, _ast.List) else ir.TupleExpr)(tuple(_x(a) for a in n.elts))
    if isinstance(n, _ast.BinOp) and type(n.op) in _BINOPS:
        return ir.BinOp(_BINOPS[type(n.op)], _x(n.left), _x(n.right))
    if isinstance(n, _ast.UnaryOp) and isinstance(n.op, _ast.USub) and isinstance(n.operand, _ast.Constant):
        return ir.IntConst(-n.operand.value)
    return ir.Opaque(_ast.unparse(n))


def _ty(n):
    if not isinstance(n, _ast.Subscript):
        return None
    head = _dotted(n.value)
    items = n.slice.elts if isinstance(n.slice, _ast.Tuple) else [n.slice]
    if head in (("pl", "Out"), ("pl", "InOut")):
        return _ty(items[0])
    if head == ("pl", "Tile"):
        space = view = memref = None
        for it in items[2:]:
            dd = _dotted(it)
            if dd and len(dd) == 3 and dd[1] == "Mem":
                space = dd[2]
            elif isinstance(it, _ast.Call) and _dotted(it.func)[-1] == "TileView":
                kw = {k.arg: k.value for k in it.keywords}
                view = ir.TileView(
                    valid_shape=tuple(_x(e) for e in kw["valid_shape"].elts) if "valid_shape" in kw else None,
                    stride=tuple(_x(e) for e in kw["stride"].elts) if "stride" in kw else None,
                    start_offset=_x(kw["start_offset"]) if "start_offset" in kw else None,
                    fractal=kw["fractal"].value if "fractal" in kw else None,
                    **{k: _dotted(kw[k])[-1] if k in kw else None for k in ("blayout", "slayout", "pad", "compact")})
            else:
                memref = _x(it)
        return ir.TileType(tuple(_x(e) for e in items[0].elts), _dotted(items[1])[-1], memref, space, view)
    if head == ("pl", "Tensor"):
        view = next((_x(it) for it in items[2:] if isinstance(it, _ast.Call)), None)
        return ir.TensorType(tuple(_x(e) for e in items[0].elts), _dotted(items[1])[-1], view)
    if head == ("pl", "Scalar"):
        return ir.ScalarType(_dotted(items[0])[-1])
    return None


def _functions(path):
    tree = _ast.parse(open(path).read())
    for cls in tree.body:
        if isinstance(cls, _ast.ClassDef):
            for fn in cls.body:
                if isinstance(fn, _ast.FunctionDef):
                    yield fn


def _consistency(path):
    """Yield (lineno, text, expected, got) for every mismatching re-deduced call."""
    for fn in _functions(path):
        deco = _ast.unparse(fn.decorator_list[0]) if fn.decorator_list else ""
        if not _re.search(r"FunctionType\.(InCore|AIC|AIV)\b", deco):
            continue
        env = {a.arg: _ty(a.annotation) for a in fn.args.args if a.annotation is not None}
        mode = _re.search(r"pl\.split_aiv\(\d+, mode=pl\.SplitMode\.(\w+)\)", _ast.unparse(fn))
        for st in _ast.walk(fn):          # SSA text: every name is defined once per function
            if isinstance(st, _ast.AnnAssign) and isinstance(st.target, _ast.Name):
                env[st.target.id] = _ty(st.annotation)
        for st in _ast.walk(fn):
            if not (isinstance(st, _ast.AnnAssign) and isinstance(st.value, _ast.Call)):
                continue
            head = _dotted(st.value.func) or ()
            if head[:2] != ("pl", "tile"):
                continue
            args = [ArgInfo(_x(a), env.get(a.id) if isinstance(a, _ast.Name) else None) for a in st.value.args]
            if not any(isinstance(a.type, ir.TileType) for a in args):
                continue
            kwargs = {k.arg: _x(k.value) for k in st.value.keywords if k.arg != "attrs"}
            if head[-1] in ("aiv_shard", "aic_gather") and "split" not in kwargs and mode:
                kwargs["split"] = ir.Dotted(("pl", "SplitMode", mode.group(1)))
            want = _ty(st.annotation)
            got = derive(".".join(head), args, kwargs, lhs_space=getattr(want, "space", None))
            if got is not None and got != want:
                yield st.lineno, _ast.unparse(st)[:300], want, got


def _cases(root):
    return sorted(_glob.glob(_os.path.join(root, "*", "after.pto")))


@pytest.mark.skipif(not _os.path.isdir(_CORPUS), reason="golden corpus not available")
def test_corpus_after_rederived_types_match():
    bad = [(p, *m) for p in _cases(_CORPUS) for m in _consistency(p)]
    assert not bad, bad[:3]


def _retype_mismatches(after):
    before = after.replace("after.pto", "before.pto")
    bfns = {f.name: f for f in _functions(before)}
    for fn in _functions(after):
        if fn.name not in bfns:
            continue
        def defs(f):
            out = {}
            for st in _ast.walk(f):
                if isinstance(st, _ast.AnnAssign) and isinstance(st.target, _ast.Name):
                    out.setdefault(st.target.id, []).append(st)
            return out
        da, db = defs(fn), defs(bfns[fn.name])
        for name, sts in da.items():
            if len(sts) != len(db.get(name, ())):
                continue
            for sa, sb in zip(sts, db[name]):
                head = _dotted(sa.value.func) if isinstance(sa.value, _ast.Call) else None
                if not (isinstance(sa.value, _ast.Name) or head == ("pl", "yield_")
                        or head in (("pl", "tile", "load"), ("pl", "tile", "create"))):
                    continue
                ta, tb = _ty(sa.annotation), _ty(sb.annotation)
                if not isinstance(ta, ir.TileType) or not isinstance(tb, ir.TileType):
                    continue
                kw = lambda s: {k.arg: _ast.unparse(k.value) for k in s.value.keywords}
                if head and head[-1] in ("load", "create") and kw(sa).get("target_memory") != kw(sb).get("target_memory"):
                    got = R.retargeted_type(tb, ta.space)
                else:
                    got = _retype(tb, ta.space)
                if got != ta:
                    yield sa.lineno, _ast.unparse(sa)[:300], ta, got


@pytest.mark.skipif(not _os.path.isdir(_CORPUS), reason="golden corpus not available")
def test_corpus_retyped_definitions_match():
    bad = [(p, *m) for p in _cases(_CORPUS) for m in _retype_mismatches(p)]
    assert not bad, bad[:3]


def _strip_dedup(x):
    """Rename every ``name_<N>`` Name to ``name`` (the printer's de-dup suffix) inside a type."""
    import dataclasses
    if isinstance(x, ir.Name):
        return ir.Name(_re.sub(r"_\d+$", "", x.id))
    if isinstance(x, tuple):
        return tuple(_strip_dedup(i) for i in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.replace(x, **{f.name: _strip_dedup(getattr(x, f.name))
                                         for f in dataclasses.fields(x) if f.compare})
    return x


# Known corpus-models mismatch that is not a type-rule error: PyPTO prints a var inside a TYPE by
# its name hint (``gather_lv``) while the same var as a call argument carries the printer's
# de-dup suffix (``gather_lv_1``); the text cannot tell them apart, so it is tolerated here.
@pytest.mark.slow
@pytest.mark.skipif(not _os.path.isdir(_MODELS), reason="model corpus not available")
def test_models_after_rederived_types_match(request):
    if "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("large real-model corpus: run with -m slow")
    bad = [(p, *m) for p in _cases(_MODELS) for m in _consistency(p)
           if _strip_dedup(m[2]) != _strip_dedup(m[3])]
    assert not bad, bad[:3]


@pytest.mark.slow
@pytest.mark.skipif(not _os.path.isdir(_MODELS), reason="model corpus not available")
def test_models_retyped_definitions_match(request):
    if "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("large real-model corpus: run with -m slow")
    bad = [(p, *m) for p in _cases(_MODELS) for m in _retype_mismatches(p)]
    assert not bad, bad[:3]
