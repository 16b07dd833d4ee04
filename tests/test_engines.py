"""The Datalog engines agree: clingo (the default) derives exactly what pyDatalog derives.

* rule-language features on small rule sets, evaluated by both engines;
* every golden corpus case, both databases of a solve (phases 0-3 over the InCore
  facts, phase 4 over the rewritten program), every relation the solver reads;
* the engine choice through the library and the CLI;
* the on-disk cache of validated rule sets.
"""
from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from tilemem.datalog import (
    Database, EngineUnavailable, EvaluationError, RuleSet, engine_class,
)

clingo = pytest.importorskip("clingo", reason="the clingo engine needs 'pip install clingo'")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
ENGINES = ("pydatalog", "clingo")


def both(rules_text: str, facts: dict, relations=None) -> dict:
    """{engine: {relation: rows}} for every derived relation (or the given ones)."""
    rs = RuleSet.load(rules_text)
    out = {}
    for engine in ENGINES:
        with Database(rs, engine=engine) as db:
            for rel, rows in facts.items():
                db.add_facts(rel, rows)
            names = relations or [p for p, info in rs.predicates.items() if info.is_derived]
            out[engine] = {n: db.relation(n) for n in names}
    return out


def test_features_agree():
    rules = r'''
.decl e(a, b)
.input e
.decl lbl(x, s)
.input lbl
// left and right recursion
reach(X, Y) :- e(X, Y).
reach(X, Z) :- reach(X, Y), e(Y, Z).
back(X, Z) :- e(X, Y), back(Y, Z).
back(X, Y) :- e(X, Y).
// negation with an anonymous variable, on a lower stratum
sink(X) :- e(_, X), !e(X, _).
// comparisons across types: every integer before every string
small(X) :- lbl(X, S), S < "m".
mixed(X, S) :- lbl(X, S), X < S.
// arithmetic, binding equality both ways, comparisons between bound values
succ(X, Y) :- e(X, _), Y = X + 1.
pred(X, Y) :- e(X, _), Y = X - 1, Y >= 0.
same(X, Y) :- lbl(X, S), Y = S.
same2(X, Y) :- lbl(X, S), S = Y.
// rule-file facts of a derived predicate, strings with escapes
tag("a\"b\\c\nd\te").
tag(S) :- lbl(_, S), S != "".
// zero arity
any() :- e(_, _).
none() :- e(X, X).
'''
    facts = {"e": [(1, 2), (2, 3), (3, 1), (3, 4), (5, 6)],
             "lbl": [(1, "alpha"), (2, "zeta"), (3, ""), (4, "m"), (5, "mu\u00e9\U0001F600"),
                     (6, "quote\"back\\slash")]}
    got = both(rules, facts)
    assert got["clingo"] == got["pydatalog"]
    ref = got["pydatalog"]
    assert ref["sink"] == [(4,), (6,)]
    assert ref["any"] == [()] and ref["none"] == []
    assert (1, 1) in ref["reach"] and (1, 1) in ref["back"]
    assert ("a\"b\\c\nd\te",) in ref["tag"]


def test_clingo_fast_paths_agree_with_its_python_api(monkeypatch):
    """The control, fact loader and relation reader that use clingo's C API directly
    (without the clingo package) are in use with the installed clingo, and give what
    clingo's public Python API gives."""
    from tilemem.datalog import clingo_c, clingo_engine as ce
    assert ce._load_rows is not ce._public_loader and ce._read_rows is not ce._public_reader
    assert ce._Control is clingo_c.Control
    rs = RuleSet.load('.decl e(a, b)\n.input e\np(X, Y) :- e(X, Y), X != "z".\n'
                      'q(N) :- e(N, _), N < 0.\n')
    rows = [(1, "a"), (-2, "b\u00e9\U0001F600"), ("z", 3), (4, 'q"\\\n'), (-2147483648, "")]
    got = {}
    for how in ("fast", "public"):
        if how == "public":
            monkeypatch.setattr(ce, "_load_rows", ce._public_loader)
            monkeypatch.setattr(ce, "_read_rows", ce._public_reader)
            monkeypatch.setattr(ce, "_Control", ce._PublicControl)
        with Database(rs, engine="clingo") as db:
            db.add_facts("e", rows)
            got[how] = db.relations(["e", "p", "q"])
    assert got["fast"] == got["public"]
    assert got["fast"]["q"] == [(-2147483648,), (-2,)]


