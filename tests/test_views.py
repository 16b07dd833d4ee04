"""TileView semantics (tileview.md §2-§5, typerules.md §1): implicit layouts,
canonicalisation, effective views, the pass's retyping and the two-stage trap.

Types are compared structurally against hand-built ``ir`` objects (no printer needed).
"""
import pytest

from tilemem import ir
from tilemem.ir import views as V

from ir_helpers import T, d, dims  # noqa: F401  (not every helper is used in each file)


# ----------------------------------------------------------------------------- helpers




def pconst(v):
    return ir.Call("pl.const", (ir.IntConst(v), ir.Dotted(("pl", "INDEX"))))


# ----------------------------------------------------------------------------- enums / dtypes


def test_normalisers_accept_printed_spellings():
    assert V.norm_space("pl.Mem.Vec") == "Vec"
    assert V.norm_space(ir.Dotted(("pl", "MemorySpace", "Mat"))) == "Mat"
    assert V.norm_space(None) is None
    assert V.norm_layout("pl.TileLayout.col_major") == "col_major"
    assert V.norm_dtype("pl.BF16") == "BF16"
    assert V.norm_pad(None) == "null"
    with pytest.raises(ValueError):
        V.norm_space("Nowhere")


@pytest.mark.parametrize("dt,bits,sbits,nbytes", [
    ("BOOL", 1, 8, 10), ("INT4", 4, 4, 5), ("FP4", 4, 4, 5), ("UINT8", 8, 8, 10),
    ("FP8E8M0", 8, 8, 10), ("BF16", 16, 16, 20), ("FP16", 16, 16, 20), ("FP32", 32, 32, 40),
    ("INT32", 32, 32, 40), ("INDEX", 64, 64, 80), ("UINT64", 64, 64, 80),
])
def test_dtype_facts(dt, bits, sbits, nbytes):
    assert V.dtype_bits(dt) == bits
    assert V.storage_bits(dt) == sbits
    assert V.storage_bytes(10, dt) == nbytes


def test_storage_bytes_unknown_dtype():
    assert V.storage_bytes(10, "FP64") is None


@pytest.mark.parametrize("a,b,want", [
    ("BF16", "FP16", "BF16"), ("FP16", "BF16", "FP16"), ("INT16", "FP16", "FP16"),
    ("INT16", "INT32", "INT32"), ("FP32", "FP32", "FP32"), ("BF16", "FP32", "FP32"),
    ("UINT16", "INT16", "INT16"), ("INT16", "UINT16", "INT16"), ("UINT8", "UINT8", "UINT8"),
])
def test_promote(a, b, want):
    assert V.promote_dtype(a, b) == want


# ----------------------------------------------------------------------------- expressions


def test_exprs_equal_consts_by_value():
    assert V.exprs_equal(ir.IntConst(16), pconst(16))
    assert not V.exprs_equal(ir.IntConst(16), ir.IntConst(17))
    assert V.exprs_equal(ir.Name("n"), ir.Name("n"))
    assert not V.exprs_equal(ir.Name("n"), ir.Name("m"))
    a = ir.Call("pl.min", (ir.Name("n"), pconst(16)))
    b = ir.Call("pl.min", (ir.Name("n"), ir.IntConst(16)))
    assert V.exprs_equal(a, b)
    assert V.exprs_equal(ir.BinOp("+", ir.Name("n"), pconst(7)), ir.BinOp("+", ir.Name("n"), ir.IntConst(7)))
    assert not V.exprs_equal(ir.BinOp("+", ir.Name("n"), pconst(7)), ir.BinOp("-", ir.Name("n"), pconst(7)))


# ----------------------------------------------------------------------------- implicit layout (§4)


@pytest.mark.parametrize("shape,space,want", [
    ([16, 128], None, ("row_major", "none_box", 512)),
    ([16, 128], "Vec", ("row_major", "none_box", 512)),
    ([16, 1], "Vec", ("col_major", "none_box", 512)),
    ([1, 1], "Vec", ("row_major", "none_box", 512)),
    ([1, 16], "Vec", ("row_major", "none_box", 512)),
    (["n", 1], "Vec", ("row_major", "none_box", 512)),       # symbolic rows: not ConstInt
    ([2, 16, 1], "Vec", ("row_major", "none_box", 512)),     # not 2-D
    ([16, 1], "DDR", ("col_major", "none_box", 512)),
    ([16, 1], "Bias", ("col_major", "none_box", 512)),
    ([16, 1], "ScalarLocal", ("col_major", "none_box", 512)),
    ([16, 128], "Mat", ("col_major", "row_major", 512)),
    ([16, 1], "Mat", ("col_major", "row_major", 512)),
    ([16, 128], "Left", ("col_major", "row_major", 512)),
    ([16, 128], "Right", ("row_major", "col_major", 512)),
    ([128, 1], "Right", ("col_major", "col_major", 512)),
    ([16, 128], "Acc", ("col_major", "row_major", 1024)),
    ([16, 128], "LeftScale", ("row_major", "row_major", 32)),
    ([16, 128], "RightScale", ("col_major", "col_major", 32)),
])
def test_implicit_layout(shape, space, want):
    assert V.implicit_layout(dims(shape), space) == V.ImplicitLayout(*want)


