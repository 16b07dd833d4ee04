"""Proof trees and why-not answers (tilemem/explain.py), the library methods and ``tilemem why``.

The small programs are written here, one per kind of answer a compiler engineer asks
for; the corpus walk checks every tile var of the golden corpus (a sample by default,
every case with ``-m slow``).
"""
import json
import textwrap
from pathlib import Path

import pytest

import tilemem
from tilemem.datalog import RuleSet
from tilemem.explain import ExplainError, ProofNode, WhyNot, format_fact
from tilemem.explain.sourcemap import compact_source

from cli_helpers import CORPUS, run, run_in_process
from program_helpers import MATMUL_ADD, incore_program

SIG = ("def k(x: pl.Tensor[[16, 256], pl.BF16], y: pl.Tensor[[128, 128], pl.BF16], "
       "z: pl.Tensor[[16, 128], pl.FP32], flag: pl.Scalar[pl.INDEX], "
       "out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:")


def program(body: str) -> str:
    return incore_program(body, SIG)


def solve(body: str, backend=None, **kw):
    return tilemem.solve(program(body), backend=backend, **kw)


def line_no(text: str, needle: str) -> int:
    return next(i for i, l in enumerate(text.splitlines(), 1) if needle in l)


def nodes(tree: ProofNode, pred=None, kind=None):
    return [n for n in tree.walk() if (pred is None or n.pred == pred) and (kind is None or n.kind == kind)]


def rule_files(tree: ProofNode) -> set:
    return {Path(n.rule.file).name for n in tree.walk() if n.kind == "derived"}


def check_tree(tree: ProofNode, x) -> None:
    """Structural invariants of a proof tree against its Explainer's database."""
    for n in tree.walk():
        if n.kind == "derived":
            assert x.holds(n.pred, n.row), n.fact
            kids = [c.height for c in n.children if c.kind in ("derived", "input", "rule_fact")]
            assert n.height == 1 + max(kids, default=0), n.fact
            assert n.rule.head.pred == n.pred
            # minimal: no derivation of the fact is lower than the one shown
            for d in x.derivations(n.pred, n.row):
                assert 1 + max((x.height(*p) for p in d.premises()), default=0) >= n.height
        elif n.kind in ("input", "rule_fact"):
            assert x.holds(n.pred, n.row), n.fact
            assert not n.children
        elif n.kind == "absent":
            pattern = [None if v is None else v for v in n.pattern]
            assert not list(x.rel.match(n.pred, pattern)), n.fact




# ------------------------------------------------------------------ an op's fixed output


def test_matmul_result_is_acc_because_the_op_table_fixes_it():
    sol = solve(MATMUL_ADD)
    tree = sol.explain("c")
    assert isinstance(tree, ProofNode) and tree.holds
    assert (tree.pred, tree.row) == ("space", ("k:c", "Acc"))
    space_written = nodes(tree, "space_written")[0]
    assert space_written.row == ("k:c", 2, "Acc")
    assert "op_output_fixed" in space_written.rule.text
    fixed = [n for n in space_written.children if n.pred == "op_output_fixed"]
    assert fixed and fixed[0].kind == "rule_fact" and fixed[0].row == ("tile.matmul", "Acc")
    assert Path(fixed[0].rule.file).name == "op_output_fixed.facts"   # the op table's row
    # input leaves carry the statement's source line
    call = next(n for n in tree.walk() if n.pred == "call" and n.row == (2, "tile.matmul", 2))
    text = program(MATMUL_ADD)
    assert call.source["line"] == line_no(text, "pl.tile.matmul(a, b)")
    assert call.source["text"] == "c = pl.tile.matmul(a, b)"
    check_tree(tree, sol.session().phase3())
    s = str(tree)
    assert s.splitlines()[0].startswith('space("k:c", "Acc")')
    assert "rules/p1_resolve.dl:" in s and "rules/ops/op_output_fixed.facts:" in s
    assert "a fixed output space" in s                    # the rule's comment
    assert f"<input>:{call.source['line']}: c = pl.tile.matmul(a, b)" in s


def test_to_dict_is_json_and_repeats_shared_subtrees_by_reference():
    sol = solve(MATMUL_ADD)
    d = sol.explain("c").to_dict()
    json.dumps(d)
    assert d["pred"] == "space" and d["args"] == ["k:c", "Acc"] and d["kind"] == "derived"
    assert d["rule"]["file"].startswith("rules/p1_resolve.dl") and d["rule"]["head"] == "space"
    refs, ids = [], set()

    def walk(n):
        if "see" in n:
            refs.append(n["see"])
            return
        if "id" in n:
            ids.add(n["id"])
        for c in n.get("children", []):
            walk(c)
    walk(d)
    assert refs and set(refs) <= ids          # def_site is used twice: the second is a reference
    leaf = next(c for c in d["children"][0]["children"][0]["children"] if c["pred"] == "assign")
    assert leaf["kind"] == "input" and leaf["source"]["line"] == line_no(program(MATMUL_ADD), "pl.tile.matmul(a, b)")


