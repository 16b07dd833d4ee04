"""Aggregates (``count``, ``sum``, ``min``, ``max``), ``!p(X, _)`` and ``*``/``/`` in the rule language:
parsing, validation, evaluation on both engines (checked against a brute-force model
in Python on random relations), and their place in proof trees and why-not answers."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilemem.datalog import Aggregate, Database, RuleError, RuleSet, parse_program
from tilemem.datalog.syntax import value_key
from tilemem.explain import Explainer

ENGINES = ["pydatalog"]
try:
    import clingo  # noqa: F401
    ENGINES.append("clingo")
except ImportError:            # pragma: no cover - the clingo engine is optional
    pass

RULES = r'''
.decl e(a, b)
.input e
.decl n(a)
.input n
.decl w(a, k, b)
.input w
// edges out of X, counting every row (the anonymous column is part of the match)
.decl outdeg(a, n)
outdeg(X, N) :- n(X), N = count : { e(X, _) }.
// X has no edge out: a count of zero, and the same with a negated anonymous column
.decl sink_count(a)
sink_count(X) :- n(X), 0 = count : { e(X, _) }.
.decl sink_neg(a)
sink_neg(X) :- n(X), !e(X, _).
// the least and greatest successor (integers before strings)
.decl first(a, b)
first(X, M) :- n(X), M = min Y : { e(X, Y) }.
.decl last(a, b)
last(X, M) :- n(X), M = max Y : { e(X, Y), !n(Y) }.
// weights summed over every (key, weight) row
.decl total(a, s)
total(X, S) :- n(X), S = sum B : { w(X, _, B) }.
// a filter inside the body and a comparison on the result
.decl busy(a)
busy(X) :- n(X), N = count : { e(X, Y), Y != X }, N >= 2.
// the result already bound: the aggregate tests it
.decl is_first(a, b)
is_first(X, Y) :- e(X, Y), Y = min Z : { e(X, Z) }.
// no group at all
.decl everyone(n)
everyone(N) :- n(1), N = count : { n(_) }.
'''

INT = st.integers(min_value=0, max_value=4)
VALUE = st.one_of(INT, st.sampled_from(["a", "b"]))


def _brute(e, n, w):
    """The relations of RULES computed directly in Python."""
    out = {k: set() for k in ("outdeg", "sink_count", "sink_neg", "first", "last", "total",
                              "busy", "is_first", "everyone")}
    for x in n:
        succ = [b for a, b in e if a == x]
        out["outdeg"].add((x, len(succ)))
        if not succ:
            out["sink_count"].add((x,))
            out["sink_neg"].add((x,))
        if succ:
            out["first"].add((x, min(succ, key=value_key)))
        far = [b for b in succ if b not in n]
        if far:
            out["last"].add((x, max(far, key=value_key)))
        out["total"].add((x, sum(b for a, _, b in w if a == x)))
        if len([b for b in succ if b != x]) >= 2:
            out["busy"].add((x,))
    for a, b in e:
        if b == min((y for x, y in e if x == a), key=value_key):
            out["is_first"].add((a, b))
    if 1 in n:
        out["everyone"].add((len(n),))
    return {k: sorted(v, key=lambda r: tuple(map(value_key, r))) for k, v in out.items()}


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e=st.sets(st.tuples(INT, VALUE), max_size=10), n=st.sets(INT, max_size=5),
       w=st.sets(st.tuples(INT, INT, INT), max_size=8))
def test_aggregates_match_a_brute_force_model(engine, e, n, w):
    rs = RuleSet.load(RULES)
    with Database(rs, engine=engine) as db:
        db.add_facts("e", sorted(e, key=lambda r: tuple(map(value_key, r))))
        db.add_facts("n", [(x,) for x in sorted(n)])
        db.add_facts("w", sorted(w))
        want = _brute(e, set(n), w)
        for rel, rows in want.items():
            assert db.relation(rel) == rows, rel


def test_aggregates_in_recursive_and_chained_rules_agree():
    # an aggregate over a lower stratum inside a recursive component, and an aggregate
    # over the result of another aggregate
    rules = r'''
.decl e(a, b)
.input e
reach(X, Y) :- e(X, Y).
reach(X, Z) :- reach(X, Y), e(Y, Z).
width(X, N) :- e(X, _), N = count : { reach(X, _) }.
wide(X, Y) :- width(X, N), N > 1, e(X, Y).
wide(X, Z) :- wide(X, Y), e(Y, Z), M = max K : { width(_, K) }, M > 0.
top(M) :- e(_, _), M = max N : { width(_, N) }.
'''
    got = {}
    for engine in ENGINES:
        with Database(RuleSet.load(rules), engine=engine) as db:
            db.add_facts("e", [(1, 2), (2, 3), (3, 1), (4, 5)])
            got[engine] = {r: db.relation(r) for r in ("width", "wide", "top")}
    ref = got["pydatalog"]
    assert ref["width"] == [(1, 3), (2, 3), (3, 3), (4, 1)]
    assert ref["top"] == [(3,)]
    assert all(g == ref for g in got.values())


def test_parse_aggregates_and_their_groups():
    pf = parse_program("a(X, N) :- b(X), N = count : { c(X, _), !d(X) }.\n"
                       "m(X, M) :- b(X), M = min Y : { c(X, Y), Y > 1 }.\n"
                       "count(X) :- min(X), max(X, 1).\n")
    assert pf.errors == ()
    agg = pf.items[0].body[1]
    assert isinstance(agg, Aggregate) and agg.func == "count" and agg.target is None
    assert agg.group == ("X",) and agg.needs() == {"X"} and agg.binds() == {"N"}
    assert str(agg) == "N = count : { c(X, _), !d(X) }"
    agg = pf.items[1].body[1]
    assert agg.func == "min" and str(agg.target) == "Y" and agg.group == ("X",)
    # the function names stay ordinary predicate names elsewhere
    assert [a.pred for a in pf.items[2].body] == ["min", "max"]


@pytest.mark.parametrize("text, message", [
    ("a(N) :- b(_), N = count Y : { b(Y) }.", "count takes no value"),
    ("a(N) :- b(_), N = sum : { b(_) }.", "sum needs the value"),
    ("a(X, N) :- N = count : { b(X) }.", "unsafe rule: variable X in aggregate"),
    ("a(N) :- b(_), N = min Y : { b(X), Y < X }.", "unsafe aggregate: variable Y"),
    ("a(N) :- b(_), N = max Y : { !b(Y) }.", "needs a positive atom"),
    ("a(N) :- b(N), N = count : { b(N) }.", "cannot occur in its own body"),
    ("a(X, N) :- b(X), N = count : { a(X, _) }.", "aggregate of 'a' in a rule for 'a'"),
])
def test_bad_aggregates_are_refused(text, message):
    with pytest.raises(RuleError) as exc:
        RuleSet.load(".decl b(x)\n.input b\n" + text)
    assert message in str(exc.value)


def test_sum_of_a_string_is_an_error_on_pydatalog():
    rs = RuleSet.load(".decl b(x)\n.input b\ns(S) :- b(_), S = sum X : { b(X) }.\n")
    from tilemem.datalog import EvaluationError
    with Database(rs, engine="pydatalog") as db:
        db.add_facts("b", [(1,), ("x",)])
        with pytest.raises(EvaluationError, match="sum of a non-integer"):
            db.relation("s")


def test_proof_trees_show_the_aggregate_and_its_matches():
    rs = RuleSet.load(("t.dl", RULES))
    with Database(rs) as db:
        db.add_facts("e", [(1, 2), (1, 3), (1, "s")])
        db.add_facts("n", [(1,), (2,)])
        db.add_facts("w", [(1, 0, 5), (1, 1, 5)])
        ex = Explainer(db)
        tree = ex.explain("first", (1, 2)).render(ascii=True)
        assert "`- 2 = min Y : { e(1, Y) }\n   `- e(1, 2)" in tree
        tree = ex.explain("total", (1, 10)).render(ascii=True)
        assert "10 = sum B : { w(1, _, B) }" in tree
        assert "w(1, 0, 5)" in tree and "w(1, 1, 5)" in tree
        assert "0 = count : { e(2, _) }" in ex.explain("outdeg", (2, 0)).render()
        d = ex.explain("outdeg", (1, 3)).to_dict()
        agg = d["children"][1]
        assert agg["kind"] == "aggregate" and len(agg["children"]) == 3
        # why-not: the count the rule needed, and the one it has
        wn = ex.why_not("outdeg", (1, 2)).render(ascii=True)
        assert "x 2 = count : { e(1, _) } is false" in wn
        assert "3 = count : { e(1, _) }" in wn


@pytest.mark.parametrize("engine", ENGINES)
def test_multiplication_and_division(engine):
    # '/' truncates toward zero (as Soufflé and clingo do); a zero divisor gives no value
    rs = RuleSet.load(".decl p(a: number, b: number)\n.input p\n"
                      "q(A, B, M, D) :- p(A, B), M = A * B, D = A / B.\n"
                      "up(A, R) :- p(A, B), B > 0, K = A + B, K1 = K - 1, Q = K1 / B, R = Q * B.\n")
    with Database(rs, engine=engine) as db:
        db.add_facts("p", [(7, 2), (-7, 2), (7, -2), (-7, -2), (5, 0), (33, 32)])
        assert db.relation("q") == [(-7, -2, 14, 3), (-7, 2, -14, -3), (7, -2, -14, -3),
                                    (7, 2, 14, 3), (33, 32, 1056, 1)]
        assert db.relation("up") == [(-7, -6), (7, 8), (33, 64)]
