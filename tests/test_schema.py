"""The one input schema: typed .decl columns (Soufflé's number/symbol), .input relations
read from Soufflé .facts files (the op table), and the facts of real programs against
the declared types."""
from __future__ import annotations

from pathlib import Path

import pytest

from tilemem.datalog import Database, RuleError, RuleSet, parse_program
from tilemem.facts.extract import extract
from tilemem.residency.facts import extract_program
from tilemem.facts.schema import file_phase, phase4_relations, program_relations
from tilemem.frontend.parser import parse

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REPO = Path(__file__).resolve().parents[1]


def errors_of(*sources) -> list[str]:
    with pytest.raises(RuleError) as exc:
        RuleSet.load(list(sources))
    return [d.message for d in exc.value.diagnostics]


def test_typed_declarations_parse_and_print():
    pf = parse_program('.decl assign(pos: number, var: symbol)\n.decl any(x, y)\n'
                       '.input op(IO="file", filename="ops/op.facts")\n')
    assign, untyped, inp = pf.items
    assert assign.types == ("number", "symbol") and untyped.types == (None, None)
    assert str(assign) == ".decl assign(pos: number, var: symbol)"
    assert inp.param("filename") == "ops/op.facts" and inp.param("IO") == "file"
    assert str(inp) == '.input op(IO="file", filename="ops/op.facts")'


@pytest.mark.parametrize("text, message", [
    ('.decl a(x: number)\n.input a\nb(X) :- a(X), X = "s".', "compares a number with a symbol"),
    ('.decl a(x: number)\n.input a\n.decl b(y: symbol)\nb(X) :- a(X).', "variable X is a symbol (column y of b) and a number"),
    ('.decl a(x: number)\na("one").', '"one" is a symbol, but column x of a is a number'),
    ('.decl a(x: number)\n.input a\nb(S) :- a(_), S = sum X : { a(X) }, S = "x".', "and a number (the sum"),
    ('.decl a(x: text)\n.input a', "unknown type 'text'"),
    ('.decl a(x: number)\n.input a(IO="file")', 'needs a filename'),
    ('.decl a(x: number)\n.input a(IO="sqlite", filename="a.facts")', "unsupported parameter"),
])
def test_type_errors_are_refused(text, message):
    assert any(message in m for m in errors_of(text))


def test_an_input_is_read_from_a_souffle_facts_file(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "edge.facts").write_text("1\ta\n2\tb c\n")
    rules = tmp_path / "r.dl"
    rules.write_text('.decl edge(n: number, s: symbol)\n.input edge(IO="file", filename="data/edge.facts")\n'
                     ".decl big(n: number)\nbig(N) :- edge(N, _), N > 1.\n")
    rs = RuleSet.load(str(rules))
    info = rs.predicates["edge"]
    assert info.is_input and not info.from_program and info.fact_file == "data/edge.facts"
    for engine in ("pydatalog", "clingo"):
        with Database(rs, engine=engine) as db:
            assert db.relation("edge") == [(1, "a"), (2, "b c")]
            assert db.relation("big") == [(2,)]
    # a changed .facts file is a different rule set
    (tmp_path / "data" / "edge.facts").write_text("3\tz\n")
    RuleSet.clear_cache()
    with Database(RuleSet.load(str(rules))) as db:
        assert db.relation("edge") == [(3, "z")]


def test_bad_facts_files_are_located(tmp_path):
    rules = tmp_path / "r.dl"
    rules.write_text('.decl e(n: number, s: symbol)\n.input e(IO="file", filename="e.facts")\n')
    (tmp_path / "e.facts").write_text("1\ta\nx\tb\n3\n")
    with pytest.raises(RuleError) as exc:
        RuleSet.load(str(rules))
    got = [(Path(d.file).name, d.line, d.message) for d in exc.value.diagnostics]
    assert ("e.facts", 2, "e: 'x' is not a number") in got
    assert ("e.facts", 3, "e: a row has 1 value, the relation has 2") in got
    (tmp_path / "e.facts").unlink()
    assert any("cannot read 'e.facts'" in m for m in errors_of(str(rules)))
    rules.write_text('.decl e(n, s)\n.input e(IO="file", filename="e.facts")\n')
    assert any("must give every column a type" in m for m in errors_of(str(rules)))