# ------------------------------------------------------------------ target_memory kwarg


def test_target_memory_kwarg_is_obeyed():
    sol = solve(MATMUL_ADD)
    tree = sol.explain("a")
    assert tree.row == ("k:a", "Mat")
    kw = nodes(tree, "kwarg", "input")
    assert [n.row for n in kw] == [(0, "target_memory", "Mat")]
    assert "target_memory=pl.Mem.Mat" in kw[0].source["text"]
    assert "target_memory= kwarg is obeyed" in str(tree)
    check_tree(tree, sol.session().phase3())


# ------------------------------------------------------------------ backward demand


DEMAND = """
    x_tile: pl.Tile[[16, 128], pl.FP32] = pl.tile.load(z, [0, 0], [16, 128], [16, 128])
    x_half: pl.Tile[[16, 64], pl.FP32] = pl.tile.slice(x_tile, [16, 64], [0, 0])
    x_flat: pl.Tile[[1024], pl.FP32] = pl.tile.reshape(x_half, [1024])
    y_flat: pl.Tile[[1024], pl.FP32] = pl.tile.exp(x_flat)
    y_tile: pl.Tile[[16, 64], pl.FP32] = pl.tile.reshape(y_flat, [16, 64])
    out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(y_tile, [0, 0], out_0)
    return out_0
"""


def test_demand_travels_back_through_reshape_and_slice_and_is_clamped_to_vec():
    sol = solve(DEMAND)
    text = program(DEMAND)
    tree = sol.explain("x_tile")
    assert tree.row == ("k:x_tile", "Vec")
    check_tree(tree, sol.session().phase3())
    # the clamp rule, fed by the demand that reached x_tile
    clamp = nodes(tree, "clamped_demand")
    assert [n.row for n in clamp] == [("k:x_tile", "Vec")]
    assert any(n.pred == "clampable" and n.kind == "rule_fact" for n in clamp[0].children)
    # ... which came from tile.exp's input slot, back through reshape then slice
    edges = {n.row for n in nodes(tree, "demand_edge")}
    assert edges == {(2, "k:x_flat", "k:x_half"), (1, "k:x_half", "k:x_tile")}
    site = nodes(tree, "demand_site")
    assert [n.row for n in site] == [("k:x_flat", 3, 0, "Vec")]
    assert site[0].positions == [(3, {"line": line_no(text, "pl.tile.exp(x_flat)")})]
    assert any(n.pred == "op_input" and n.row == ("tile.exp", 0, 0, "Vec") for n in tree.walk())
    s = str(tree)
    assert "x_half = pl.tile.slice(x_tile, [16, 64], [0, 0])" in s
    assert "x_flat = pl.tile.reshape(x_half, [1024])" in s


def test_a_left_demand_is_not_clamped_why_not():
    sol = solve("""
        x_tile: pl.Tile[[16, 256], pl.BF16] = pl.tile.load(x, [0, 0], [16, 256], [16, 256])
        x_half: pl.Tile[[16, 128], pl.BF16] = pl.tile.slice(x_tile, [16, 128], [0, 0])
        w: pl.Tile[[128, 128], pl.BF16] = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 128], pl.FP32] = pl.tile.matmul(x_half, w)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(c, [0, 0], out_0)
        return out_0
    """)
    assert sol.spaces["k"]["x_tile"] == "Vec"
    wn = sol.session().why_not_var("x_tile", "Left")
    assert isinstance(wn, WhyNot) and not wn.holds
    assert [n.row for n in wn.near] == [("k:x_tile", "Vec")]        # what holds instead
    (cand,) = wn.candidates
    assert cand.failed_text == 'space_written("k:x_tile", 0, "Left")'
    # one level down: the clamp rule got furthest; below it, the demand holds but
    # Left is not clampable
    clamp = cand.sub.candidates[0]
    assert "clamped_demand(V, S)" in clamp.rule.text
    assert clamp.failed_text == 'clamped_demand("k:x_tile", "Left")'
    inner = clamp.sub.candidates[0]
    assert [n.fact for _, n in inner.satisfied] == ['demand("k:x_tile", "Left")']
    assert inner.failed_text == 'clampable("Left")'
    s = str(wn)
    assert 'space("k:x_tile", "Left") does not hold.' in s
    assert '✓ demand("k:x_tile", "Left")' in s and '✗ no clampable("Left")' in s
    json.dumps(wn.to_dict())


