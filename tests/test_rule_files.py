"""The rule files are the product's heart: they load, stratify, and every rule says
what it means (a comment directly above it, or above its predicate's .decl)."""
from pathlib import Path

import pytest

import tilemem
from tilemem.datalog import RuleSet


def test_every_rule_is_documented():
    rules = RuleSet.from_package()
    undocumented = [f"{r.file}:{r.line}: {r.head.pred}" for r in rules.rules
                    if not (r.doc or "").strip() and not (rules.predicates[r.head.pred].doc or "").strip()]
    assert undocumented == []


def test_each_phase_has_its_rule_file_or_folder():
    from tilemem.explain.sourcemap import rule_file_name
    files = {rule_file_name(r.file) for r in RuleSet.from_package().rules}
    assert {"rules/p0_demand.dl", "rules/p1_resolve.dl", "rules/p2_moves.dl", "rules/p3_rewrite.dl",
            "rules/verify.dl", "rules/program.dl"} <= files
    # phase 4 is one folder: every rule file of it there, none beside it
    assert "rules/p4_residency/residency.dl" in files
    assert not [f for f in files if f.startswith("rules/p4") and not f.startswith("rules/p4_residency/")]


def test_op_table_covers_every_registered_op():
    rules = RuleSet.from_package()
    ops = {f.head.args[0].value for f in rules.facts if f.head.pred == "op"}
    assert len(ops) == 312 and {"tile.matmul", "tile.load", "tile.move"} <= ops


@pytest.mark.parametrize("engine", ["clingo", "pydatalog"])
def test_user_space_row_that_names_no_var_is_not_a_tile(engine):
    """A user rule file may add rows to ``space``; one that names no program var
    (``space("tile.my_add", "TileOp")``, an op table line with the wrong relation) is no
    tile of any function: it crashed ``Solution.spaces`` (rule-file long run, seed 90900000)."""
    text = (Path(__file__).resolve().parents[1] / "examples" / "matmul_bias_relu.pto").read_text()
    rules = 'space("tile.my_add", "TileOp").\n'
    sol = tilemem.solve(text, path="k.pto", rules=[("mine.dl", rules)], engine=engine)
    assert set(sol.spaces) == {"kernel"}
    assert sol.spaces["kernel"]["c_tile"] == "Acc"


def test_rule_comments_cite_files_that_exist():
    """A rule file's comments name files of this repository (tilemem/..., docs/...,
    tools/...) that exist, and every section of docs/semantics.md they cite."""
    import re
    root = Path(__file__).resolve().parents[1]
    docs = (root / "docs" / "semantics.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\.", docs, re.M)) | set(re.findall(r"\((§\d+\.\d+)\)", docs))
    missing = []
    for f in sorted((root / "rules").rglob("*.dl")):       # (a phase folder's too)
        text = f.read_text(encoding="utf-8")
        for path in re.findall(r"\b((?:tilemem|docs|tools|rules)/[\w/]+\.\w+)", text):
            if not (root / path).exists():
                missing.append(f"{f.name}: {path}")
        for sec in re.findall(r"docs/semantics\.md\s*(?://\s*)?§([\d.]+)", text):
            if sec not in sections and f"§{sec}" not in sections:
                missing.append(f"{f.name}: docs/semantics.md §{sec}")
        missing += [f"{f.name}: cites {m}" for m in re.findall(r"\b(?:SEMANTICS|backend|printer)\.md\b", text)]
    assert missing == []