def test_the_op_table_is_data():
    rules = RuleSet.from_package()
    ops_dl = (REPO / "rules" / "ops.dl").read_text()
    rows_in_text = [l for l in ops_dl.splitlines() if l.startswith("op")]
    assert rows_in_text == []                             # no rows in the rule file
    info = rules.predicates["op_input"]
    assert info.fact_file == "ops/op_input.facts" and not info.rules
    rows = {tuple(t.value for t in f.head.args) for f in info.facts}
    assert ("tile.matmul", 0, 0, "Left") in rows
    assert all(f.loc.file.endswith("op_input.facts") for f in info.facts)


def test_schema_is_one_rule_file_of_inputs():
    rels = program_relations()
    rules = RuleSet.from_package()
    assert set(rels) == {n for n, i in rules.predicates.items() if i.from_program}
    assert list(rels)[:3] == ["incore", "func_kind", "stmt"]
    assert rels["assign"] == ("pos", "var")
    p4 = phase4_relations()
    assert "loop_bounds" in p4 and "assign" not in p4
    # one schema file declares every input (the op table's are read from .facts files)
    assert {rules.decls[n].loc.file.rsplit("/", 1)[-1] for n in rels} == {"schema.dl"}
    # the residency inputs are read by phase-4 rules only
    readers = {}
    for r in rules.rules:
        for a in r.body_atoms():
            readers.setdefault(a.pred, set()).add(file_phase(r.loc.file))
    assert all(readers[n] == {5} for n in p4)
    assert file_phase("schema.dl") == 0 and file_phase("rules/p1_resolve.dl") == 2


def _corpus_programs(limit: int):
    root = SHARED / "corpus"
    if not root.is_dir():
        pytest.skip("../shared/corpus is absent")
    return sorted(root.glob("*/before.pto"))[:limit]


def test_extracted_facts_have_the_declared_types():
    rules = RuleSet.from_package()
    checked = 0
    for path in _corpus_programs(40):
        prog = parse(path.read_text(), str(path))
        for facts in (extract(prog, "Ascend910B"), extract_program(prog, "Ascend910B")):
            for pred, rows in facts.items():
                types = rules.decls[pred].types
                assert None not in types, pred
                for row in rows:
                    assert len(row) == len(types), pred
                    for v, t in zip(row, types):
                        assert (type(v) is int) == (t == "number"), (path.name, pred, row)
                        checked += 1
    assert checked > 1000


_TWO_OF_A_NAME = """\
# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        return a

    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        return a
"""


def test_relations_made_distinct_have_no_duplicate(monkeypatch):
    """The extractors make the rows of ``_DISTINCT`` distinct by construction (they skip
    the de-duplication the other relations get): check it before that step, on corpus
    programs and on two functions of one name."""
    from tilemem.facts import extract as X
    made = []
    real = X.distinct_rows

    def check(facts):
        made.append({pred: list(rows) for pred, rows in facts.rows.items()})
        real(facts)

    monkeypatch.setattr(X, "distinct_rows", check)
    programs = [parse(_TWO_OF_A_NAME, "two.pto")]
    programs += [parse(p.read_text(), str(p)) for p in sorted((REPO / "examples").glob("*.pto"))]
    if (SHARED / "corpus").is_dir():
        programs += [parse(p.read_text(), str(p)) for p in _corpus_programs(40)]
    for prog in programs:
        extract(prog, "Ascend910B")
        extract_program(prog, "Ascend910B")
    assert len(made) == 2 * len(programs)
    for rows in made:
        for pred in X._DISTINCT:
            got = rows.get(pred, [])
            assert len(set(got)) == len(got), pred