# ------------------------------------------------------------------ views and aliases


def test_view_and_alias_inherit_their_source_space():
    body = """
        m: pl.Tile[[16, 256], pl.BF16] = pl.tile.load(x, [0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Mat)
        v: pl.Tile[[16, 128], pl.BF16] = pl.tile.slice(m, [16, 128], [0, 0])
        a: pl.Tile[[16, 128], pl.BF16] = v
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(a, [0, 0], out_0)
        return out_0
    """
    sol = solve(body)
    x = sol.session().phase3()
    tree = sol.explain("a")
    assert tree.row == ("k:a", "Mat")
    check_tree(tree, x)
    top = nodes(tree, "space_written")[0]
    assert top.row == ("k:a", 2, "Mat")
    assert any(c.pred == "alias" and c.row == (2, "k:a", "k:v") for c in top.children)
    # the alias read v's space at line of the alias, which v inherited from m through the slice
    sa = next(c for c in top.children if c.pred == "space_at")
    assert sa.row == ("k:v", 2, "Mat")
    inherit = [n for n in tree.walk() if n.pred == "space_written" and n.row == ("k:v", 1, "Mat")]
    # (through inheriting_def: the slice's definition is one that takes its input's space)
    assert inherit and any(c.pred == "op_inherits_input" and c.row == ("tile.slice",)
                           for c in inherit[0].walk())
    assert "a view-like op" in str(tree) and "SSA alias" in str(tree)


# ------------------------------------------------------------------ loops


LOOP = """
    acc0: pl.Tile[[16, 128], pl.FP32] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    lhs: pl.Tile[[16, 128], pl.BF16] = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
    rhs: pl.Tile[[128, 128], pl.BF16] = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
    for i, (acc,) in pl.range(4, init_values=(acc0,)):
        acc_next: pl.Tile[[16, 128], pl.FP32] = pl.tile.matmul_acc(acc, lhs, rhs)
        r: pl.Tile[[16, 128], pl.FP32] = pl.yield_(acc_next)
    out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(r, [0, 0], out_0)
    return out_0
"""


def test_iter_arg_and_init_are_promoted_by_the_loops_yield():
    sol = solve(LOOP)
    text = program(LOOP)
    x = sol.session().phase3()
    loop_line = line_no(text, "for i, (acc,)")
    for name in ("acc", "acc0", "r"):
        tree = sol.explain(name)
        assert tree.row == (f"k:{name}", "Acc")
        check_tree(tree, x)
        promo = nodes(tree, "loop_promotion")
        assert [n.row for n in promo] == [(3, 0, "Acc")], name
        yld = [c for c in promo[0].children if c.pred == "loop_yield"]
        assert yld and yld[0].source["line"] == line_no(text, "pl.yield_(acc_next)")
    # the last write of acc0 is the loop's exit, shown as the end of the loop's line
    site = nodes(sol.explain("acc0"), "site")[0]
    assert site.positions == [(6, {"line": loop_line, "end": True})]
    assert f"[6: end of line {loop_line}]" in str(sol.explain("acc0"))


# ------------------------------------------------------------------ branches


def branch(then_op: str, else_op: str) -> str:
    return f"""
        xt: pl.Tile[[16, 256], pl.BF16] = pl.tile.load(x, [0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Mat)
        zt: pl.Tile[[16, 128], pl.FP32] = pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        if flag < 1:
            a: pl.Tile[[16, 128], pl.FP32] = {then_op}
            phi: pl.Tile[[16, 128], pl.FP32] = pl.yield_(a)
        else:
            b: pl.Tile[[16, 128], pl.FP32] = {else_op}
            phi: pl.Tile[[16, 128], pl.FP32] = pl.yield_(b)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(phi, [0, 0], out_0)
        return out_0
    """


def test_agreeing_branch_phi_takes_the_common_space():
    sol = solve(branch("pl.tile.add(zt, zt)", "pl.tile.mul(zt, zt)"))
    tree = sol.explain("phi")
    assert tree.row == ("k:phi", "Vec")
    check_tree(tree, sol.session().phase3())
    arms = {n.row for n in nodes(tree, "arm_space")}
    assert arms == {(2, "then", 0, "Vec"), (2, "else", 0, "Vec")}      # the if is statement 2
    assert "The arms agree" in str(tree)


