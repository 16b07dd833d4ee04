"""Database: one isolated evaluation context for a RuleSet."""
from __future__ import annotations

import _thread          # (the locks of threading, without its ~4 M instructions of import)
import time
from itertools import chain
from collections import namedtuple

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterable, NamedTuple, Optional, Sequence, Union

from tilemem.datalog.budget import Budget, user_rule_indices
from tilemem.datalog.engine import Engine
from tilemem.datalog.location import value_key
from tilemem.datalog.errors import EngineUnavailable, FactError, QueryError
from tilemem.datalog.program import RuleSet

__all__ = ["Database", "QueryResult", "ENGINES", "DEFAULT_ENGINE", "engine_class"]

#: engine name -> class, or the "module:Class" that defines it (imported on first use,
#: so that an engine costs nothing until it is chosen).  The interface is in
#: tilemem.datalog.engine.
ENGINES: dict[str, Union[type, str]] = {
    "clingo": "tilemem.datalog.clingo_engine:ClingoEngine",
    "pydatalog": "tilemem.datalog.pydatalog_engine:PyDatalogEngine",
}

#: The engine used when none is named: clingo, chosen by measurement (bench/RESULTS.md:
#: 3x faster than pyDatalog on a 700-line kernel, 8x in rule evaluation at 10,000
#: statements).  pyDatalog, pure Python, stays supported and is checked against it.
DEFAULT_ENGINE = "clingo"

#: what to install for an engine whose package is missing
_ENGINE_PACKAGES = {"clingo": "clingo (pip install clingo)",
                    "pydatalog": "pyDatalog (pip install pyDatalog)"}


def engine_class(engine: Union[str, type]) -> type:
    """The engine class for a name of :data:`ENGINES` (or a class, returned as is).

    Raises :class:`EngineUnavailable` for an unknown name or a missing package."""
    if not isinstance(engine, str):
        return engine
    cls = ENGINES.get(engine)
    if cls is None:
        raise EngineUnavailable(f"unknown Datalog engine '{engine}' (choose one of: "
                                f"{', '.join(ENGINES)})")
    if isinstance(cls, str):
        import importlib
        module, _, name = cls.partition(":")
        try:
            cls = getattr(importlib.import_module(module), name)
        except ImportError as err:
            raise EngineUnavailable(f"the '{engine}' engine needs "
                                    f"{_ENGINE_PACKAGES.get(engine, err.name)}: {err}") from None
        ENGINES[engine] = cls
    return cls


# (collections' namedtuple at run time: typing is for the type checker only, see
# tilemem/__init__.py)
if TYPE_CHECKING:
    class QueryResult(NamedTuple):
        columns: tuple[str, ...]
        rows: list[tuple]
else:
    QueryResult = namedtuple("QueryResult", ["columns", "rows"])
QueryResult.__doc__ = """Answer of :meth:`Database.query`: the pattern's variables and their bindings."""


def _sorted(rows: Iterable[tuple]) -> list[tuple]:
    rows = list(rows)
    try:
        rows.sort()
    except TypeError:                      # a column mixes ints and strings
        rows.sort(key=lambda r: tuple(map(value_key, r)))
    return rows


