"""Phase 4: loop-invariant Mat residency — hoists, explained declines, capacity bounds.

The programs are written here: a stationary LHS bridge load (and its move to Left)
inside a loop of an InCore kernel called from a root orchestration function that
creates the LHS buffer.  Each test changes one thing and checks the verdict.
"""
import textwrap
from pathlib import Path

import pytest

import tilemem

BRIDGE = 'attrs={"__compiler_tensor_to_tile_mat_bridge": True}'

LHS_LOAD = ("lhs_mat: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0], [16, 128], "
            f"[16, 128], target_memory=pl.Mem.Mat, {BRIDGE})")
LHS_MOVE = "lhs_left: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.move(lhs_mat, target_memory=pl.Mem.Left)"
RHS_LOAD = ("rhs_mat: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(rhs, [0, 0], [128, 128], "
            f"[128, 128], target_memory=pl.Mem.Mat, {BRIDGE})")
RHS_MOVE = "rhs_right: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.move(rhs_mat, target_memory=pl.Mem.Right)"
MATMUL = "c: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_left, rhs_right)"
BODY = [LHS_LOAD, RHS_LOAD, LHS_MOVE, RHS_MOVE, MATMUL]


def program(body=None, pre=(), loop="pl.range(2)", lhs_param="lhs: pl.Tensor[[16, 128], pl.BF16]",
            caller=None, extra_functions=""):
    body = BODY if body is None else body
    if caller is None:
        caller = [
            "lhs: pl.Tensor[[16, 128], pl.BF16] = pl.tensor.create([16, 128], dtype=pl.BF16, layout=pl.TensorLayout.ND)",
            "r: pl.Tensor[[16, 128], pl.FP32] = self.kernel(lhs, rhs, trips, out)",
            "return r",
        ]
    ind = lambda ls, n: "\n".join(" " * n + l for l in ls)
    return (
        "# pypto.program: R\nimport pypto.language as pl\n\n@pl.program\nclass R:\n"
        + extra_functions
        + "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n"
        f"    def kernel({lhs_param}, rhs: pl.Tensor[[128, 128], pl.BF16], trips: pl.Scalar[pl.INDEX], "
        "out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:\n"
        + (ind(pre, 8) + "\n" if pre else "")
        + f"        for n in {loop}:\n" + ind(body, 12) + "\n"
        "        return out\n"
        "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        "    def main(self, rhs: pl.Tensor[[128, 128], pl.BF16], trips: pl.Scalar[pl.INDEX], "
        "out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:\n"
        + ind(caller, 8) + "\n"
    )


def verdicts(text, backend="910B"):
    sol = tilemem.solve(text, backend=backend)
    return sol, {d.var: d for d in sol.residency}


def hoisted_before_loop(sol, *names):
    out = sol.text.splitlines()
    loop = next(i for i, l in enumerate(out) if l.strip().startswith("for n in"))
    before = [l.strip().split(":")[0] for l in out[:loop]]
    return all(n in before for n in names)


def test_stationary_lhs_chain_is_hoisted_and_the_mark_stripped():
    sol, v = verdicts(program())
    assert v["lhs_mat"].hoisted and v["lhs_left"].hoisted
    assert v["lhs_mat"].reason == "hoisted out of the loop at line 8"
    assert hoisted_before_loop(sol, "lhs_mat", "lhs_left")
    assert "__compiler_tensor_to_tile_mat_bridge" not in sol.text


def test_no_backend_means_no_residency():
    sol = tilemem.solve(program())
    assert sol.residency is None
    assert not hoisted_before_loop(sol, "lhs_mat")
    assert "__compiler_tensor_to_tile_mat_bridge" not in sol.text


def test_external_parameter_is_not_proven_unaliased():
    _, v = verdicts(program())
    assert v["rhs_mat"].code == "external_source"
    assert "no tensor.create proves it does not alias `out`" in v["rhs_mat"].reason
    assert v["rhs_right"].code == "source_not_hoisted"


def test_loop_calling_a_user_function_declines():
    helper = ("    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n"
              "    def helper(t: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n        return t\n")
    body = BODY + ["h: pl.Scalar[pl.INDEX] = self.helper(n)"]
    _, v = verdicts(program(body, extra_functions=helper))
    assert v["lhs_mat"].code == "boundary_call"
    assert "contains a call to `helper`" in v["lhs_mat"].reason


@pytest.mark.parametrize("loop, code, words", [
    ("pl.pipeline(2, stage=2)", "loop_kind", "is pl.pipeline"),
    ("pl.parallel(2)", "loop_kind", "is pl.parallel"),
    ("pl.range(trips)", "dynamic_bounds", "non-constant bounds"),
    ("pl.range(2, 2)", "zero_trip", "runs zero times"),
    ("pl.range(0, 2, -1)", "nonpositive_step", "has a step that is not positive"),
])
def test_loop_shape_gates(loop, code, words):
    _, v = verdicts(program(loop=loop))
    assert v["lhs_mat"].code == code and words in v["lhs_mat"].reason


def test_inout_source_declines():
    _, v = verdicts(program(lhs_param="lhs: pl.InOut[pl.Tensor[[16, 128], pl.BF16]]"))
    assert v["lhs_mat"].code == "source_direction"
    assert "is an InOut parameter" in v["lhs_mat"].reason


def test_a_preceding_effect_closes_the_prefix():
    store = ("o: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(pl.tile.create([16, 128], dtype=pl.FP32, "
             "target_memory=pl.Mem.Vec), [0, 0], out)")
    _, v = verdicts(program([store] + BODY))
    assert v["lhs_mat"].code == "prefix_closed"
    assert "closes the hoistable prefix" in v["lhs_mat"].reason and "pl.tile.store" in v["lhs_mat"].reason


def test_loop_variant_offset_declines():
    variant = LHS_LOAD.replace("pl.tile.load(lhs, [0, 0]", "pl.tile.load(lhs, [n, 0]")
    _, v = verdicts(program([variant] + BODY[1:]))
    assert v["lhs_mat"].code == "loop_variant" and "`n` is the loop variable" in v["lhs_mat"].reason
    assert v["lhs_mat"].fix is None           # no change of the load makes it invariant


def test_operand_computed_in_the_body_says_how_to_fix_it():
    offset = "k: pl.Scalar[pl.INDEX] = 0"
    local = LHS_LOAD.replace("pl.tile.load(lhs, [0, 0]", "pl.tile.load(lhs, [k, 0]")
    _, v = verdicts(program([offset, local] + BODY[1:]))
    d = v["lhs_mat"]
    assert d.code == "loop_local" and d.reason == "operand `k` is computed inside the loop (line 9)"
    assert d.fix == "compute `k` before the loop"
    assert d.report_lines()[-1] == "  to hoist it: compute `k` before the loop"


def test_every_refusal_is_listed_most_fundamental_first():
    # rhs_mat reads the loop variable AND comes from an external parameter: the loop
    # variance is what truly blocks it (no aliasing proof would help), so it leads
    variant = RHS_LOAD.replace("pl.tile.load(rhs, [0, 0]", "pl.tile.load(rhs, [0, n]")
    _, v = verdicts(program([LHS_LOAD, variant] + BODY[2:]))
    d = v["rhs_mat"]
    assert [r.code for r in d.refusals] == ["loop_variant", "external_source"]
    assert [r.rank for r in d.refusals] == sorted(r.rank for r in d.refusals)
    assert d.code == "loop_variant" and d.reason == d.refusals[0].reason
    assert d.fix is None                      # the loop variance cannot be fixed
    lines = d.report_lines()
    assert lines[0].startswith("kernel: rhs_mat: operand `n` is the loop variable")
    assert lines[1].startswith("  and: source `rhs` is an external parameter")
    assert d.to_dict()["refusals"][1]["code"] == "external_source"


def test_external_source_says_what_would_make_it_legal():
    _, v = verdicts(program())
    assert v["rhs_mat"].fix == "create `rhs` with pl.create_tensor in `main`"


def test_submitted_kernel_declines():
    caller = [
        "lhs: pl.Tensor[[16, 128], pl.BF16] = pl.tensor.create([16, 128], dtype=pl.BF16, layout=pl.TensorLayout.ND)",
        "t: pl.Tuple[pl.Tensor[[16, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.kernel, lhs, rhs, trips, out)",
        "return out",
    ]
    _, v = verdicts(program(caller=caller))
    assert v["lhs_mat"].code == "submitted" and "launched with a submit" in v["lhs_mat"].reason


def test_kernel_without_call_site_declines():
    caller = ["return out"]
    _, v = verdicts(program(caller=caller))
    assert v["lhs_mat"].code == "no_callsite"


def test_user_written_load_is_never_moved():
    manual = LHS_LOAD.replace(f", {BRIDGE}", "")
    sol, v = verdicts(program([manual] + BODY[1:]))
    assert v["lhs_mat"].code == "unmarked" and not v["lhs_mat"].hoisted
    assert v["lhs_left"].code == "source_manual"
    assert not hoisted_before_loop(sol, "lhs_mat")


def test_yielded_value_stays():
    body = [LHS_LOAD, LHS_MOVE, RHS_LOAD, RHS_MOVE, MATMUL, "res: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.yield_(lhs_mat)"]
    text = program(body, pre=["init: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.create([16, 128], dtype=pl.BF16, target_memory=pl.Mem.Mat)"],
                   loop="pl.range(2, init_values=(init,))")
    text = text.replace("for n in pl.range", "for n, (it,) in pl.range")
    sol, v = verdicts(text)
    # also used twice (the yield is a use): not a stationary operand, which ranks first
    assert [r.code for r in v["lhs_mat"].refusals] == ["not_stationary", "yielded"]


# ------------------------------------------------------------------ capacity at the boundary

def _mat_pad(rows, name="pad"):
    return (f"{name}: pl.Tile[[{rows}, 128], pl.BF16, pl.Mem.Mat] = "
            f"pl.tile.create([{rows}, 128], dtype=pl.BF16, target_memory=pl.Mem.Mat)")


# Mat owners: lhs_mat 4096 B + rhs_mat 32768 B; a [1904, 128] BF16 pad brings the
# function's Mat footprint to exactly 524288 B, the capacity of both backends.
EXACT_MAT = [_mat_pad(1904)]
ONE_MORE = EXACT_MAT + ["tiny: pl.Tile[[1, 16], pl.BF16, pl.Mem.Mat] = "
                        "pl.tile.create([1, 16], dtype=pl.BF16, target_memory=pl.Mem.Mat)"]


@pytest.mark.parametrize("backend", ["910B", "950"])
def test_mat_exactly_at_capacity_hoists(backend):
    _, v = verdicts(program(pre=EXACT_MAT), backend)
    assert v["lhs_mat"].hoisted


@pytest.mark.parametrize("backend", ["910B", "950"])
def test_one_aligned_allocation_more_declines(backend):
    _, v = verdicts(program(pre=ONE_MORE), backend)
    assert v["lhs_mat"].code == "capacity_exceeded"
    assert v["lhs_mat"].reason == "Mat footprint 524320 B exceeds 524288 B"


def test_left_capacity_boundary():
    # lhs_left owns 4096 B of Left; a [240, 128] BF16 Left tile fills the other 61440 B
    left_pad = ("lp: pl.Tile[[240, 128], pl.BF16, pl.Mem.Left] = "
                "pl.tile.create([240, 128], dtype=pl.BF16, target_memory=pl.Mem.Left)")
    _, v = verdicts(program(pre=[left_pad]))
    assert v["lhs_left"].hoisted
    odd = left_pad.replace("lp:", "lp2:").replace("[240, 128]", "[1, 1]")
    _, v = verdicts(program(pre=[left_pad, odd]))
    # a 2-byte tile still takes a 32-byte aligned slot
    assert v["lhs_left"].reason == "Left footprint 65568 B exceeds 65536 B"


def test_unknown_size_refuses_capacity():
    dyn = ("dyn: pl.Tile[[trips, 128], pl.BF16, pl.Mem.Mat] = "
           "pl.tile.create([16, 128], dtype=pl.BF16, target_memory=pl.Mem.Mat)")
    _, v = verdicts(program(pre=[dyn]))
    assert v["lhs_mat"].code == "capacity_unknown"


def test_report_without_a_backend_says_so(tmp_path, capsys):
    # the verdicts themselves: tests/data/solve/residency_external_rhs.report.txt
    from tilemem.cli import main
    src = tmp_path / "k.pto"
    src.write_text(program())
    assert main(["solve", str(src), "--report"]) == 0
    assert "no backend configured" in capsys.readouterr().err

def _rule_facts(rules, pred):
    return [tuple(t.value for t in f.head.args) for f in rules.predicates[pred].facts]


def test_every_refusal_code_has_a_rank_and_words_for_its_detail():
    """A refusal rule is worded by its own facts (rules/p4_residency/residency.dl): each code a
    refusal (or a loop boundary) can carry has one rank, one detail kind and words for
    that kind, and the words name only fields the verdicts fill in."""
    import string
    from tilemem.datalog import RuleSet
    from tilemem.ir.optable import op_table
    from tilemem.residency.verdicts import FIELDS
    rules = RuleSet.from_package()
    heads = [r.head for p in ("refusal", "boundary") for r in rules.rules_for(p)]
    codes = {h.args[1].value for h in heads if hasattr(h.args[1], "value")}
    ranked = _rule_facts(rules, "refusal_code")
    assert {c for c, _, _ in ranked} == codes and len(ranked) == len(codes)
    words = {(c, k): (w, f) for c, k, w, f in _rule_facts(rules, "refusal_words")}
    for code, _, kind in ranked:
        assert (code, kind) in words, code
    for reason, fix in words.values():
        for text in (reason, fix):
            for _, field, _, _ in string.Formatter().parse(text):
                if field is not None:
                    assert field in FIELDS or op_table().role(field), (text, field)


# ---------------------------------------------------------------- the uses phase 4 loads

VEC_ADD = "v: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(c, c)"


def _phase4_rows(text, backend="910B"):
    """(the solution, the facts phase 4's solve loaded)."""
    from tilemem.residency import solve as residency
    seen = {}
    real = residency.evaluate

    def spy(facts, *args, **kwargs):
        seen["facts"] = facts
        return real(facts, *args, **kwargs)
    mp = pytest.MonkeyPatch()
    mp.setattr(residency, "evaluate", spy)
    try:
        sol = tilemem.solve(text, backend=backend)
    finally:
        mp.undo()
    return sol, seen["facts"]


def test_phase4_loads_only_the_rows_its_rules_read():
    # a vector op on an Acc tile: no residency rule joins its call or its uses
    # (rules/p4_residency/reads.dl); the matmul's, the chain's and the store's are read
    sol, facts = _phase4_rows(program(BODY + [VEC_ADD]))
    name = lambda v: facts.vars[v][1]
    add_at = {p for p, v in facts.rows["defines"] if name(v) == "v"}
    assert len(add_at) == 1
    calls = {op for _, op, _ in facts.rows["call"]}
    assert "tile.add" not in calls and {"tile.load", "tile.move", "tile.matmul"} <= calls
    uses = {(name(v), p) for v, _, p, _ in facts.rows["use"]}
    assert not any(p in add_at for _, p in uses)
    assert {"lhs", "lhs_mat", "lhs_left", "rhs_right"} <= {n for n, _ in uses}
    assert {d.var for d in sol.residency if d.hoisted} >= {"lhs_mat", "lhs_left"}


def test_phase4_loads_the_declared_rows_of_the_kinds_its_rules_read():
    from tilemem.datalog.syntax import Const
    from tilemem.infer.solver import load_rules
    rules = load_rules()
    kinds = {row[0] for row in rules.fact_rows["declared_read_kind"]}
    read = []
    for rule in rules.rules:
        if "p4_residency" in str(rule.loc.file if rule.loc else ""):
            for lit in rule.body:
                for atom in lit.atoms():
                    if atom.pred == "declared":
                        kind = atom.args[1]
                        assert isinstance(kind, Const) and kind.value in kinds, \
                            f"{rule.loc}: reads declared rows of a kind declared_read_kind leaves out"
                        read.append(kind.value)
    assert set(read) == kinds          # (no kind loaded that no rule reads)
    scalar = "k: pl.Scalar[pl.INDEX] = n + 1"
    sol, facts = _phase4_rows(program([LHS_LOAD, scalar, *BODY[1:]]))
    assert {kind for _, kind, _ in facts.rows["declared"]} == kinds
    assert {d.var for d in sol.residency if d.hoisted} >= {"lhs_mat", "lhs_left"}


def test_phase4_loads_the_statements_of_functions_holding_a_matmul_operand_tile():
    # the orchestration function holds no Mat, Left or Right tile: none of its
    # statements is one residency asks about (its call sites still are: callsite rows)
    # and of its definitions only the fresh tensor's (a storage root)
    sol, facts = _phase4_rows(program())
    assert {f for _, f, _, _ in facts.rows["stmt"]} == {"kernel"}
    assert {caller for _, caller, _ in facts.rows["callsite"]} == {"main"}
    defined = {facts.vars[v] for _, v in facts.rows["defines"]}
    assert {n for f, n in defined if f == "main"} == {"lhs"}
    assert {"lhs_mat", "lhs_left", "c", "n"} <= {n for f, n in defined if f == "kernel"}
    assert sol.residency


def _solved_every_way(text, backend, monkeypatch):
    """(the solve, the same solve loading every use) as comparable values."""
    from tilemem.residency import parts, solve as residency

    def outcome():
        sol = tilemem.solve(text, backend=backend)
        return sol.text, sol.residency, sol.warnings
    got = outcome()
    every_row = residency.residency_reads

    def spaces_only(*a, **k):
        reads = every_row(*a, **k)
        return reads if reads is None else residency.ResidencyReads(reads.spaces, None)
    with monkeypatch.context() as mp:
        mp.setattr(residency, "residency_reads", spaces_only)
        mp.setattr(parts, "residency_reads", spaces_only)
        whole = outcome()
    return got, whole


def test_loading_only_the_uses_read_changes_no_verdict(monkeypatch):
    for body in (BODY + [VEC_ADD], [LHS_LOAD, "k: pl.Scalar[pl.INDEX] = n + 1", *BODY[1:]],
                 BODY + [VEC_ADD, "pl.tile.store(v, [0, 0], out)"]):
        got, whole = _solved_every_way(program(body), "910B", monkeypatch)
        assert got == whole


CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
CORPUS_CASES = sorted(p.parent for p in CORPUS.glob("*/before.pto")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_CASES, reason="../shared/corpus not found next to the checkout")
def test_loading_only_the_uses_read_changes_nothing_on_the_corpus(monkeypatch):
    import json
    checked = 0
    for case in CORPUS_CASES:
        backend = json.loads((case / "meta.json").read_text()).get("backend")
        if not backend:
            continue
        got, whole = _solved_every_way((case / "before.pto").read_text(), backend, monkeypatch)
        assert got == whole, case.name
        checked += 1
    assert checked > 10
