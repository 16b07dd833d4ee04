"""The pyDatalog engine: the rule files evaluated by pyDatalog (pure Python).

pyDatalog is imported only when this engine is chosen (``--engine pydatalog``); the
interface it implements is :class:`tilemem.datalog.engine.Engine`.
"""
from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from typing import Optional, Sequence

from pyDatalog import Logic
from pyDatalog import pyEngine as E

from tilemem.datalog.engine import (
    Engine, PatternTerm, aggregate_table, gc_paused,
)
from tilemem.datalog.budget import user_rule_indices
from tilemem.datalog.errors import EvaluationError
from tilemem.datalog.planning import plan_body
from tilemem.datalog.program import RuleSet
from tilemem.datalog.syntax import (
    COMPARE, Aggregate, Arith, Atom, Comparison, Const, Negation, Rule, Var, arith_value,
)

__all__ = ["PyDatalogEngine"]

# One pyDatalog evaluation at a time in this process (see PyDatalogEngine._active).
_PYDATALOG_LOCK = threading.RLock()

# ----------------------------------------------------------------------------- pyDatalog engine

_MISSING = object()
_plans: "weakref.WeakKeyDictionary[RuleSet, dict]" = weakref.WeakKeyDictionary()
_PREFIX = "dl_"              # pyDatalog predicate name = _PREFIX + rule-language name
# arithmetic primitives: the operator is the name's last character
_ARITH_PRIMS = {"+": "_tm_add+", "-": "_tm_sub-", "*": "_tm_mul*", "/": "_tm_div/"}
_CMP_PRIMS = {"=": "_tm_eq", "!=": "_tm_ne", "<": "_tm_lt", "<=": "_tm_le", ">": "_tm_gt",
              ">=": "_tm_ge"}


# the order tests as primitives (``=`` binds, so it is a primitive of its own)
_ORDER_TESTS = {prim: COMPARE[op] for op, prim in _CMP_PRIMS.items() if op != "="}


class _AggregateState:
    """One aggregate of the rules inside a pyDatalog engine."""
    __slots__ = ("lit", "aux", "prim", "ngroup", "target", "constant", "table")

    def __init__(self, lit, aux, prim, ngroup, target, constant):
        self.lit, self.aux, self.prim, self.ngroup = lit, aux, prim, ngroup
        self.target, self.constant, self.table = target, constant, None