def test_disagreeing_branch_phi_stays_unresolved_and_says_why():
    body = branch("pl.tile.add(zt, zt)", "pl.tile.load(z, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)")
    sol = solve(body)
    assert "phi" not in sol.spaces["k"]
    ans = sol.explain("phi")
    assert isinstance(ans, WhyNot) and not ans.holds
    (cand,) = ans.candidates
    assert cand.failed_text == '"none" != "none"'          # the last write holds "none"
    (src,) = cand.blocking
    assert src.pred == "space_written" and src.row[2] == "none"
    conflict = nodes(src, "phi_conflict")
    assert conflict and {c.row for c in conflict[0].children if c.pred == "arm_space"} == {
        (2, "then", 0, "Vec"), (2, "else", 0, "Mat")}
    assert "both arms know a space and they differ" in str(ans)
    # why not Vec: the then-arm says Vec, the else-arm Mat
    wn = sol.session().why_not_var("phi", "Vec")
    s = str(wn)
    assert 'no space_written("k:phi", 7, "Vec")' in s
    assert 'space_written("k:phi", 7, "none")' in s                  # what holds instead
    agree = [c for c in wn.candidates[0].sub.candidates if "The arms agree" in (c.rule.doc or "")]
    assert agree and agree[0].failed_text == 'arm_space(2, "else", 0, "Vec")'
    assert [n.row for n in agree[0].near] == [(2, "else", 0, "Mat")]


# ------------------------------------------------------------------ inserted moves


def test_inserted_move_and_the_consumer_that_forced_it():
    sol = solve(MATMUL_ADD)
    text = program(MATMUL_ADD)
    (tree,) = sol.proofs('move_at(P, "k:a", T)')
    assert tree.row == (2, "k:a", "Left")
    assert tree.positions == [(2, {"line": line_no(text, "pl.tile.matmul(a, b)")})]
    check_tree(tree, sol.session().phase3())
    uses = nodes(tree, "constrained_use")
    assert {n.row for n in uses} == {(2, 0, "k:a", "tile.matmul")}
    assert any(n.pred == "op_input" and n.row == ("tile.matmul", 0, 0, "Left") for n in tree.walk())
    assert any(n.pred == "space" and n.row == ("k:a", "Mat") for n in tree.walk())
    # (slot 0 of tile.matmul does not accept Mat: no op table row says it does)
    assert any(n.kind == "absent" and n.text == '!op_input("tile.matmul", 0, _, "Mat")'
               for n in tree.walk())
    # the inserted var's name leads to the same proof
    moved = sol.explain("a_Left")
    assert moved.pred == "move_at" and moved.row == (2, "k:a", "Left")
    # the Acc -> Vec move before the add
    (vec,) = sol.proofs('move_at(P, "k:c", "Vec")')
    assert {n.row[3] for n in nodes(vec, "constrained_use")} == {"tile.add"}


def test_pattern_without_match_gives_a_why_not():
    sol = solve(MATMUL_ADD)
    ans = sol.proofs('move_at(P, "k:d", T)')
    assert isinstance(ans, WhyNot) and not ans.holds


# ------------------------------------------------------------------ residency (phase 4)


BRIDGE = 'attrs={"__compiler_tensor_to_tile_mat_bridge": True}'
RESIDENT = f"""# pypto.program: R
import pypto.language as pl

@pl.program
class R:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(lhs: pl.Tensor[[16, 128], pl.BF16], rhs: pl.Tensor[[128, 128], pl.BF16], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        for n in pl.range(2):
            lhs_mat: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, {BRIDGE})
            rhs_mat: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(rhs, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, {BRIDGE})
            c: pl.Tile[[16, 128], pl.FP32] = pl.tile.matmul(lhs_mat, rhs_mat)
        return out
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, lhs: pl.Tensor[[16, 128], pl.BF16], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        rhs: pl.Tensor[[128, 128], pl.BF16] = pl.tensor.create([128, 128], dtype=pl.BF16, layout=pl.TensorLayout.ND)
        r: pl.Tensor[[16, 128], pl.FP32] = self.kernel(lhs, rhs, out)
        return r
"""


