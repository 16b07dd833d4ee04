"""A solve loads the op table's rows of the ops its program names, and nothing changes.

tilemem.infer.solver.table_rows_named keeps, of every relation of the rule files whose
first column is ``op``, the rows of the ops the program's facts name.  That is sound
only while every rule reads the table through an op of the program: checked here on
the rules themselves, and by solving with and without the restriction.
"""
import json
from pathlib import Path

import pytest

import tilemem
from tilemem.datalog.syntax import Aggregate, Atom, Negation
from tilemem.infer import solver
from tilemem.infer.solver import RESULT_RELATIONS, load_rules, op_table, table_rows_named
from tilemem.residency.solve import RESIDENCY_RESULTS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.pto"))
CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_CASES = sorted(p.parent for p in CORPUS.glob("*/before.pto")) if CORPUS.is_dir() else []


def _op_column(rules, pred):
    columns = rules.predicates[pred].columns or ()
    return columns.index("op") if "op" in columns else None


def _table_and_table_only(rules):
    """The op table's relations, and the derived relations every rule of which reads
    only them (what the restriction restricts too)."""
    preds = rules.predicates
    table = set(op_table(rules))
    only = set()
    while True:
        more = {p for p, info in preds.items()
                if info.is_derived and p not in only and info.rules
                and all(a.pred in table | only for r in info.rules for lit in r.body for a in lit.atoms())}
        if not more:
            return table, only
        only |= more


def _positive_atoms(body):
    for lit in body:
        if isinstance(lit, Atom):
            yield lit
        elif isinstance(lit, Aggregate):
            yield from _positive_atoms(lit.body)


def test_every_rule_reads_the_op_table_through_an_op_of_the_program():
    rules = load_rules()
    table, only = _table_and_table_only(rules)
    assert {"op", "op_input", "op_constrained"} <= table
    checked = 0
    for rule in rules.rules:
        if not rule.body or rule.head.pred in only:
            continue
        bound = {v.name for a in _positive_atoms(rule.body) if a.pred not in table | only
                 for v in a.variables()}
        for lit in rule.body:
            for atom in lit.atoms():
                if atom.pred not in table | only:
                    continue
                i = _op_column(rules, atom.pred)
                assert i is not None, f"{rule.loc}: {atom.pred} has no op column"
                op = atom.args[i]
                assert getattr(op, "name", None) in bound, \
                    f"{rule.loc}: {rule.text or rule} reads {atom.pred} for ops no program relation binds"
                checked += 1
    assert checked > 20


def test_no_relation_a_solve_reads_is_of_the_table_alone():
    rules = load_rules()
    table, only = _table_and_table_only(rules)
    assert not (set(RESULT_RELATIONS) | set(RESIDENCY_RESULTS)) & (table | only)


def test_a_solve_loads_the_rows_of_the_ops_it_names():
    rules = load_rules()
    program = tilemem.parse(EXAMPLES[0].read_text(), path=str(EXAMPLES[0]))
    facts = solver.extract(program)
    called = {row[1] for row in facts.rows["call"]}
    rows = table_rows_named(rules, facts)
    assert set(rows["op_input"]) == {r for r in rules.fact_rows["op_input"] if r[0] in called}
    assert 0 < len(rows["op"]) < len(rules.fact_rows["op"]) // 10
    assert {r[0] for r in rows["op"]} == called & {r[0] for r in rules.fact_rows["op"]}
    assert table_rows_named(rules, facts) is rows        # (kept for the next solve)


def _solved(text, backend, monkeypatch, every_row, engine=None):
    with monkeypatch.context() as mp:
        if every_row:
            mp.setattr(solver, "table_rows_named", lambda rules, facts: None)
        sol = tilemem.solve(text, backend=backend, engine=engine)
    return sol.text, repr(sol.residency), repr(sol.warnings), repr(sol.moves)


@pytest.mark.parametrize("engine", ["clingo", "pydatalog"])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_rows_named_change_no_solution(example, engine, monkeypatch):
    text = example.read_text()
    for backend in (None, "910B"):
        assert _solved(text, backend, monkeypatch, False, engine) == \
            _solved(text, backend, monkeypatch, True, engine)


@pytest.mark.skipif(not CORPUS_CASES, reason="../shared/corpus not found next to the checkout")
def test_the_rows_named_change_nothing_on_the_corpus(monkeypatch):
    for case in CORPUS_CASES:
        backend = json.loads((case / "meta.json").read_text()).get("backend")
        text = (case / "before.pto").read_text()
        assert _solved(text, backend, monkeypatch, False) == _solved(text, backend, monkeypatch, True), \
            case.name