def test_implicit_fractal():
    assert [V.implicit_fractal(s) for s in (None, "Vec", "Acc", "LeftScale", "RightScale", "Mat")] == \
        [512, 512, 1024, 32, 32, 512]


def test_implicit_view_is_full_and_implicit():
    v = V.implicit_view(dims([16, 128]), "Acc")
    assert v.valid_shape == dims([16, 128]) and v.fractal == 1024
    assert V.is_implicit_view(v, dims([16, 128]), "Acc")
    assert not V.is_implicit_view(v, dims([16, 128]), "Vec")


# ----------------------------------------------------------------------------- canonicalisation (§3)


def test_make_tile_type_clears_full_valid_and_drops_implicit():
    v = V.fresh_view(dims([16, 128]))
    assert V.make_tile_type(dims([16, 128]), "FP32", None, "Vec", v) == T([16, 128], "FP32", "Vec")


def test_make_tile_type_keeps_partial_valid():
    v = V.fresh_view(dims([16, 100]))
    assert V.make_tile_type(dims([16, 128]), "FP32", None, "Vec", v) == \
        T([16, 128], "FP32", "Vec", valid_shape=[16, 100])


def test_make_tile_type_prints_layout_relative_to_space():
    # [64,1] with row_major: implicit blayout of [64,1] is col_major
    v = V.fresh_view(dims([64, 1]))
    assert V.make_tile_type(dims([64, 1]), "FP32", None, "Vec", v) == \
        T([64, 1], "FP32", "Vec", blayout="row_major")
    # Vec layout in Mat
    v = V.fresh_view(dims([16, 50]))
    assert V.make_tile_type(dims([16, 64]), "FP32", None, "Mat", v) == \
        T([16, 64], "FP32", "Mat", valid_shape=[16, 50], blayout="row_major", slayout="none_box")


def test_symbolic_valid_equal_to_symbolic_shape_is_cleared():
    v = V.fresh_view((ir.Name("n"), ir.IntConst(64)))
    assert V.make_tile_type((ir.Name("n"), ir.IntConst(64)), "FP32", None, "Vec", v) == \
        ir.TileType((ir.Name("n"), ir.IntConst(64)), "FP32", None, "Vec", None)


def test_effective_view_stored_and_implicit():
    t = T([16, 128], "FP32", "Vec", blayout="col_major", slayout="row_major")
    e = V.effective_view(t)
    assert (e.valid_shape, e.blayout, e.slayout, e.fractal) == (dims([16, 128]), "col_major", "row_major", 512)
    e = V.effective_view(T([16, 128], "FP32", "Acc", valid_shape=[8, 128], compact="normal"))
    assert (e.valid_shape, e.blayout, e.slayout, e.fractal, e.compact) == \
        (dims([8, 128]), "col_major", "row_major", 1024, "normal")
    e = V.effective_view(T([16, 1], "FP32"))
    assert (e.blayout, e.slayout, e.fractal) == ("col_major", "none_box", 512)


def test_valid_shape_of():
    assert V.valid_shape_of(T([16, 128], "FP32", "Vec", valid_shape=[16, 100])) == dims([16, 100])
    assert V.valid_shape_of(T([16, 128], "FP32", "Vec", blayout="col_major")) == dims([16, 128])
    assert V.valid_shape_of(T([16, 128], "FP32", "Vec")) == dims([16, 128])


def test_printed_view_round_trip():
    t = T([16, 64], "FP32", "Acc", valid_shape=[8, 32], blayout="row_major", slayout="none_box", fractal=512)
    sv = V.stored_view(t)
    assert (sv.blayout, sv.slayout, sv.fractal) == ("row_major", "none_box", 512)
    assert V.printed_view(sv, t.shape, "Acc") == t.view


# ----------------------------------------------------------------------------- retype (§5)


def test_retype_absent_space_to_vec_implicit():
    assert V.retype(T([16, 128], "FP32"), "Vec") == T([16, 128], "FP32", "Vec")