class PyDatalogEngine(Engine):
    """Runs the rules on pyDatalog, in a pyDatalog logic of its own.

    Isolation: pyDatalog keeps its whole state (predicates, clauses, facts, the
    subgoal table) in ``Logic.tl.logic``, a thread-local slot, plus a thread-local
    counter for fresh variables.  Each engine owns a private ``Logic`` object and
    installs it in the calling thread only for the duration of a call (restoring
    whatever was there before), under a per-engine lock.  Nothing else in pyDatalog
    is shared between logics except read-only tables, so engines never see each
    other's facts or rules, whether they are used one after the other or at the
    same time in different threads.

    Translation uses pyDatalog's object API (``pyEngine.Pred``/``Literal``/``Clause``,
    ``Var``/``Const`` terms, ``pyEngine.assert_``); fact values travel only as
    Python values inside ``Const`` terms, never as source text.  Comparisons and
    arithmetic are pyDatalog primitives (``Pred.prim``) defined here so that they
    have the rule language's semantics (integers before strings; ``+``/``-`` on
    integers only).

    Evaluation: pyDatalog is a top-down tabled (SLG) engine that answers one query
    at a time and forgets its tables after each query.  The Database calls ``solve``
    stratum by stratum (one strongly connected component at a time, lowest first):

    * a non-recursive predicate p is computed by one pyDatalog query ``p(A0..An)``;
    * a recursive component is computed either by pyDatalog's SLG query too (when
      every atom of the component is called with all arguments free, e.g. left-linear
      closures) or by a semi-naive fixpoint driven from Python in which pyDatalog
      answers only non-recursive "delta" queries over facts (right/non-linear
      recursion, where SLG is quadratic or, on cycles, never terminates) -- see
      :meth:`_plan` and :meth:`_solve_recursive`;
    * afterwards p is *materialised*: its rules are retracted and its answers
      asserted as plain facts (only if a later stratum reads p; otherwise when a
      lookup needs them), so later strata do indexed fact look-ups instead of
      re-deriving p, and a negation of p is a simple absence test.

    Rule bodies run in the order of :func:`~tilemem.datalog.planning.plan_body`
    (positive atoms as written; comparisons, negations and arithmetic right after the
    literals that bind their variables).  Python's cyclic GC is paused while
    pyDatalog works (:func:`gc_paused`).
    """

    name = "pydatalog"
    budget = None                # a tilemem.datalog.budget.Budget, set by the Database

    def __init__(self, rules: RuleSet, table_rows: Optional[dict] = None):
        self.rules = rules
        self._lock = threading.RLock()
        self._logic = object.__new__(Logic)
        self._fresh_counter = 0
        self._errors: list[str] = []
        self._closed = False
        self.rounds = 0                   # semi-naive rounds run so far (for benchmarks)
        self._consts: dict = {}           # value -> shared Const term (saves memory)
        with self._active():
            E.clear()                     # initialise the empty logic (builtins ==, <, ...)
            self._install_primitives()
            self._preds = {}
            for name, info in rules.predicates.items():
                p = E.Pred(_PREFIX + name, info.arity)
                p.prearity = info.arity
                E.insert(p)               # known (possibly empty) predicate
                self._preds[name] = p
            self._unasserted: dict[str, list] = {}   # solved, not yet asserted as facts
            # predicates read by some rule of another component must be asserted as facts
            # right after they are solved; the others only if a lookup needs them
            self._read_later, self._seminaive = self._plan(rules, self.recursion)
            self._rule_clauses: dict[str, list] = {}     # clauses to retract once solved
            self._aux: dict[tuple[str, str], object] = {}  # (pred, "delta"/"new"/"init") -> Pred
            # Rules are translated, and the facts written in rule files asserted, only for
            # the predicates a solve or lookup needs: a solve reads a part of the rules
            # (phases 0-3 or phase 4), and the op table's facts cost ~50 us each.
            self._planned = {id(r): body for r, body in zip(rules.rules, rules.planned)}
            # user rules count their derivations (tilemem.datalog.budget)
            self._counted = {id(r): i for i, r in user_rule_indices(rules).items()}
            self._tick_preds: dict[int, object] = {}     # arity -> the tick primitive
            self._prepared: set[str] = set()
            self._aggs: dict[int, _AggregateState] = {}    # id(Aggregate) -> its evaluation
            self._file_rows: dict[str, list[tuple]] = {}
            for fact in rules.facts:
                self._file_rows.setdefault(fact.head.pred, []).append(
                    tuple(t.value for t in fact.head.args))
            for pred, rows in (table_rows or {}).items():
                self._file_rows[pred] = list(rows)

    def _prepare(self, preds) -> None:
        """Translate the rules of ``preds`` and assert the rule-file facts of them and of
        every predicate their rules read that has not been prepared (logic active)."""
        info = self.rules.predicates
        todo = [p for p in preds if p not in self._prepared]
        for pred in todo:
            self._prepared.add(pred)
            for rule in info[pred].rules:
                body = self._planned[id(rule)]
                if info[pred].stratum in self._seminaive:
                    self._add_seminaive_clauses(rule, body)
                else:
                    clause = self._translate_rule(rule, body)
                    E.assert_(clause)
                    self._rule_clauses.setdefault(pred, []).append(clause)
                for atom in rule.body_atoms():
                    if atom.pred not in self._prepared and not info[atom.pred].rules:
                        self._prepare([atom.pred])
            rows = self._file_rows.pop(pred, None)
            if rows:
                p = self._preds[pred]
                for row in rows:
                    self._assert_row(p, row)

    # ------------------------------------------------------------------ activation

    @contextmanager
    def _active(self):
        """Install this engine's logic in the current thread for the duration of a call.

        Calls are serialised process-wide: the compiled pyDatalog extension keeps
        state beyond the thread-local logic, and rare wrong answers were seen with
        concurrent evaluation in threads.  (The GIL already prevents parallel
        evaluation; parsing and emitting still run concurrently.)"""
        with _PYDATALOG_LOCK, self._lock:
            if self._closed:
                raise RuntimeError("the Datalog database is closed")
            ltl, ftl = Logic.tl, E.Fresh_var.tl
            prev_logic = getattr(ltl, "logic", _MISSING)
            prev_counter = getattr(ftl, "counter", _MISSING)
            ltl.logic = self._logic
            ftl.counter = self._fresh_counter
            try:
                yield
            finally:
                self._fresh_counter = ftl.counter
                if prev_logic is _MISSING:
                    del ltl.logic
                else:
                    ltl.logic = prev_logic
                if prev_counter is _MISSING:
                    del ftl.counter
                else:
                    ftl.counter = prev_counter

    # ------------------------------------------------------------------ primitives

    def _install_primitives(self):
        errors = self._errors

        def compare(literal, subgoal):
            a, b = literal.terms
            if a.is_const() and b.is_const():
                if _ORDER_TESTS[literal.pred.name](a.id, b.id):
                    subgoal.fact(True)
            else:                          # cannot happen for safe, planned rules
                errors.append(f"comparison on unbound variable: {literal}")

        def equals(literal, subgoal):
            a, b = literal.terms
            if a.is_const():
                if b.is_const():
                    if type(a.id) is type(b.id) and a.id == b.id:
                        subgoal.fact(True)
                else:
                    subgoal.fact(E.Literal(literal.pred, [a, a]))
            elif b.is_const():
                subgoal.fact(E.Literal(literal.pred, [b, b]))
            else:
                errors.append(f"'=' between two unbound variables: {literal}")

        def arith(literal, subgoal):
            target, x, y, where = literal.terms
            if not (x.is_const() and y.is_const()):
                errors.append(f"{where.id}: arithmetic on an unbound variable")
                return
            a, b = x.id, y.id
            if type(a) is not int or type(b) is not int:
                errors.append(f"{where.id}: arithmetic on a non-integer value: "
                              f"{a!r} {literal.pred.name[-1]} {b!r}")
                return
            r = arith_value(literal.pred.name[-1], a, b)
            if r is None:
                return                      # no value (a zero divisor): the rule does not apply
            if target.is_const():
                if type(target.id) is int and target.id == r:
                    subgoal.fact(True)
            else:
                subgoal.fact(E.Literal(literal.pred, [self._const(r), x, y, where]))

        for name in _ORDER_TESTS:
            p = E.insert(E.Pred(name, 2))
            p.prearity, p.prim = 2, compare
        p = E.insert(E.Pred("_tm_eq", 2))
        p.prearity, p.prim = 2, equals
        for name in _ARITH_PRIMS.values():
            p = E.insert(E.Pred(name, 4))
            p.prearity, p.prim = 4, arith

    # ------------------------------------------------------------------ translation

    def _const(self, value):
        c = self._consts.get((type(value), value))
        if c is None:
            c = self._consts[(type(value), value)] = E.Const(value)
        return c

    def _term(self, t, anon_counter: list):
        if isinstance(t, Const):
            return self._const(t.value)
        if t.is_anonymous:
            anon_counter[0] += 1
            return E.Var(f"_{anon_counter[0]}")
        return E.Var(t.name)

    def _translate_rule(self, rule: Rule, ordered: Sequence, head_pred=None, atom_pred=None):
        """A pyDatalog clause for ``rule``, whose body is given in evaluation order.

        ``head_pred`` replaces the head's predicate and ``atom_pred(atom)`` chooses the
        predicate of each positive body atom (both default to the atom's own predicate);
        the semi-naive variants use them to point at delta / iteration predicates.
        """
        anon = [0]
        head = E.Literal(head_pred or self._preds[rule.head.pred],
                         [self._term(t, anon) for t in rule.head.args])
        body = []
        for lit in ordered:
            if isinstance(lit, Atom):
                pred = atom_pred(lit) if atom_pred else self._preds[lit.pred]
                body.append(E.Literal(pred, [self._term(t, anon) for t in lit.args]))
            elif isinstance(lit, Negation):
                # a '~name' literal is pyDatalog's negation; it finds its base predicate by name
                body.append(E.Literal("~" + _PREFIX + lit.atom.pred,
                                      [self._term(t, anon) for t in lit.atom.args]))
            elif isinstance(lit, Comparison):
                body.append(E.Literal(_CMP_PRIMS[lit.op],
                                      [self._term(lit.left, anon), self._term(lit.right, anon)]))
            elif isinstance(lit, Arith):
                name = _ARITH_PRIMS[lit.op]
                body.append(E.Literal(name, [self._term(lit.target, anon),
                                             self._term(lit.left, anon),
                                             self._term(lit.right, anon),
                                             E.Const(str(lit.loc))]))
            elif isinstance(lit, Aggregate):
                agg = self._aggregate(lit)
                body.append(E.Literal(agg.prim, [E.Var(g) for g in lit.group]
                                      + [self._term(lit.result, anon)]))
        index = self._counted.get(id(rule))
        if index is not None:            # last: called once per derivation, head bound
            names = sorted({v.name for v in rule.head.variables()})
            body.append(E.Literal(self._tick_pred(len(names) + 1),
                                  [self._const(index)] + [E.Var(n) for n in names]))
        return E.Clause(head, body)

    def _tick_pred(self, arity: int):
        """The primitive that counts a user rule's derivation (logic active)."""
        p = self._tick_preds.get(arity)
        if p is None:
            def tick(literal, subgoal):
                if self.budget is not None:
                    self.budget.tick(literal.terms[0].id)
                subgoal.fact(True)
            p = E.insert(E.Pred(f"_tm_tick{arity}", arity))
            p.prearity, p.prim = arity, tick
            self._tick_preds[arity] = p
        return p

    # ------------------------------------------------------------------ aggregates
    #
    # An aggregate is evaluated in two steps.  Its body becomes the clause of an
    # auxiliary predicate over (group variables, local variables); since aggregation is
    # stratified, that predicate only reads relations of lower strata, so it is asked
    # once, before the first stratum that uses the aggregate is solved, and the value of
    # every group is computed here, in Python (:func:`aggregate_value`).  In the rule,
    # the aggregate is a primitive that looks its group's value up.

    def _aggregate(self, lit: Aggregate) -> "_AggregateState":
        st = self._aggs.get(id(lit))
        if st is not None:
            return st
        n = len(self._aggs)
        columns = list(lit.group) + sorted(lit.body_names() - set(lit.group))
        body = []
        fresh = 0
        for b in plan_body(lit.body)[0]:
            if isinstance(b, Atom):
                terms = []
                for t in b.args:
                    if isinstance(t, Var) and t.is_anonymous:
                        # an anonymous variable is a column of the match too
                        fresh += 1
                        columns.append(f"_agg{fresh}")
                        terms.append(E.Var(columns[-1]))
                    else:
                        terms.append(self._term(t, None))
                body.append(E.Literal(self._preds[b.pred], terms))
            elif isinstance(b, Negation):
                anon = [0]
                body.append(E.Literal("~" + _PREFIX + b.atom.pred,
                                      [self._term(t, anon) for t in b.atom.args]))
            else:
                body.append(E.Literal(_CMP_PRIMS[b.op], [self._term(b.left, None),
                                                          self._term(b.right, None)]))
        aux = E.Pred(f"{_PREFIX}#agg{n}", len(columns))
        aux.prearity = len(columns)
        E.insert(aux)
        E.assert_(E.Clause(E.Literal(aux, [E.Var(c) for c in columns]), body))
        target = None
        if isinstance(lit.target, Var):
            target = columns.index(lit.target.name)
        st = _AggregateState(lit, aux, f"_tm_agg{n}", len(lit.group), target,
                             None if lit.target is None or isinstance(lit.target, Var)
                             else lit.target.value)
        p = E.insert(E.Pred(st.prim, len(lit.group) + 1))
        p.prearity = len(lit.group) + 1
        errors, const = self._errors, self._const

        def lookup(literal, subgoal, st=st):
            *group, result = literal.terms
            if st.table is None or not all(t.is_const() for t in group):
                errors.append(f"{st.lit.loc}: aggregate evaluated before its body")
                return
            value = st.table.get(tuple(t.id for t in group), _MISSING)
            if value is _MISSING:
                if st.lit.func not in ("count", "sum"):
                    return                 # min/max of nothing: no value
                value = 0
            if result.is_const():
                if type(result.id) is type(value) and result.id == value:
                    subgoal.fact(True)
            else:
                subgoal.fact(E.Literal(literal.pred, [*group, const(value)]))

        p.prim = lookup
        self._aggs[id(lit)] = st
        return st

    def _compute_aggregates(self, preds) -> None:
        """Compute the group tables of the aggregates in the rules of ``preds`` (their
        bodies read lower strata only, which are solved; logic active)."""
        for pred in preds:
            for rule in self.rules.predicates[pred].rules:
                for lit in rule.body:
                    if isinstance(lit, Aggregate):
                        st = self._aggregate(lit)
                        if st.table is None:
                            rows = self._ask_pred(st.aux, [E.Var(f"A{i}")
                                                           for i in range(st.aux.arity)])
                            self._check_errors()
                            try:
                                st.table = aggregate_table(lit.func, rows, st.ngroup,
                                                           st.target, st.constant)
                            except TypeError as err:
                                raise EvaluationError(f"{lit.loc}: {err}") from None

    #: "auto": semi-naive unless pyDatalog's SLG is safe (see _plan);
    #: "always": semi-naive for every recursive component;
    #: "never": SLG everywhere -- benchmarks only: pyDatalog 0.22.4's SLG never
    #: terminates on e.g. ``a(X, Z) :- e(X, Y), a(Y, Z)`` over a cyclic ``e``.
    recursion = "auto"

    @staticmethod
    def _plan(rules: RuleSet, recursion: str) -> tuple[frozenset, frozenset]:
        """(predicates read by a later component, components to evaluate semi-naively).

        Computed once per RuleSet and strategy (rule sets are immutable).
        """
        cached = _plans.get(rules, {}).get(recursion)
        if cached is not None:
            return cached
        preds = rules.predicates
        read_later = frozenset(q for q, p in rules.edges
                               if preds[q].stratum != preds[p].stratum)
        recursive = {info.stratum for info in preds.values() if info.recursive}
        if recursion == "always":
            seminaive = frozenset(recursive)
        elif recursion == "never":
            seminaive = frozenset()
        else:
            # pyDatalog's SLG resolution tables one subgoal per distinct call pattern.
            # When every atom of a component is called with no argument bound (e.g.
            # left-linear rules such as  path(X, Z) :- path(X, Y), edge(Y, Z)) there are
            # only a few such subgoals and SLG is a little faster than iterating.  When a
            # recursive atom is called with bound arguments (right recursion, non-linear
            # rules) SLG makes a subgoal per binding, its scheduling turns quadratic --
            # or never terminates: right-recursive closure over a cycle loops forever in
            # pyDatalog 0.22.4 -- so such components are iterated (semi-naive) instead.
            chosen = set()
            for rule, body in zip(rules.rules, rules.planned):
                comp = preds[rule.head.pred].stratum
                if comp not in recursive or comp in chosen:
                    continue
                bound: set[str] = set()
                for lit in body:
                    if isinstance(lit, Atom):
                        if preds[lit.pred].stratum == comp and \
                                any(v.name in bound for v in lit.variables()):
                            chosen.add(comp)
                            break
                        bound.update(v.name for v in lit.variables())
                    else:
                        bound.update(lit.binds())
            seminaive = frozenset(chosen)
        result = (read_later, seminaive)
        _plans.setdefault(rules, {})[recursion] = result
        return result

    def _aux_pred(self, pred: str, role: str):
        """An auxiliary pyDatalog predicate of a recursive predicate (names cannot clash
        with the language's: '#' is not an identifier character)."""
        key = (pred, role)
        p = self._aux.get(key)
        if p is None:
            arity = self.rules.predicates[pred].arity
            p = E.Pred(f"{_PREFIX}{pred}#{role}", arity)
            p.prearity = arity
            E.insert(p)
            self._aux[key] = p
        return p

    def _add_seminaive_clauses(self, rule: Rule, planned: Sequence):
        """Clauses for semi-naive evaluation of a rule of a recursive component.

        With C the rule's component, the rule becomes
          * ``p#init :- body``  if no body atom is in C (asked once), else
          * one clause ``p#new :- body[a_i := a_i#delta]`` per body atom a_i in C, with
            the other atoms of C reading the full relation; the delta atom is moved to
            the front (it is the smallest relation) and the body re-planned.
        """
        from tilemem.datalog.planning import plan_body

        comp = self.rules.predicates[rule.head.pred].stratum
        in_comp = [lit for lit in rule.body
                   if isinstance(lit, Atom) and self.rules.predicates[lit.pred].stratum == comp]
        if not in_comp:
            E.assert_(self._translate_rule(rule, planned, self._aux_pred(rule.head.pred, "init")))
            return
        head = self._aux_pred(rule.head.pred, "new")
        for delta_atom in in_comp:
            reordered = [delta_atom] + [lit for lit in rule.body if lit is not delta_atom]
            ordered, _, _ = plan_body(reordered)

            def atom_pred(atom, delta_atom=delta_atom):
                if atom is delta_atom:
                    return self._aux_pred(atom.pred, "delta")
                return self._preds[atom.pred]

            E.assert_(self._translate_rule(rule, ordered, head, atom_pred))

    # Fact storage.  The pyDatalog 0.22.4 wheel's compiled engine keeps a predicate's
    # clauses in ``pred.db`` (dict: clause id -> clause) and its fact index in
    # ``pred.index`` (list of dicts: value -> set of fact clauses), and ``assert_``
    # re-registers the predicate in a WeakValueDictionary for every single fact.  With
    # that layout we insert facts exactly as ``assert_`` does, minus the redundant
    # registration (2-3x faster loading).  Any other layout (the C++ FactDb/FactIndex of
    # the pure-Python source, should a build compile that) goes through pyDatalog's own
    # ``assert_``/``retract``, which also release FactIndex's references.
    fast_facts: Optional[bool] = None     # None: detect on first use

    def _use_fast_facts(self, p) -> bool:
        if self.fast_facts is None:
            type(self).fast_facts = isinstance(p.db, dict) and isinstance(p.index, list)
        return self.fast_facts

    def _assert_row(self, pred, row: tuple):
        c = self._const
        terms = [c(v) for v in row]
        clause = E.Clause(E.Literal(pred, terms), [])
        if not self._use_fast_facts(pred):
            E.assert_(clause)
            return
        key = clause.get_id()
        db = pred.db
        if key in db:
            return
        db[key] = clause
        index = pred.index
        for i, term in enumerate(terms):
            bucket = index[i].get(term.id)
            if bucket is None:
                index[i][term.id] = {clause}
            else:
                bucket.add(clause)

    def _empty(self, p):
        """Remove every clause and fact of a predicate (needs the logic active unless
        the fast layout is in use)."""
        if self._use_fast_facts(p):
            p.db.clear()
            p.clauses.clear()
            for index in p.index:
                index.clear()
        else:
            for clause in list(p.db.values()):
                E.retract(clause)

    _clear_facts = _empty

    # ------------------------------------------------------------------ Engine API

    def add_facts(self, pred: str, rows: Sequence[tuple]) -> None:
        p = self._preds[pred]
        with self._active(), gc_paused():
            for row in rows:
                self._assert_row(p, row)

    def _ask(self, pred: str, terms: list) -> list[tuple]:
        return self._ask_pred(self._preds[pred], terms)

    def _ask_pred(self, p, terms: list) -> list[tuple]:
        if not p.db:
            return []                      # no rules, no facts: nothing to ask
        logic = self._logic
        try:
            result = E.Literal(p, terms).ask()
        finally:
            # ask() does not always restore its scratch state (e.g. on a True answer or an
            # exception); drop the subgoal table so it cannot outlive the query
            logic.Subgoals, logic.Goal, logic.Tasks, logic.Recursive_Tasks = {}, None, None, None
            logic.Recursive = False
        if result is True:
            return [()]
        return result or []

    def _check_errors(self):
        if self._errors:
            msgs, self._errors[:] = list(self._errors), []
            raise EvaluationError("\n".join(sorted(set(msgs))))

    def _solve_recursive(self, component: Sequence[str]) -> dict[str, list[tuple]]:
        """Semi-naive fixpoint of a recursive component, driven from Python.

        pyDatalog evaluates every rule body, but only in non-recursive queries over
        facts: each round asks ``p#new`` (the rules with one atom of the component
        replaced by the previous round's new tuples, ``#delta``), keeps the tuples not
        seen before, asserts them into ``p`` and makes them the next delta.
        pyDatalog's own recursive (SLG) scheduling is quadratic on right-recursive
        rules; this loop is linear in the number of derivations.
        """
        variables = {q: [E.Var(f"A{i}") for i in range(self._preds[q].arity)] for q in component}
        full: dict[str, set] = {}
        delta: dict[str, list] = {}
        for q in component:
            p = self._preds[q]
            known = set(self._ask(q, variables[q]))       # facts from files / add_facts
            init = self._aux.get((q, "init"))
            fresh = []
            if init is not None:
                for row in self._ask_pred(init, variables[q]):
                    if row not in known:
                        known.add(row)
                        fresh.append(row)
                self._check_errors()
            for row in fresh:
                self._assert_row(p, row)
            full[q] = known
            delta[q] = list(known)
        rounds = 0
        while any(delta.values()):
            rounds += 1
            for q in component:
                dp = self._aux_pred(q, "delta")
                self._clear_facts(dp)
                for row in delta[q]:
                    self._assert_row(dp, row)
            new: dict[str, list] = {}
            for q in component:
                step = self._aux.get((q, "new"))
                rows = []
                if step is not None and step.db:
                    seen = full[q]
                    for row in self._ask_pred(step, variables[q]):
                        if row not in seen:
                            seen.add(row)
                            rows.append(row)
                    self._check_errors()
                new[q] = rows
            for q in component:
                p = self._preds[q]
                for row in new[q]:
                    self._assert_row(p, row)
            delta = new
        self.rounds += rounds
        # the component is now plain facts: drop the auxiliary predicates' clauses
        for q in component:
            for role in ("init", "new", "delta"):
                aux = self._aux.pop((q, role), None)
                if aux is not None:
                    self._empty(aux)
            self._preds[q].recursive = False
        return {q: list(full[q]) for q in component}

    def solve(self, component: Sequence[str]) -> dict[str, list[tuple]]:
        out: dict[str, list[tuple]] = {}
        with self._active(), gc_paused():
            self._prepare(component)
            self._compute_aggregates(component)
            if self.rules.predicates[component[0]].stratum in self._seminaive:
                return self._solve_recursive(component)
            for pred in component:
                p = self._preds[pred]
                rows = self._ask(pred, [E.Var(f"A{i}") for i in range(p.arity)])
                self._check_errors()
                out[pred] = rows
                # materialise: replace the rules of `pred` by the facts they derive
                for clause in self._rule_clauses.pop(pred, ()):
                    E.retract(clause)
                p.recursive = False
                if pred in self._read_later or len(component) > 1:
                    for row in rows:
                        self._assert_row(p, row)
                else:
                    self._unasserted[pred] = rows
        return out

    def lookup(self, pred: str, pattern: Sequence[PatternTerm]) -> list[tuple]:
        terms = []
        anon = 0
        for kind, value in pattern:
            if kind == "const":
                terms.append(E.Const(value))
            elif value is None:
                anon += 1
                terms.append(E.Var(f"_{anon}"))
            else:
                terms.append(E.Var(value))
        with self._active(), gc_paused():
            self._prepare([pred])
            rows = self._unasserted.pop(pred, None)
            if rows is not None:
                p = self._preds[pred]
                for row in rows:
                    self._assert_row(p, row)
            return self._ask(pred, terms)

    def close(self) -> None:
        """Break pyDatalog's reference cycles (predicate <-> clause) and drop the logic."""
        with self._lock:
            if self._closed:
                return
            logic = self._logic
            preds = list(getattr(logic, "Db", {}).values())
            if preds and not self._use_fast_facts(preds[0]):
                with self._active():      # retract() runs in the logic
                    for p in preds:
                        self._empty(p)
            self._closed = True
            for p in preds:
                if self._use_fast_facts(p):
                    self._empty(p)
                p.prim = None
            for attr in ("Db", "Pred_registry", "Subgoals"):
                d = getattr(logic, attr, None)
                if d is not None:
                    d.clear()
            logic.Goal = logic.Tasks = logic.Recursive_Tasks = None
            self._preds = {}
            self._rule_clauses = {}
            self._unasserted = {}
            self._consts = {}
            self._logic = None