def test_query_patterns_agree():
    rs = RuleSet.load('.decl e(a, b)\n.input e\np(X, Y) :- e(X, Y).\n')
    answers = {}
    for engine in ENGINES:
        with Database(rs, engine=engine) as db:
            db.add_facts("e", [(1, 1), (1, 2), (2, "x"), ("y", "y")])
            answers[engine] = [db.query(q) for q in
                               ("p(X, Y)", "p(X, X)", "p(1, Y)", 'p(_, "x")', "p(2, 3)")]
    assert answers["clingo"] == answers["pydatalog"]
    assert answers["clingo"][1].rows == [(1,), ("y",)]


@pytest.mark.parametrize("engine", ENGINES)
def test_facts_in_several_calls_are_kept_apart_from_the_callers_lists(engine):
    """Engines keep the row lists they are given until they load them: a relation that
    gets rows again, or a caller that reuses its list, must change nothing loaded."""
    rs = RuleSet.load('.decl e(a, b)\n.input e\np(X) :- e(X, _).\nq(X) :- e(_, X).\n')
    with Database(rs, engine=engine) as db:
        rows = [(1, "a"), (2, "b"), (1, "a")]
        assert db.add_facts("e", rows) == 2
        rows.append((9, "z"))                        # the caller's list, changed afterwards
        assert db.add_facts("e", [(2, "b"), (3, "c")]) == 1
        assert db.add_facts("e", [(3, "c"), (4, "a")]) == 1
        assert db.relation("p") == [(1,), (2,), (3,), (4,)]
        assert db.relation("q") == [("a",), ("b",), ("c",)]
        assert db.relation("e") == [(1, "a"), (2, "b"), (3, "c"), (4, "a")]
        assert db.relations(["q", "p"]) == {"q": db.relation("q"), "p": db.relation("p")}
        with pytest.raises(KeyError):
            db.relations(["p", "nope"])


def test_adding_facts_after_evaluation_rebuilds():
    rs = RuleSet.load('.decl e(a)\n.input e\np(X) :- e(X).\n')
    with Database(rs, engine="clingo") as db:
        db.add_facts("e", [(1,)])
        assert db.relation("p") == [(1,)]
        db.add_facts("e", [(2,)])
        assert db.relation("p") == [(1,), (2,)]


def test_clingo_refuses_what_it_cannot_represent():
    rs = RuleSet.load('.decl e(a)\n.input e\np(X) :- e(X).\n')
    with Database(rs, engine="clingo") as db:
        db.add_facts("e", [(2**40,)])
        with pytest.raises(EvaluationError, match="32-bit"):
            db.relation("p")


def test_unknown_engine():
    with pytest.raises(EngineUnavailable, match="unknown Datalog engine"):
        engine_class("souffle")
    rs = RuleSet.load("p(1).")
    with pytest.raises(EngineUnavailable):
        Database(rs, engine="nope")


# ----------------------------------------------------------------------------- corpus


def _corpus_cases():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "before.pto").is_file())


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus absent")
def test_corpus_both_databases_agree():
    import tilemem
    from tilemem.infer import solver
    from tilemem.infer.emitter import Solution3, emit
    from tilemem.residency import solve as residency

    cases = _corpus_cases()
    assert cases
    for case in cases:
        meta = json.loads((case / "meta.json").read_text())
        program = tilemem.parse((case / "before.pto").read_text(), str(case / "before.pto"))
        backend = meta.get("backend")
        results = {}
        for engine in ENGINES:
            stmts: dict = {}
            derived, _ = solver.derive(program, backend, engine=engine, stmts=stmts)
            got = {("0-3", n): derived.rel(n) for n in solver.RESULT_RELATIONS}
            if backend:
                sol3 = Solution3.from_relations(derived.rel)
                out, _ = emit(program, stmts, sol3)
                res, _ = residency.derive_residency(out, backend, engine=engine)
                got.update({("4", n): res.rel(n) for n in residency.RESIDENCY_RESULTS})
            results[engine] = got
        assert results["clingo"] == results["pydatalog"], case.name


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus absent")
def test_solve_and_cli_choose_the_engine(tmp_path, capsys, monkeypatch):
    import tilemem
    from tilemem.cli import main
    from tilemem.datalog import DEFAULT_ENGINE
    from tilemem.datalog import database

    assert DEFAULT_ENGINE == "clingo"
    case = next(c for c in _corpus_cases()
                if json.loads((c / "meta.json").read_text()).get("backend"))
    backend = json.loads((case / "meta.json").read_text())["backend"]
    monkeypatch.delenv("TILEMEM_ENGINE", raising=False)
    used = []
    real = database.engine_class
    monkeypatch.setattr(database, "engine_class", lambda e: used.append(e) or real(e))
    default = tilemem.solve(case / "before.pto", backend=backend)
    assert set(used) == {"clingo"}
    used.clear()
    slow = tilemem.solve(case / "before.pto", backend=backend, engine="pydatalog")
    assert set(used) == {"pydatalog"}
    assert slow.text == default.text and slow.moves == default.moves
    assert slow.spaces == default.spaces
    out = tmp_path / "out.pto"
    used.clear()
    assert main(["solve", str(case / "before.pto"), "--backend", backend, "--engine", "pydatalog",
                 "-o", str(out)]) == 0
    assert set(used) == {"pydatalog"}
    assert out.read_text().rstrip("\n") == default.text.rstrip("\n")