def test_residency_hoist_and_decline_are_explained():
    sol = tilemem.solve(RESIDENT, backend="910B")
    verdict = {d.var: d for d in sol.residency}
    assert verdict["rhs_mat"].hoisted and not verdict["lhs_mat"].hoisted
    x4 = sol.session().phase4()
    (hoisted,) = sol.explain_residency("rhs_mat")
    assert hoisted.pred == "residency_hoisted" and hoisted.row[1] == "kernel:rhs_mat"
    check_tree(hoisted, x4)
    assert nodes(hoisted, "hoist")
    # hoisted because no refusal holds; the refusal that needs the source proven safe
    # fails on the orchestrator's tensor.create, at its line
    assert any(n.kind == "absent" and n.pred == "refused" for n in hoisted.walk())
    wn = x4.why_not("refusal", (hoisted.row[0], None, None, None))
    assert not wn.holds
    ext = [c for c in wn.candidates if "external_source" in str(c.rule)]
    assert ext and ext[0].blocking
    cs = [n for b in ext[0].blocking for n in b.walk() if n.pred == "callsite" and n.kind == "input"]
    assert cs and cs[0].source["line"] == line_no(RESIDENT, "self.kernel(lhs, rhs, out)")
    (declined,) = sol.explain_residency("lhs_mat")
    assert declined.pred == "residency_declined" and declined.row[3] == verdict["lhs_mat"].code
    check_tree(declined, x4)
    assert any(n.pred == "refusal" for n in declined.children)
    # phase 4 relations through the library's query
    cols, rows = sol.query("hoist(P, L)")
    assert cols == ("P", "L") and len(rows) == 2          # the load and its move to Right
    # no backend: no phase 4, no residency explanation, empty relation
    sol0 = tilemem.solve(RESIDENT)
    assert sol0.explain_residency("rhs_mat") == []
    assert sol0.query("hoist(P, L)").rows == []
    with pytest.raises(ExplainError, match="backend"):
        sol0.proofs("hoist(P, L)")


def test_why_cli_includes_the_residency_verdict(tmp_path):
    f = tmp_path / "r.pto"
    f.write_text(RESIDENT)
    r = run("why", f, "rhs_mat", "--backend", "910B")
    assert r.returncode == 0, r.stderr
    line = line_no(RESIDENT, "rhs_mat: pl.Tile")
    assert r.stdout.startswith(f"`rhs_mat` is in Mat because of line {line} (`rhs_mat = pl.tile.load(")
    loop = line_no(RESIDENT, "for n in")
    assert f"Residency (Ascend910B): hoisted out of the loop at line {loop}" in r.stdout
    assert len(r.stdout.splitlines()) <= 12
    r = run("why", f, "rhs_mat", "--backend", "910B", "--tree")
    assert "residency (Ascend910B): hoisted out of its loop:" in r.stdout
    assert 'residency_hoisted(' in r.stdout
    r = run("why", f, "lhs_mat", "--backend", "910B", "--json")
    d = json.loads(r.stdout)
    assert d["schema"] == "tilemem-why/2" and d["space"] == "Mat"
    assert d["answer"].startswith("`lhs_mat` is in Mat because of line")
    assert [x["hoisted"] for x in d["residency"]] == [False]
    assert d["residency"][0]["refusals"][0]["code"] == "external_source"
    assert [t["pred"] for t in d["residency_proofs"]] == ["residency_declined"]


# ------------------------------------------------------------------ genericity


def test_a_rule_added_by_the_user_is_explained_without_python(tmp_path):
    rules = tmp_path / "mine.dl"
    rules.write_text(textwrap.dedent("""\
        // An accumulator fed straight into an elementwise op.
        .decl acc_into_vec(var, op)
        acc_into_vec(V, Op) :- space(V, "Acc"), arg(P, _, V), call(P, Op, _), op_output_fixed(Op, "Vec").
    """))
    sol = solve(MATMUL_ADD, rules=[str(rules)])
    (tree,) = sol.proofs("acc_into_vec(V, Op)")
    assert tree.row == ("k:c", "tile.add")
    assert tree.rule.file == str(rules) and tree.rule.line == 3
    assert "An accumulator fed straight into an elementwise op." in str(tree)
    assert [c.pred for c in tree.children] == ["space", "arg", "call", "op_output_fixed"]
    check_tree(tree, sol.session().phase3())
    wn = sol.session().why_not_fact('acc_into_vec("k:a", Op)')
    assert wn.candidates[0].failed_text == 'space("k:a", "Acc")'


