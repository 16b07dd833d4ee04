"""Rule-level tests of phases 0-3 on small programs written for this purpose."""

import pytest

import tilemem
from tilemem.errors import TilememError

from program_helpers import incore_program

SIG = ("def k(x: pl.Tensor[[16, 128], pl.BF16], y: pl.Tensor[[128, 128], pl.BF16], "
       "z: pl.Tensor[[16, 128], pl.FP32], flag: pl.Scalar[pl.INDEX], "
       "out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:")

T_X = "pl.Tile[[16, 128], pl.BF16]"
T_Y = "pl.Tile[[128, 128], pl.BF16]"
T_Z = "pl.Tile[[16, 128], pl.FP32]"


def program(body: str) -> str:
    return incore_program(body, SIG)


def solve(body: str, backend=None):
    return tilemem.solve(program(body), backend=backend)


def rows(sol, pattern):
    cols, rs = sol.query(pattern)
    return sorted(tuple(r) for r in rs)


def lines(sol):
    return [l.strip() for l in sol.text.splitlines()]


def line_of(sol, prefix):
    hits = [l for l in lines(sol) if l.startswith(prefix)]
    assert hits, f"no line starts with {prefix!r}:\n{sol.text}"
    return hits[0]


# ------------------------------------------------------------------ phase 0: demand

def test_demand_is_the_first_allowed_space_of_the_consumer_slot():
    sol = solve(f"""
        a: {T_X} = pl.tile.load(x, [0, 0], [16, 128], [16, 128])
        b: {T_Y} = pl.tile.load(y, [0, 0], [128, 128], [128, 128])
        c: {T_Z} = pl.tile.matmul(a, b)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(c, [0, 0], out_0)
        return out_0
    """)
    assert rows(sol, "demand(V, S)") == [("k:a", "Left"), ("k:b", "Right"), ("k:c", "Vec")]


def test_non_vec_demand_replaces_vec_and_first_non_vec_stays():
    sol = solve(f"""
        a: {T_Y} = pl.tile.load(y, [0, 0], [128, 128], [128, 128])
        e: {T_Y} = pl.tile.exp(a)
        c: pl.Tile[[128, 128], pl.FP32] = pl.tile.matmul(a, a)
        return out_0
    """)
    # exp asks Vec first, then the matmul's lhs asks Left (replaces Vec), its rhs Right (ignored)
    assert ("k:a", "Left") in rows(sol, "demand(V, S)")


def test_demand_travels_backward_through_inheriting_views():
    sol = solve(f"""
        a: {T_Y} = pl.tile.load(y, [0, 0], [128, 128], [128, 128])
        s: {T_X} = pl.tile.slice(a, [16, 128], [0, 0])
        b: {T_Y} = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
        c: {T_Z} = pl.tile.matmul(s, b)
        return out_0
    """)
    demand = dict(rows(sol, "demand(V, S)"))
    assert demand["k:s"] == "Left" and demand["k:a"] == "Left"
    # the clamp: a kwarg-less load never satisfies a Left demand directly ...
    assert sol.spaces["k"]["a"] == "Vec" and sol.spaces["k"]["s"] == "Vec"
    # ... the slice gets a move instead, and the load's kwarg is set
    assert line_of(sol, "s_Left:").endswith("pl.tile.move(s, target_memory=pl.Mem.Left)")
    assert "target_memory=pl.Mem.Vec" in line_of(sol, "a:")


# ------------------------------------------------------------------ phase 1: resolution

def test_fixed_output_kwarg_and_inheritance():
    sol = solve(f"""
        m: {T_X} = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        s: pl.Tile[[16, 64], pl.BF16] = pl.tile.slice(m, [16, 64], [0, 0])
        r: pl.Tile[[16, 64], pl.BF16] = pl.tile.reshape(s, [16, 64])
        return out_0
    """)
    assert sol.spaces["k"] == {"m": "Mat", "s": "Mat", "r": "Mat"}


