"""The rule files are the product's heart: they load, stratify, and every rule says
what it means (a comment directly above it, or above its predicate's .decl)."""
from tilemem.datalog import RuleSet


def test_every_rule_is_documented():
    rules = RuleSet.from_package()
    undocumented = [f"{r.file}:{r.line}: {r.head.pred}" for r in rules.rules
                    if not (r.doc or "").strip() and not (rules.predicates[r.head.pred].doc or "").strip()]
    assert undocumented == []


def test_each_phase_has_its_rule_file():
    files = {str(r.file).rsplit("/", 1)[-1] for r in RuleSet.from_package().rules}
    assert {"p0_demand.dl", "p1_resolve.dl", "p2_moves.dl", "p3_rewrite.dl", "verify.dl", "p4_residency.dl",
            "program.dl"} <= files


def test_op_table_covers_every_registered_op():
    rules = RuleSet.from_package()
    ops = {f.head.args[0].value for f in rules.facts if f.head.pred == "op"}
    assert len(ops) == 312 and {"tile.matmul", "tile.load", "tile.move"} <= ops