def test_minimal_height_picks_the_shorter_derivation():
    # d has its own Vec demand (tile.exp) and also one through the reshape chain:
    # has_demand(d) must be proved by its own demand site (height 3), not the chain
    sol = solve("""
        d: pl.Tile[[16, 128], pl.FP32] = pl.tile.load(z, [0, 0], [16, 128], [16, 128])
        e: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(d)
        r1: pl.Tile[[2048], pl.FP32] = pl.tile.reshape(d, [2048])
        r2: pl.Tile[[16, 128], pl.FP32] = pl.tile.reshape(r1, [16, 128])
        f: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(r2)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(f, [0, 0], out_0)
        return out_0
    """)
    x = sol.session().phase3()
    assert len(x.derivations("has_demand", ("k:d",))) >= 2
    tree = x.explain("has_demand", ("k:d",))
    assert [c.pred for c in tree.children] == ["demand_site"]
    check_tree(tree, x)
    # the recursive component is solved exactly: every fact's height is its best derivation
    for f, h in list(x._height.items()):
        if x._best.get(f) is not None:
            assert h == min(1 + max((x.height(*p) for p in d.premises()), default=0)
                            for d in x.derivations(*f))


def test_explaining_a_fact_that_does_not_hold_is_an_error():
    sol = solve(MATMUL_ADD)
    x = sol.session().phase3()
    with pytest.raises(ExplainError, match="does not hold"):
        x.explain("space", ("k:c", "Vec"))
    with pytest.raises(ExplainError, match="unknown predicate"):
        x.explain("nope", ("k:c",))
    wn = sol.session().why_not_fact('kwarg(0, "target_memory", "Acc")')
    assert wn.kind == "input" and [n.row for n in wn.near] == [(0, "target_memory", "Mat")]
    assert "input relation" in str(wn)


def test_var_names_functions_and_errors():
    two = program(MATMUL_ADD) + textwrap.indent(textwrap.dedent(f"""\
        @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
        {SIG.replace('def k(', 'def k2(')}
            c: pl.Tile[[16, 128], pl.FP32] = pl.tile.load(z, [0, 0], [16, 128], [16, 128])
            out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(c, [0, 0], out_0)
            return out_0
    """), "    ")
    sol = tilemem.solve(two)
    with pytest.raises(ExplainError, match="several InCore functions"):
        sol.explain("c")
    assert sol.explain("c", function="k").row == ("k:c", "Acc")
    assert sol.explain("k2:c").row == ("k2:c", "Vec")
    with pytest.raises(ExplainError, match="did you mean"):
        sol.explain("cc", function="k")
    with pytest.raises(ExplainError, match="no InCore function"):
        sol.explain("c", function="main")


def test_databases_are_built_lazily_and_freed_by_close():
    sol = solve(MATMUL_ADD)
    assert sol._session is None                     # solving keeps no database
    sol.query('space(V, "Acc")')
    ses = sol._session
    assert ses is not None and ses.pipeline.db3 is not None
    sol.explain("c")
    assert sol._session is ses                      # reused
    sol.close()
    assert sol._session is None and ses.pipeline.db3 is None
    assert sol.query('space(V, "Acc")').rows == [("k:c",)]   # rebuilt on demand


def test_compact_source_drops_the_annotation():
    assert compact_source("    c: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)") == \
        "c = pl.tile.matmul(a, b)"
    assert compact_source("x: pl.Tile[[1], pl.FP32, pl.TileView(blayout=pl.TileLayout.row_major)] = y") == "x = y"
    assert compact_source("for i in pl.range(4):") == "for i in pl.range(4):"
    assert compact_source("a = " + "f(" * 60).endswith("...")


# ------------------------------------------------------------------ the CLI