# ----------------------------------------------------------------------------- rule cache


def test_rule_sets_are_cached_on_disk(tmp_path, monkeypatch):
    from tilemem.datalog import program

    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEMEM_NO_CACHE", raising=False)
    src = tmp_path / "r.dl"
    src.write_text("// doc\np(X) :- q(X).\nq(1).\n")
    RuleSet.clear_cache()
    first = RuleSet.load(src)
    files = list((tmp_path / "cache").glob("rules-*.pickle"))
    assert len(files) == 1
    RuleSet.clear_cache()
    built = []
    monkeypatch.setattr(program.RuleSet, "__init__",
                        lambda self, parsed: built.append(1) or (_ for _ in ()).throw(AssertionError))
    second = RuleSet.load(src)                  # from disk: the constructor is not called
    assert not built
    assert second is not first and second.rules[0].doc == "doc"
    assert second.strata == first.strata and second.edges == first.edges
    with Database(second) as db:
        assert db.relation("p") == [(1,)]
    monkeypatch.undo()
    RuleSet.clear_cache()


def test_changed_text_misses_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path))
    RuleSet.clear_cache()
    a = RuleSet.load(("mine.dl", "p(1)."))
    b = RuleSet.load(("mine.dl", "p(2)."))
    assert [f.head.args[0].value for f in a.facts] == [1]
    assert [f.head.args[0].value for f in b.facts] == [2]
    assert len(list(tmp_path.glob("rules-*.pickle"))) == 2
    # a cache directory writable by others is not trusted
    (tmp_path / "rules-x.pickle").write_bytes(pickle.dumps(a))
    tmp_path.chmod(0o777)
    try:
        RuleSet.clear_cache()
        from tilemem.datalog.disk_cache import load_tree
        assert load_tree([("mine.dl", "p(1).")], RuleSet) is None
    finally:
        tmp_path.chmod(0o700)
        RuleSet.clear_cache()


def test_disk_cache_file_must_be_a_private_regular_file(tmp_path, monkeypatch):
    """The cached pickle itself is trusted only as this user's regular file that others
    cannot write: not a symlink (to a file someone else planted), not group-writable."""
    from tilemem.datalog.disk_cache import entry_path as _disk_path, load_tree
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(cache))
    texts = [("mine.dl", "p(1).")]
    RuleSet.clear_cache()
    try:
        RuleSet.load(texts[0])
        path = _disk_path(texts)
        assert path.is_file()
        path.chmod(0o600)
        assert isinstance(load_tree(texts, RuleSet), RuleSet)           # the honest entry is used
        path.chmod(0o666)
        assert load_tree(texts, RuleSet) is None                       # writable by others
        path.chmod(0o600)
        planted = tmp_path / "planted.pickle"
        planted.write_bytes(path.read_bytes())
        planted.chmod(0o600)
        path.unlink()
        path.symlink_to(planted)
        assert load_tree(texts, RuleSet) is None                       # a symlink is not followed
    finally:
        RuleSet.clear_cache()