def test_ssa_alias_copies_the_space_of_its_source():
    sol = solve(f"""
        m: {T_X} = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        al: {T_X} = m
        return out_0
    """)
    assert sol.spaces["k"]["al"] == "Mat"
    assert line_of(sol, "al:") == "al: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = m"


def test_loop_exit_promotes_return_var_iter_arg_and_init():
    sol = solve(f"""
        acc0: {T_Z} = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a: {T_X} = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Left)
        b: {T_Y} = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Right)
        for i, (acc,) in pl.range(2, init_values=(acc0,)):
            nxt: {T_Z} = pl.tile.matmul_acc(acc, a, b)
            res: {T_Z} = pl.yield_(nxt)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(res, [0, 0], out_0)
        return out_0
    """)
    sp = sol.spaces["k"]
    assert sp["nxt"] == sp["res"] == sp["acc"] == sp["acc0"] == "Acc"
    # the init's producer is retargeted: its explicit Vec kwarg yields to the loop's space
    assert "target_memory=pl.Mem.Acc" in line_of(sol, "acc0:")
    # the store accepts Acc: no move
    assert not any(l.startswith("res_") for l in lines(sol))


def test_branch_phi_takes_the_agreeing_space_and_leaves_a_disagreeing_one():
    agree = solve(f"""
        if flag < 1:
            p: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            phi: {T_Z} = pl.yield_(p)
        else:
            q: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            phi: {T_Z} = pl.yield_(q)
        return out_0
    """)
    assert agree.spaces["k"]["phi"] == "Vec"
    differ = solve(f"""
        if flag < 1:
            p: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
            phi: {T_Z} = pl.yield_(p)
        else:
            q: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            phi: {T_Z} = pl.yield_(q)
        return out_0
    """)
    assert "phi" not in differ.spaces["k"]
    assert ("k:phi",) not in rows(differ, "space(V, _)")


def test_a_read_sees_the_space_at_that_point_in_program_order():
    """An iter-arg is seeded with its init's space; the loop-exit promotion that
    changes it later does not re-resolve what the body already read."""
    sol = solve(f"""
        acc0: {T_Z} = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a: {T_X} = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Left)
        b: {T_Y} = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Right)
        for i, (acc,) in pl.range(2, init_values=(acc0,)):
            view: {T_Z} = pl.tile.reshape(acc, [16, 128])
            nxt: {T_Z} = pl.tile.matmul_acc(acc, a, b)
            res: {T_Z} = pl.yield_(nxt)
        return out_0
    """)
    assert sol.spaces["k"]["view"] == "Vec"      # read the seed (Vec) ...
    assert sol.spaces["k"]["acc"] == "Acc"       # ... although the iter-arg ends in Acc


# ------------------------------------------------------------------ phases 2-3: moves

# Move placement (one move per statement list, reused by later consumers and nested
# lists), move kwargs (Acc -> Vec; backend layouts) and a function left exactly as
# written are input/expected pairs in tests/data/solve (moves_*.pto,
# unresolved_function_unchanged.pto), run by tests/test_goldens.py.


def test_sibling_branches_get_their_own_move():
    sol = solve(f"""
        m: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        if flag < 1:
            e: {T_Z} = pl.tile.exp(m)
            e2: {T_Z} = pl.tile.exp(e)
        else:
            n: {T_Z} = pl.tile.neg(m)
            n2: {T_Z} = pl.tile.neg(n)
        return out_0
    """)
    moves = [l for l in lines(sol) if "pl.tile.move(" in l]
    assert [mv.split(":")[0] for mv in moves] == ["m_Vec", "m_Vec_1"]
    assert line_of(sol, "n:").endswith("pl.tile.neg(m_Vec_1)")


