"""``.key``: the functional dependencies of the rules' answers, checked after every evaluation.

The shipped rules derive one space per tile var, one move per consumer operand, ...
(``.key`` lines beside their ``.decl``).  A rule file that derives a second row for a key
(issue #33: ``space(V, "Left") :- space(V, "Vec").`` printed the load with ``pl.Mem.Vec``
in its annotation and ``target_memory=pl.Mem.Left`` in its kwarg) is a located error
naming the rules that derived each row, on both engines, never a mixed answer.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import run, run_in_process

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "matmul_bias_relu.pto"
ENGINES = ["clingo", "pydatalog"]


@pytest.fixture(params=ENGINES)
def engine(request):
    from tilemem.datalog import EngineUnavailable, engine_class
    try:
        engine_class(request.param)
    except EngineUnavailable:
        pytest.skip(f"{request.param} is not installed")
    return request.param


def test_shipped_rules_declare_the_keys_the_emitter_relies_on():
    from tilemem.datalog import RuleSet
    preds = RuleSet.from_package().predicates
    assert preds["space"].key == ("var",)
    assert preds["move_use"].key == ("pos", "slot")
    assert preds["retarget"].key == ("pos",)
    assert preds["name_hint"].key == ("var",)


def test_user_rule_deriving_a_second_space_is_a_located_error(tmp_path, capsys, engine):
    rules = tmp_path / "left.dl"
    rules.write_text('// every Vec tile is also Left\nspace(V, "Left") :- space(V, "Vec").\n')
    status, out, err = run_in_process(capsys, "solve", EXAMPLE, "--rules", rules,
                                      "--engine", engine)
    assert status == 2, err
    assert out == ""                                    # never a mixed answer
    first = err.splitlines()[0]
    assert first.startswith(f"{EXAMPLE}:11:9: error: ")     # the tile's definition
    assert "'space'" in first and '"kernel:bias_tile"' in first
    assert f"{rules}:2" in first                        # the user's rule, file:line
    assert "p1_resolve.dl:" in first                    # ... and the shipped one
    assert ".key space(var)" in first


def test_user_fact_that_contradicts_a_derived_row_is_named(tmp_path, capsys):
    rules = tmp_path / "fact.dl"
    rules.write_text('space("kernel:bias_tile", "Mat").\n')
    status, out, err = run_in_process(capsys, "solve", EXAMPLE, "--rules", rules)
    assert status == 2, err
    assert out == "" and f"{rules}:1" in err.splitlines()[0]


def test_key_conflict_in_a_batch_is_reported_per_file(tmp_path):
    rules = tmp_path / "left.dl"
    rules.write_text('space(V, "Left") :- space(V, "Vec").\n')
    out = tmp_path / "out"
    a, b = tmp_path / "a.pto", tmp_path / "b.pto"
    a.write_text(EXAMPLE.read_text())
    b.write_text(EXAMPLE.read_text())
    r = run("solve", "-q", "-j", "2", "--rules", rules, a, b, "--out-dir", out)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2 and all("two rows of 'space'" in x for x in lines), r.stderr
    assert not out.exists() or not list(out.iterdir())


def test_a_user_rule_that_agrees_with_the_key_is_fine(tmp_path, capsys):
    rules = tmp_path / "same.dl"
    rules.write_text('space(V, S) :- space(V, S), S = "Vec".\n')       # derives nothing new
    status, out, err = run_in_process(capsys, "solve", EXAMPLE, "--rules", rules)
    assert status == 0, err
    assert out == run_in_process(capsys, "solve", EXAMPLE)[1]


def test_phase4_results_declare_the_keys_their_readers_rely_on():
    """The hoisting moves each hoisted statement out of one loop; the verdicts word each
    refusal once and read one capacity per space: a second row would be a mixed answer."""
    from tilemem.datalog import RuleSet
    preds = RuleSet.from_package().predicates
    assert preds["hoist"].key == ("pos",)
    assert preds["residency_hoisted"].key == ("pos",)
    assert preds["residency_refusal"].key == ("pos", "code", "name", "place")
    assert preds["residency_refusal_words"].key == ("pos", "code", "name", "place")
    assert preds["residency_source"].key == ("pos",)
    assert preds["total_footprint"].key == ("func", "space")
    assert preds["backend_capacity"].key == ("space",)


def test_user_rule_hoisting_out_of_a_second_loop_is_a_located_error(tmp_path, engine):
    from test_residency import program
    import tilemem
    from tilemem.errors import TilememError
    text = program()
    assert any(d.hoisted for d in tilemem.solve(text, backend="910B").residency)
    rules = tmp_path / "twice.dl"
    rules.write_text("// also out of the statement itself\nhoist(P, P) :- hoist(P, _).\n")
    with pytest.raises(TilememError) as e:
        tilemem.solve(text, backend="910B", rules=[str(rules)], engine=engine)
    msg = e.value.format()
    assert e.value.line is not None                      # the hoisted statement
    assert "two rows of 'hoist'" in msg and ".key hoist(pos)" in msg, msg
    assert f"{rules}:2" in msg and "rules/p4_residency/residency.dl:" in msg, msg


def test_a_second_backend_is_a_key_error_not_a_capacity_picked_at_random(tmp_path, capsys):
    rules = tmp_path / "backend.dl"
    rules.write_text('backend("Ascend950").\n')
    status, out, err = run_in_process(capsys, "solve", EXAMPLE, "--backend", "910B",
                                      "--rules", rules)
    assert status == 2 and out == "", err
    assert "two rows of 'backend_capacity'" in err and ".key backend_capacity(space)" in err, err


# ----------------------------------------------------------------------------- the directive


def _rule_error(text: str) -> str:
    from tilemem.datalog import RuleSet
    from tilemem.datalog.errors import RuleError
    with pytest.raises(RuleError) as e:
        RuleSet.load([text])
    return str(e.value)


@pytest.mark.parametrize("text, where, needle", [
    (".key p(a)\np(1, 2).\n", ":1:1:", "has no .decl"),
    (".decl p(a: number, b: number)\n.key p(c)\np(1, 2).\n", ":2:1:", "no column 'c'"),
    (".decl p(a: number, b: number)\n.key p(a, b)\np(1, 2).\n", ":2:1:", "every column"),
    (".decl p(a: number, b: number)\n.key p(a)\n.key p(b)\np(1, 2).\n", ":3:1:",
     "has a .key already"),
    (".decl p(a: number, b: number)\n.key p(a, a)\np(1, 2).\n", ":2:1:", "named twice"),
])
def test_bad_key_directives_are_located_errors(text, where, needle):
    msg = _rule_error(text)
    assert len(msg.splitlines()) == 1 and where in msg and needle in msg, msg


def test_key_conflicts_finds_the_first_conflict_of_each_keyed_relation():
    from tilemem.datalog import RuleSet
    from tilemem.datalog.keys import key_conflicts
    rs = RuleSet.load([".decl p(a: number, b: symbol)\n.key p(a)\n"
                       ".decl q(a: number, b: symbol)\n"
                       "p(1, \"x\").\nq(1, \"x\").\n"])
    assert key_conflicts(rs, {"p": [(1, "x"), (2, "x"), (1, "x")]}) == []
    got = key_conflicts(rs, {"p": [(1, "x"), (2, "y"), (1, "z")], "q": [(1, "x"), (1, "y")]})
    assert [(c.relation, c.rows) for c in got] == [("p", ((1, "x"), (1, "z")))]
    assert got[0].key_values() == {"a": 1}


def test_key_survives_the_disk_cache(tmp_path, monkeypatch):
    """A solve reads a rule set's JSON program: the key is in it."""
    import tilemem.datalog.program as program
    from tilemem.datalog import RuleSet
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEMEM_NO_CACHE", raising=False)
    text = ".decl p(a: number, b: symbol)\n.key p(a)\np(1, \"x\").\n"
    src = tmp_path / "k.dl"
    src.write_text(text)
    assert RuleSet.load([str(src)]).predicates["p"].key == ("a",)
    program._rule_sets.clear()
    again = RuleSet.load([str(src)])
    assert again.predicates["p"].key == ("a",)