def test_retype_absent_to_mat_keeps_valid_takes_mat_layout():
    # effective view computed with the OLD (absent) space, layout from Mat -> only valid printed
    assert V.retype(T([16, 128], "FP32", valid_shape=[16, 100]), "Mat") == \
        T([16, 128], "FP32", "Mat", valid_shape=[16, 100])


def test_retype_space_change_overwrites_layout_only():
    t = T([16, 128], "FP32", "Vec", valid_shape=[16, 100], blayout="col_major", slayout="row_major",
          pad="max")
    assert V.retype(t, "Mat") == T([16, 128], "FP32", "Mat", valid_shape=[16, 100], pad="max")
    t = T([16, 128], "FP32", "Mat")
    assert V.retype(t, "Vec") == T([16, 128], "FP32", "Vec")
    assert V.retype(t, "Acc") == T([16, 128], "FP32", "Acc")


def test_retype_unchanged_space_keeps_stored_view():
    t = T([16, 128], "FP32", "Vec", blayout="col_major", slayout="row_major")
    assert V.retype(t, "Vec") == t


def test_retype_keeps_stride_offset_compact():
    t = T([16, 128], "FP32", "Acc", valid_shape=[8, 128], compact="normal")
    # Acc -> Vec: fractal becomes 512, col/row -> row/none_box (Vec implicit)
    assert V.retype(t, "Vec") == T([16, 128], "FP32", "Vec", valid_shape=[8, 128], compact="normal")


def test_implicit_type():
    assert V.implicit_type(dims([16, 128]), "FP32", None, "pl.Mem.Mat") == T([16, 128], "FP32", "Mat")


# ----------------------------------------------------------------------------- two-stage trap (typerules.md §1)


def test_two_stage_full_valid_vanishes_then_implicit_of_stamp():
    # deducer: row_major/none_box full valid, no space -> dropped -> Mat implicit
    r = V.build_result_type(dims([16, 64]), "FP32", V.fresh_view(dims([16, 64])),
                            deducer_space=None, stamped_space="Mat", lhs_space="Mat")
    assert r == T([16, 64], "FP32", "Mat")


def test_two_stage_partial_valid_survives_and_prints_layout():
    r = V.build_result_type(dims([16, 64]), "FP32", V.fresh_view(dims([16, 50])),
                            stamped_space="Mat", lhs_space="Mat")
    assert r == T([16, 64], "FP32", "Mat", valid_shape=[16, 50], blayout="row_major", slayout="none_box")
    r = V.build_result_type(dims([16, 32]), "FP32", V.fresh_view(dims([8, 32])),
                            stamped_space="Acc", lhs_space="Acc")
    assert r == T([16, 32], "FP32", "Acc", valid_shape=[8, 32], blayout="row_major", slayout="none_box",
                  fractal=512)
    r = V.build_result_type(dims([64, 64]), "BF16", V.fresh_view(dims([64, 40])),
                            stamped_space="Right", lhs_space="Right")
    assert r == T([64, 64], "BF16", "Right", valid_shape=[64, 40], slayout="none_box")
    # in Vec the two rows coincide: only the valid shows
    r = V.build_result_type(dims([16, 64]), "FP32", V.fresh_view(dims([16, 50])),
                            stamped_space="Vec", lhs_space="Vec")
    assert r == T([16, 64], "FP32", "Vec", valid_shape=[16, 50])


def test_two_stage_deducer_space_single_canonicalisation():
    v = V.fresh_view(dims([16, 64])).with_layout(V.implicit_layout(dims([16, 64]), "Acc"))
    assert V.build_result_type(dims([16, 64]), "FP32", v, deducer_space="Acc", lhs_space="Acc") == \
        T([16, 64], "FP32", "Acc")


def test_two_stage_lhs_space_resync():
    # stored view {col_major,row_major} (e.g. Mat layout) in a call typed Vec, LHS resolved Mat
    v = V.fresh_view(dims([16, 128]), blayout="col_major", slayout="row_major")
    r = V.build_result_type(dims([16, 128]), "FP32", v, stamped_space="Vec", lhs_space="Mat")
    assert r == T([16, 128], "FP32", "Mat")
    r = V.build_result_type(dims([16, 128]), "FP32", v, stamped_space="Vec", lhs_space="Vec")
    assert r == T([16, 128], "FP32", "Vec", blayout="col_major", slayout="row_major")


def test_build_result_type_memref_fallback():
    mr = ir.Name("mem_vec_0")
    r = V.build_result_type(dims([16, 128]), "FP32", None, stamped_space="Vec", lhs_space="Vec", lhs_memref=mr)
    assert r == T([16, 128], "FP32", "Vec", memref=mr)
