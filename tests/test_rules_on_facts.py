"""Each phase's rules on facts alone, as Soufflé's own tests are written.

A case is a folder ``tests/data/rules/<phase>/<case>/``: ``input/<relation>.facts`` holds
the program facts it is given (tab-separated, one row a line, Soufflé's format; every
input relation without a file is empty; the op table is the shipped one), and
``output/<relation>.facts`` the rows the rules must derive for that relation -- exactly
these, no more.  ``about.txt`` says in a sentence what the case pins down.  No program
text and no extractor are involved: a case fails only when the rules derive something
else from the same facts.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tilemem.datalog import Database, RuleSet
from tilemem.facts.schema import file_phase, program_relations

CASES = Path(__file__).resolve().parent / "data" / "rules"
ENGINES = ("clingo", "pydatalog")
PHASES = {"p0": 1, "p1": 2, "p2": 3, "p3": 4, "p4": 5}      # folder -> schema.file_phase
_INT = re.compile(r"-?\d+")


def _cases():
    return sorted(p for p in CASES.glob("*/*") if p.is_dir())


def read_facts(path: Path, types) -> list[tuple]:
    """The rows of a .facts file, each value typed by its column (an untyped column's
    integers are numbers, as the extractor writes statement and call-site ids)."""
    rows = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line:
            continue
        values = line.split("\t")
        assert len(values) == len(types), f"{path.name}: {line!r} has {len(values)} columns"
        rows.append(tuple(int(v) if t == "number" or (t is None and _INT.fullmatch(v)) else v
                          for v, t in zip(values, types)))
    return rows


def _types(rules: RuleSet, relation: str) -> tuple:
    info = rules.predicates[relation]
    decl = rules.decls.get(relation)
    return tuple(decl.column_type(i) if decl else None for i in range(info.arity))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_phase_derives_the_expected_rows(case, engine):
    rules = RuleSet.from_package()
    inputs = program_relations()
    given = sorted((case / "input").glob("*.facts"))
    wanted = sorted((case / "output").glob("*.facts"))
    assert wanted and (case / "about.txt").is_file(), f"{case}: an output and an about.txt"
    with Database(rules, engine=engine) as db:
        for f in given:
            assert f.stem in inputs, f"{f.name}: not an input relation of rules/schema.dl"
            db.add_facts(f.stem, read_facts(f, _types(rules, f.stem)))
        for f in wanted:
            defined_in = {file_phase(r.loc.file) for r in rules.rules_for(f.stem)}
            assert PHASES[case.parent.name] in defined_in, \
                f"{f.name}: not derived by a rule of phase {case.parent.name}"
            expected = sorted(read_facts(f, _types(rules, f.stem)), key=repr)
            assert sorted(db.relation(f.stem), key=repr) == expected, f.stem


def test_every_phase_has_cases():
    assert {p.parent.name for p in _cases()} == set(PHASES)