def test_why_cli_tree_not_json_and_errors(tmp_path, capsys):
    f = tmp_path / "k.pto"
    f.write_text(program(DEMAND))
    text = program(DEMAND)
    r = run("why", f, "x_tile")
    assert r.returncode == 0, r.stderr
    load, exp = line_no(text, "x_tile: pl.Tile"), line_no(text, "pl.tile.exp(x_flat)")
    first = r.stdout.split(". ")[0]
    assert first.startswith(f"`x_tile` is in Vec because of line {load} (`x_tile = pl.tile.load(")
    assert f"line {exp} (`y_flat = pl.tile.exp(x_flat)`)" in " ".join(r.stdout.split())
    assert len(r.stdout.splitlines()) <= 12 and max(map(len, r.stdout.splitlines())) <= 100
    r = run("why", f, "x_tile", "--tree", "--width", "0")
    assert 'space("k:x_tile", "Vec")    <- rules/p1_resolve.dl:' in r.stdout
    assert f"{f}:{exp}: y_flat = pl.tile.exp(x_flat)" in r.stdout
    st, out, err = run_in_process(capsys, "why", f, "x_tile", "--not", "mat")
    assert st == 0 and out.startswith("`x_tile` is not in Mat: `x_tile` is in Vec because of line")
    st, out, err = run_in_process(capsys, "why", f, "x_tile", "--not", "mat", "--tree")
    assert st == 0 and 'space("k:x_tile", "Mat") does not hold.' in out
    st, out, err = run_in_process(capsys, "why", f, "x_tile", "--json")
    d = json.loads(out)
    assert d["var"] == "k:x_tile" and d["space"] == "Vec" and d["proof"]["pred"] == "space"
    assert d["answer"] == " ".join(run("why", f, "x_tile", "--width", "0").stdout.splitlines()[0].split())
    assert [s["pred"] for s in d["steps"]][:1] == ["space_written"]
    st, out, err = run_in_process(capsys, "why", f, "x_tile", "--depth", "2", "--ascii")
    assert st == 0 and "├" not in out and "|- " in out and "  ..." in out
    st, out, err = run_in_process(capsys, "why", f, 'demand_edge(P, D, "k:x_tile")', "--tree")
    half = line_no(text, "x_half: pl.Tile")
    assert st == 0 and out.startswith(f"`demand_edge(line {half}, x_half, x_tile)` holds because of line {half}")
    assert '\ndemand_edge(1, "k:x_half", "k:x_tile")' in out
    st, out, err = run_in_process(capsys, "why", f, "x_til")
    assert st == 2 and "no var 'x_til'" in err and "did you mean x_tile" in err
    st, out, err = run_in_process(capsys, "why", f, "x_tile", "--not", "Nowhere")
    assert st == 2 and "unknown memory space" in err
    st, out, err = run_in_process(capsys, "why", f, "x_tile", "--backend", "nope")
    assert st == 2


def test_facts_souffle_format(tmp_path, capsys):
    from tilemem.facts.schema import program_relations
    SCHEMA = program_relations()
    f = tmp_path / "k.pto"
    f.write_text(program(MATMUL_ADD))
    st, out, err = run_in_process(capsys, "facts", f, "--format", "souffle", tmp_path / "sf")
    assert st == 0, err
    files = sorted(p.name for p in (tmp_path / "sf").iterdir())
    assert files == sorted(f"{p}.facts" for p in SCHEMA)
    st, dl, _ = run_in_process(capsys, "facts", f)
    expected = {}
    for line in dl.splitlines():
        pred = line.split("(", 1)[0]
        expected.setdefault(pred, []).append(line)
    for p in SCHEMA:
        rows = (tmp_path / "sf" / f"{p}.facts").read_text().splitlines()
        assert len(rows) == len(expected.get(p, [])), p
        for row, fact in zip(rows, expected.get(p, [])):
            vals = [int(v) if v.lstrip("-").isdigit() else v for v in row.split("\t")]
            assert format_fact(p, vals) + "." == fact
    assert (tmp_path / "sf" / "arg.facts").read_text().startswith("0\t0\tk:x\n")
    st, out, err = run_in_process(capsys, "facts", f, "--format", "souffle")
    assert st == 2 and "needs a directory" in err
    st, out, err = run_in_process(capsys, "facts", f, tmp_path / "d")
    assert st == 2 and "only taken with --format souffle" in err


# ------------------------------------------------------------------ the golden corpus


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")

SAMPLE = [
    "test_matmul_full_pipeline_1", "test_forstmt_accumulator_backprops_acc_to_create_init_1",
    "test_divergent_branch_spaces_leave_the_phi_unrecorded_1", "test_ssa_alias_chain_feeds_matmul_1",
    "test_chained_view_ops_inherit_1", "test_marked_transpose_prefix_positive_control_1",
]


def _cases():
    return sorted(p.name for p in CORPUS.iterdir() if (p / "before.pto").is_file()) if CORPUS.is_dir() else []