def test_a_one_statement_branch_gets_no_move():
    """PyPTO inserts moves only into statement lists; a one-statement body is none."""
    sol = solve(f"""
        m: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        if flag < 1:
            e: {T_Z} = pl.tile.exp(m)
        else:
            n: {T_Z} = pl.tile.neg(m)
        return out_0
    """)
    assert not [l for l in lines(sol) if "pl.tile.move(" in l]
    assert line_of(sol, "n:").endswith("pl.tile.neg(m)")
    assert [w.code for w in sol.warnings] == ["contract-break", "contract-break"]


def test_moves_are_reported_by_the_library():
    sol = solve(f"""
        a: {T_X} = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        b: {T_Y} = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
        c: {T_Z} = pl.tile.matmul(a, b)
        return out_0
    """)
    assert [(m.producer, m.target, m.name) for m in sol.moves] == [
        ("a", "Left", "a_Left"), ("b", "Right", "b_Right")]


def test_extra_rule_file_adds_an_op(tmp_path):
    rules = tmp_path / "my_ops.dl"
    rules.write_text(
        'op("tile.my_add", "TileOp").\nop_builtin("tile.my_add").\n'
        'op_constrained("tile.my_add", 0).\nop_constrained("tile.my_add", 1).\n'
        'op_input("tile.my_add", 0, 0, "Vec").\nop_input("tile.my_add", 1, 0, "Vec").\n'
        'op_output_fixed("tile.my_add", "Vec").\n')
    body = f"""
        m: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        s: {T_Z} = pl.tile.my_add(m, m)
        return out_0
    """
    with pytest.raises(TilememError, match="unknown operation 'pl.tile.my_add'"):
        solve(body)             # without its rule file, an op the table does not know
    with_rules = tilemem.solve(program(body), rules=[str(rules)])
    assert line_of(with_rules, "s:").endswith("pl.tile.my_add(m_Vec, m_Vec)")


@pytest.mark.parametrize("bad, message", [
    ("def k(t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]) -> pl.Tensor[[16, 128], pl.FP32]:\n        return t",
     "InCore function parameter 't' has TileType, but InCore parameters must be TensorType"),
    (SIG + "\n        e: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(nowhere)\n        return out_0",
     "reads undefined name 'nowhere'"),
    # PyPTO's reader binds names in program order: a use before the definition is refused
    # ("UndefinedVariableError: Undefined variable 'e'", oracle at e2d0f78)
    (SIG + "\n        f: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(e)"
           "\n        e: pl.Tile[[16, 128], pl.FP32] = pl.tile.load(z, [0, 0], [16, 128], [16, 128])"
           "\n        return out_0",
     "reads 'e' before it is defined"),
    (SIG + "\n        for i in pl.range(4):"
           "\n            f: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(e)"
           "\n        e: pl.Tile[[16, 128], pl.FP32] = pl.tile.load(z, [0, 0], [16, 128], [16, 128])"
           "\n        return out_0",
     "reads 'e' before it is defined"),
])
def test_input_errors_name_the_function_and_variable(bad, message):
    text = ("# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n"
            "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n"
            f"    {bad}\n")
    with pytest.raises(tilemem.TilememError) as err:
        tilemem.solve(text, path="bad.pto")
    first = err.value.format().splitlines()[0]
    assert first.startswith("bad.pto:") and message in first and "'k'" in first


def test_yield_type_past_int64_is_a_located_error():
    """A pl.yield_ target's annotation holds shapes too: a dimension past int64 there is the
    same located error as anywhere else (it reached a bound proof and crashed converting
    10**400 to a float: long fuzz run on 7ca17df, seed 95400001)."""
    body = f"""
        t: {T_Z} = pl.tile.load(z, [0, 0], [16, 128], [16, 128])
        for i, (acc,) in pl.range(2, init_values=(t,)):
            nxt: {T_Z} = pl.tile.exp(acc)
            r: pl.Tile[[16, {10 ** 400}], pl.FP32] = pl.yield_(nxt)
        return out_0
    """
    with pytest.raises(tilemem.TilememError) as err:
        tilemem.solve(program(body), path="big.pto")
    assert "does not fit in a 64-bit ConstInt" in err.value.message and err.value.line is not None