class Database:
    """One isolated evaluation context: input facts + the rules of a :class:`RuleSet`.

    * ``add_facts(relation, rows)`` loads facts of an ``.input`` relation,
    * ``relation(name)`` / ``query(pattern)`` evaluate lazily (only the strata the
      answer depends on) and return sorted, deterministic results,
    * ``evaluate()`` computes every relation,
    * ``close()`` (or leaving a ``with`` block) frees the engine.

    Adding facts after something was evaluated is allowed: the engine is rebuilt
    from the facts kept on the Python side and results are recomputed on demand.
    A Database may be used from several threads (calls are serialised); different
    Databases never share state.

    ``table_rows``: relation -> the rows the rules are evaluated with in place of the
    rule files' rows of it (a solve gives the op table's rows of the ops its program
    names: see :func:`tilemem.infer.solver.table_rows_named`).  Reading such a relation
    back gives the rule files' rows.
    """

    def __init__(self, rules: RuleSet, engine: Union[str, type] = DEFAULT_ENGINE,
                 budget: Optional[Budget] = None, table_rows: Optional[dict] = None):
        if not isinstance(rules, RuleSet):
            raise TypeError(f"Database needs a RuleSet, not {type(rules).__name__}")
        self.rules = rules
        # the budget of the rules of user files (tilemem.datalog.budget); None: unbounded
        self.budget = budget
        if budget is not None:
            budget.rules = user_rule_indices(rules)
        self._engine_cls = engine_class(engine)
        self.engine = getattr(self._engine_cls, "name", str(engine))
        self._table_rows = table_rows
        self._lock = _thread.RLock()
        self._facts: dict[str, list[tuple]] = {}           # input relation -> distinct rows
        self._fact_sets: dict[str, set[tuple]] = {}        # built when a relation grows again
        self._results: dict[str, list[tuple]] = {}         # materialised relations, sorted
        self._lazy: set[str] = set()                       # solved, fetched from the engine on use
        self._solved: set[int] = set()                     # indices into rules.strata
        self._closed = False
        self.stats = {"facts": 0, "load_seconds": 0.0, "solve_seconds": 0.0,
                      "strata_solved": 0, "engine_builds": 0}
        self._engine: Optional[Engine] = None
        self._build_engine()

    # ------------------------------------------------------------------ lifecycle

    def _build_engine(self):
        t0 = time.perf_counter()
        self._engine = self._engine_cls(self.rules, self._table_rows)
        self._engine.budget = self.budget
        for pred, rows in self._facts.items():
            if rows:
                self._engine.add_facts(pred, rows)
        self.stats["engine_builds"] += 1
        self.stats["load_seconds"] += time.perf_counter() - t0

    def _check_open(self):
        if self._closed:
            raise RuntimeError("the Datalog database is closed")

    def close(self) -> None:
        """Free the engine and every stored relation.  Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._engine is not None:
                self._engine.close()
                self._engine = None
            self._facts = {}
            self._fact_sets = {}
            self._results = {}

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # ------------------------------------------------------------------ facts

    def add_facts(self, relation: str, rows: Iterable[Sequence[Union[int, str]]], *,
                  distinct: bool = False) -> int:
        """Add rows to an ``.input`` relation; returns how many were new.

        Every row must be a tuple (or list) of the relation's arity whose values are
        ``int`` or ``str`` (``bool`` and other types are refused).  Values are kept
        as Python values end to end: they are never turned into rule text.

        ``distinct=True``: the caller vouches that ``rows`` is a list of distinct tuples
        of ints and strings (the fact extractor's rows: it builds each fact once, from
        the IR).  The first rows of a relation are then loaded without the value checks
        and the de-duplication (0.3 s of the 21,000-line MTP kernel's 550,000 rows); the
        arity is still checked.  A duplicate that slipped through costs only its load
        and its count: every engine keeps one copy of a fact.  The list is kept, not
        copied: the caller must not change it afterwards.
        """
        if (distinct and type(rows) is list and relation not in self._facts
                and set(map(type, rows)) <= {tuple}):
            info = self.rules.predicates.get(relation)
            if info is not None and info.is_input and set(map(len, rows)) <= {info.arity}:
                with self._lock:
                    self._check_open()
                    if relation not in self._facts:
                        return self._add_new(relation, rows)
        return self._add_facts(relation, rows)

    def _add_new(self, relation: str, rows: list[tuple]) -> int:
        """Hand the checked rows of a relation that has none yet to the engine."""
        if not rows:
            return 0
        self._facts[relation] = rows
        self._load(relation, rows)
        return len(rows)

    def _load(self, relation: str, rows: list[tuple]) -> None:
        """Count new rows kept in ``self._facts`` and hand them to the engine."""
        self.stats["facts"] += len(rows)
        if self._solved:
            # results depend on the old facts: rebuild the engine lazily
            self._reset_engine()
        else:
            t0 = time.perf_counter()
            self._engine.add_facts(relation, rows)
            self.stats["load_seconds"] += time.perf_counter() - t0

    def _add_facts(self, relation: str, rows) -> int:
        with self._lock:
            self._check_open()
            info = self.rules.predicates.get(relation)
            if info is None:
                raise FactError(f"unknown relation '{relation}'")
            if not info.is_input:
                raise FactError(f"relation '{relation}' is not an .input relation")
            arity = info.arity
            # The rows are kept on the Python side (to rebuild the engine) as a list; the
            # set to deduplicate against is built only if the relation gets rows again
            # (a solve adds each relation once: a set per relation would be pure overhead).
            kept = self._facts.get(relation)
            if kept:
                existing = self._fact_sets.get(relation)
                if existing is None:
                    existing = self._fact_sets[relation] = set(kept)
            else:
                existing = frozenset()
            rows = rows if isinstance(rows, (list, tuple)) else list(rows)
            if (set(map(type, rows)) <= {tuple} and set(map(len, rows)) <= {arity}
                    and set(map(type, chain.from_iterable(rows))) <= {int, str}):
                # the common case, checked at C speed: tuples of ints and strings
                new = list(dict.fromkeys(rows))
                if existing:
                    new = [r for r in new if r not in existing]
            else:
                new = self._checked_rows(relation, arity, rows, existing)
            if not new:
                return 0
            if not kept:
                return self._add_new(relation, new)
            # a new list: the engine may hold the old one (engines keep the lists they
            # are given, uncopied, until they load them)
            self._facts[relation] = kept + new
            existing.update(new)
            self._load(relation, new)
            return len(new)

    @staticmethod
    def _checked_rows(relation: str, arity: int, rows, existing) -> list[tuple]:
        new: list[tuple] = []
        seen_new: set[tuple] = set()
        for n, row in enumerate(rows):
            if isinstance(row, (str, bytes)) or not isinstance(row, (tuple, list)):
                raise FactError(f"{relation}: row {n} must be a tuple, not {type(row).__name__}")
            if len(row) != arity:
                raise FactError(f"{relation}: row {n} has {len(row)} values, the relation "
                                f"has arity {arity}")
            for v in row:
                tv = type(v)
                if tv is not int and tv is not str:
                    if isinstance(v, bool) or not isinstance(v, (int, str)):
                        raise FactError(f"{relation}: row {n} has a value of type "
                                        f"{tv.__name__}; only int and str are allowed")
                    row = tuple(int(x) if isinstance(x, int) else str(x) for x in row)
                    break
            row = tuple(row)
            if row not in existing and row not in seen_new:
                seen_new.add(row)
                new.append(row)
        return new

    # ------------------------------------------------------------------ evaluation

    def _ensure(self, preds: Iterable[str]) -> None:
        rules = self.rules
        if len(self._solved) == len(rules.strata):
            return
        solved = self._solved
        todo = [i for i in rules.strata_of(preds) if i not in solved]
        if not todo:
            return
        if self._engine is None:
            self._build_engine()
        if getattr(self._engine, "batch", False):
            # engines that evaluate many strata in one go (clingo): hand them over at
            # once, fetch each relation when it is read
            comps = [rules.strata[i] for i in todo if rules.predicates[rules.strata[i][0]].is_derived]
            t0 = time.perf_counter()
            try:
                self._engine.solve_many(comps)
            except BaseException:
                self._reset_engine()
                raise
            self.stats["solve_seconds"] += time.perf_counter() - t0
            for comp in comps:
                self._lazy.update(comp)
        for i in todo:
            comp = rules.strata[i]
            if rules.predicates[comp[0]].is_derived:
                if getattr(self._engine, "batch", False):
                    pass
                else:
                    t0 = time.perf_counter()
                    try:
                        solved = self._engine.solve(comp)
                    except BaseException:
                        # the engine may be half-way through materialising: start afresh
                        self._reset_engine()
                        raise
                    self.stats["solve_seconds"] += time.perf_counter() - t0
                    for pred, rows in solved.items():
                        self._results[pred] = _sorted(rows)
            else:
                # a base relation (Python facts + rule-file facts): sorted when read, not
                # here (a solve never reads back its half a million input rows)
                self._lazy.update(comp)
            self._solved.add(i)
            self.stats["strata_solved"] += 1

    def _reset_engine(self):
        if self._engine is not None:
            self._engine.close()
        self._engine = None
        self._results = {}
        self._lazy = set()
        self._solved = set()

    def _result(self, name: str) -> list[tuple]:
        rows = self._results.get(name)
        if rows is None and name in self._lazy:
            t0 = time.perf_counter()
            if self.rules.predicates[name].is_derived:
                rows = self._engine.rows(name)
            else:
                rows = set(self._facts.get(name, ())).union(self.rules.fact_rows.get(name, ()))
            rows = self._results[name] = _sorted(rows)
            self._lazy.discard(name)
            self.stats["solve_seconds"] += time.perf_counter() - t0
        return rows

    def evaluate(self) -> "Database":
        """Compute every relation now (relation() and query() do it lazily)."""
        with self._lock:
            self._check_open()
            self._ensure(self.rules.predicates)
            return self

    def relation(self, name: str) -> list[tuple]:
        """All tuples of a relation, sorted (ints before strings), deterministic."""
        with self._lock:
            self._check_open()
            if name not in self.rules.predicates:
                raise KeyError(f"unknown relation '{name}'")
            self._ensure([name])
            return list(self._result(name))

    def relations(self, names: Optional[Iterable[str]] = None) -> dict[str, list[tuple]]:
        """name -> sorted tuples, for the named relations (default: every relation).

        The strata they need are evaluated together: an engine that evaluates many
        strata in one go (clingo) grounds once instead of once per relation."""
        with self._lock:
            self._check_open()
            names = list(self.rules.predicates if names is None else names)
            for name in names:
                if name not in self.rules.predicates:
                    raise KeyError(f"unknown relation '{name}'")
            self._ensure(names)
            return {name: list(self._result(name)) for name in names}

    # ------------------------------------------------------------------ queries

    def query(self, pattern: str) -> QueryResult:
        """Answer a pattern typed by a user, e.g. ``space(V, "Acc")``.

        The pattern is one atom of the rule language (strings, integers, variables,
        ``_``); it is parsed with the rules' grammar, so its constants are plain
        data whatever they contain.  Returns ``(columns, rows)``: the pattern's
        named variables in order of first appearance, and the sorted distinct
        bindings.  A pattern without variables answers ``[()]`` if it holds, else
        ``[]``.  Raises :class:`QueryError` for a bad pattern.
        """
        from tilemem.datalog.syntax import parse_query   # the rule parser: only for queries
        atom = parse_query(pattern)
        return self.query_atom(atom)

    def query_atom(self, atom: Atom) -> QueryResult:
        """Like :meth:`query` for an already-built :class:`Atom`."""
        from tilemem.datalog.syntax import Const
        with self._lock:
            self._check_open()
            info = self.rules.predicates.get(atom.pred)
            col = atom.loc.col if atom.loc else None
            if info is None:
                raise QueryError(f"unknown predicate '{atom.pred}'", col)
            if info.arity != atom.arity:
                raise QueryError(f"predicate '{atom.pred}' has arity {info.arity}, the query "
                                 f"gives {atom.arity} argument{'s' if atom.arity != 1 else ''}", col)
            pattern = []
            columns: list[str] = []
            first: list[int] = []
            for i, t in enumerate(atom.args):
                if isinstance(t, Const):
                    pattern.append(("const", t.value))
                elif t.is_anonymous:
                    pattern.append(("var", None))
                else:
                    pattern.append(("var", t.name))
                    if t.name not in columns:
                        columns.append(t.name)
                        first.append(i)
            self._ensure([atom.pred])
            if self._engine is None:
                self._build_engine()
            rows = self._engine.lookup(atom.pred, pattern)
            projected = {tuple(r[i] for i in first) for r in rows}
            return QueryResult(tuple(columns), _sorted(projected))

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{self.stats['facts']} facts"
        return f"<Database {state}, {self.rules!r}>"