def walk_case(name: str, capsys) -> int:
    d = CORPUS / name
    backend = json.loads((d / "meta.json").read_text())["backend"]
    path = d / "before.pto"
    args = ["facts", path] + (["--backend", backend] if backend else [])
    st, out, _ = run_in_process(capsys, *args)
    assert st == 0
    facts_lines = set(out.splitlines())
    rules = RuleSet.from_package()
    rule_facts = {f.text for f in rules.facts}
    sol = tilemem.solve(path, backend=backend)
    try:
        ses = sol.session()
        x = ses.phase3()
        n = 0
        for vid in sorted(ses.facts.vars):
            if not x.holds("tile_var", (vid,)):
                continue
            fn, name = vid.split(":", 1)
            ans = sol.explain(vid)
            actual = sol.spaces.get(fn, {}).get(name)
            if actual is None:
                assert isinstance(ans, WhyNot) and not ans.holds, vid
                continue
            n += 1
            assert (ans.pred, ans.row) == ("space", (vid, actual)), vid
            check_tree(ans, x)
            for leaf in ans.leaves():
                if leaf.kind == "input":
                    assert format_fact(leaf.pred, leaf.row) + "." in facts_lines, (vid, leaf.fact)
                    if leaf.pred not in ("backend",):
                        assert leaf.source and leaf.source["line"], (vid, leaf.fact)
                elif leaf.kind == "rule_fact":
                    assert leaf.rule.text in rule_facts
                else:
                    assert leaf.kind in ("absent", "check"), leaf.kind
        if backend:
            x4 = ses.phase4()
            prog_facts = {(p, r) for p, rows in ses.facts4.items() for r in rows}
            for d in sol.residency:
                trees = sol.explain_residency(f"{d.function}:{d.var}")
                # one tree per verdict fact (a refusal may hold at several call sites)
                assert trees and {t.pred for t in trees} == {
                    "residency_hoisted" if d.hoisted else "residency_declined"}
                for t in trees:
                    check_tree(t, x4)
                    for leaf in t.leaves():
                        if leaf.kind == "input":
                            assert (leaf.pred, leaf.row) in prog_facts
        return n
    finally:
        sol.close()


@needs_corpus
@pytest.mark.parametrize("name", SAMPLE)
def test_corpus_sample_every_tile_var_is_explained(name, capsys):
    assert walk_case(name, capsys) > 0


@needs_corpus
@pytest.mark.slow
def test_corpus_every_case_every_tile_var_is_explained(capsys, request):
    if not request.config.getoption("markexpr", default=""):
        pytest.skip("the whole corpus: run with -m slow")
    total = sum(walk_case(name, capsys) for name in _cases())
    assert total > 300


def test_readme_shows_real_why_output():
    """The README's tree is what `tilemem why docs/backward_demand.pto x_tile` prints
    (rule line numbers aside: they move whenever a rule file is edited)."""
    import re
    repo = Path(__file__).resolve().parents[1]
    readme = (repo / "README.md").read_text()
    intro = "`tilemem why docs/backward_demand.pto x_tile`:\n\n```\n"
    assert intro in readme
    shown = readme.split(intro, 1)[1].split("\n```", 1)[0]
    r = run("why", "docs/backward_demand.pto", "x_tile", cwd=repo)
    assert r.returncode == 0, r.stderr
    mask = lambda t: re.sub(r"(rules/[\w/]+\.(?:dl|facts)):\d+", r"\1:N", t).rstrip("\n")
    assert mask(shown) == mask(r.stdout)
    intro = "(`tilemem why docs/stationary_lhs.pto rhs_n__tile --backend 910B`):\n\n```\n"
    shown = readme.split(intro, 1)[1].split("\n```", 1)[0]
    r = run("why", "docs/stationary_lhs.pto", "rhs_n__tile", "--backend", "910B", cwd=repo)
    assert mask(shown) == mask(r.stdout)


def test_rewritten_statements_are_shown_at_the_input_line_and_marked_inserted():
    """Phase 4 runs on the rewritten program: a fact about a move the pass inserted is
    shown at the line of the user's input it was inserted before, with the move's own
    text marked as inserted (not the text the input has on that line)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "stationary_lhs.pto").read_text()
    sol = tilemem.solve(text, backend="910B", path="s.pto")
    (tree,) = sol.explain_residency("lhs__ssa_v0_mat_Left")
    consumer = line_no(text, "c_n__tile: pl.Tile")
    about_move = [n for n in tree.walk() if n.kind == "input" and n.source
                  and "kernel:lhs__ssa_v0_mat_Left" in n.row]
    # a use of the move's result names the statement it is used in (the consumer)
    used = [n for n in about_move if n.pred == "use"]
    assert used and all(n.source["text"].startswith("c_n__tile = pl.tile.matmul(") for n in used)
    about_move = [n for n in about_move if n.pred != "use"]
    assert about_move
    for n in about_move:
        assert n.source["line"] == consumer, n.fact
        assert n.source["text"].startswith("lhs__ssa_v0_mat_Left = pl.tile.move("), n.fact
        assert n.source["text"].endswith("(inserted by the pass)"), n.fact
    # a statement of the user keeps its own line, without the mark
    load = [n for n in tree.walk() if n.kind == "input" and n.pred == "defines"
            and n.row[1] == "kernel:lhs__ssa_v0_mat"]
    assert load and load[0].source["line"] == line_no(text, "lhs__ssa_v0_mat: pl.Tile")
    assert "inserted" not in load[0].source["text"]
    sol.close()