def test_a_solve_reads_the_json_program_not_the_tree(tmp_path, monkeypatch):
    """From the disk cache, a rule set is its cached program: no unpickling, no parse, and
    clingo's compiled text comes from the cache too; the tree is loaded when asked for."""
    import marshal

    from tilemem.datalog import clingo_engine, disk_cache
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path))
    texts = [("mine.dl", ".decl e(a, b)\n.input e\n// reach\np(X, Y) :- e(X, Y).\n"
                         "p(X, Z) :- p(X, Y), e(Y, Z).\nq(\"k\", 1).\n")]
    RuleSet.clear_cache()
    try:
        first = RuleSet.load(texts[0])
        with Database(first, engine="clingo") as db:
            db.add_facts("e", [(1, 2), (2, 3)])
            want = db.relation("p")
        stored = marshal.loads(disk_cache.entry_path(texts, disk_cache.PROGRAM).read_bytes())
        assert "clingo" in stored["compiled"]
        RuleSet.clear_cache()
        calls = []
        monkeypatch.setattr(disk_cache, "load_tree", lambda t, kind: calls.append("pickle"))
        from tilemem.datalog import syntax
        monkeypatch.setattr(syntax, "parse_program", lambda *a: calls.append("parse"))
        monkeypatch.setattr(clingo_engine, "compile_rules", lambda rs: calls.append("compile"))
        second = RuleSet.load(texts[0])
        assert second is not first and "rules" not in second.__dict__
        assert second.strata == first.strata and second.edges == first.edges
        assert second.fact_rows == {"q": (("k", 1),)}
        assert second.predicates["p"].is_derived and second.predicates["e"].is_input
        with Database(second, engine="clingo") as db:
            db.add_facts("e", [(1, 2), (2, 3)])
            assert db.relation("p") == want
            assert db.relation("q") == [("k", 1)]
        assert calls == []
        monkeypatch.undo()
        monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path))
        assert second.predicates["p"].loc.line == 4            # in the JSON program
        assert "rules" not in second.__dict__
        assert len(second.rules) == 2 and second.rules[0].doc == "reach"
        assert second.predicates["p"].rules == second.rules
        with Database(second, engine="pydatalog") as db:
            db.add_facts("e", [(1, 2), (2, 3)])
            assert db.relation("p") == want
    finally:
        RuleSet.clear_cache()


def test_json_program_must_be_private_and_well_formed(tmp_path, monkeypatch):
    from tilemem.datalog.disk_cache import PROGRAM, entry_path as _disk_path, load_program
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(cache))
    texts = [("mine.dl", ".decl e(a)\n.input e\np(X) :- e(X).\n")]
    RuleSet.clear_cache()
    try:
        RuleSet.load(texts[0])
        path = _disk_path(texts, PROGRAM)
        assert isinstance(load_program(texts, RuleSet._from_program), RuleSet)
        path.chmod(0o620)
        assert load_program(texts, RuleSet._from_program) is None                    # writable by the group
        path.chmod(0o600)
        planted = tmp_path / "planted.marshal"
        planted.write_bytes(path.read_bytes())
        planted.chmod(0o600)
        path.unlink()
        path.symlink_to(planted)
        assert load_program(texts, RuleSet._from_program) is None                    # a symlink is not followed
        path.unlink()
        path.write_bytes(b"{\xfa\x00damaged")                 # damaged: no cache, no error
        path.chmod(0o600)
        assert load_program(texts, RuleSet._from_program) is None
        RuleSet.clear_cache()
        with Database(RuleSet.load(texts[0])) as db:
            db.add_facts("e", [(5,)])
            assert db.relation("p") == [(5,)]
    finally:
        RuleSet.clear_cache()


# ----------------------------------------------------------------------------- real models

MODELS = SHARED / "corpus-models"
MODEL_SAMPLE = 6           # by default the smallest few; every model with -m slow


def _model_cases():
    if not MODELS.is_dir():
        return [pytest.param(None, id="corpus-models-absent")]
    cases = sorted((p.parent for p in MODELS.glob("*/before.pto")),
                   key=lambda c: (len((c / "before.pto").read_bytes()), c.name))
    return [pytest.param(c, id=c.name[:80], marks=[pytest.mark.slow] if i >= MODEL_SAMPLE else [])
            for i, c in enumerate(cases)]


@pytest.mark.parametrize("case", _model_cases())
def test_engines_agree_on_real_models(case, request):
    """pyDatalog and clingo (the default) print the same program and give the same
    residency verdicts on the real kernels: the smallest by default, all with -m slow
    (pyDatalog needs ~6 minutes for the 352)."""
    import tilemem
    if case is None:
        pytest.skip("../shared/corpus-models absent")
    if "slow" in [m.name for m in request.node.iter_markers()] and \
            "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("run with -m slow")
    backend = json.loads((case / "meta.json").read_text()).get("backend")
    text = (case / "before.pto").read_text()
    sols = {e: tilemem.solve(text, backend=backend, engine=e) for e in ENGINES}
    ref, fast = sols["pydatalog"], sols["clingo"]
    assert fast.text == ref.text and fast.moves == ref.moves and fast.spaces == ref.spaces
    assert [str(d) for d in fast.residency or ()] == [str(d) for d in ref.residency or ()]
