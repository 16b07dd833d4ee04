"""Evaluation engines behind :class:`~tilemem.datalog.Database`.

The interface is deliberately narrow so that another engine could be added later:
the Database validates and deduplicates facts, walks the strata, keeps the
materialised relations as Python tuples, and asks an engine only to

* ``add_facts(pred, rows)``   -- load new, validated, duplicate-free rows of a relation,
* ``solve(component)``        -- compute every predicate of one stratum (a strongly
                                 connected component of the dependency graph) after all
                                 lower strata were solved, returning their full relations,
* ``lookup(pred, pattern)``   -- the rows of a solved or base relation that match a
                                 pattern of constants and variables,
* ``close()``                 -- free everything.

Two engines implement it: :class:`~tilemem.datalog.clingo_engine.ClingoEngine` (the
default) and :class:`~tilemem.datalog.pydatalog_engine.PyDatalogEngine`.  Each lives in
its own module, imported only when it is chosen.
"""
from __future__ import annotations

import gc
import _thread          # (the locks of threading, without its ~4 M instructions of import)
from abc import ABC, abstractmethod
from contextlib import contextmanager
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Sequence

from tilemem.datalog.program import RuleSet
from tilemem.datalog.location import value_key

__all__ = ["Engine", "PatternTerm", "gc_paused", "aggregate_table",
           "aggregate_value"]

#: A lookup pattern element: ``("const", value)`` or ``("var", name)`` (name None = anonymous).
PatternTerm = tuple


class Engine(ABC):
    """What a Database needs from an evaluation engine (see module docstring)."""

    name = "abstract"
    #: the engine keeps memory past close() for the life of the process (clingo's
    #: symbols): a large one-shot evaluation is worth running in a child process
    #: (tilemem.datalog.forked)
    retains_memory = False

    @abstractmethod
    def __init__(self, rules: RuleSet, table_rows: Optional[dict] = None):
        """``table_rows``: relation -> the rows the evaluation takes in place of the rule
        files' rows of it (a solve that loads only what its rules read: see
        :class:`tilemem.datalog.database.Database`)."""

    @abstractmethod
    def add_facts(self, pred: str, rows: Sequence[tuple]) -> None: ...

    @abstractmethod
    def solve(self, component: Sequence[str]) -> dict[str, list[tuple]]: ...

    @abstractmethod
    def lookup(self, pred: str, pattern: Sequence[PatternTerm]) -> list[tuple]: ...

    @abstractmethod
    def close(self) -> None: ...


# ----------------------------------------------------------------------------- GC pause

_gc_lock = _thread.allocate_lock()

_gc_users = 0
_gc_was_enabled = False


@contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector while pyDatalog runs.

    pyDatalog allocates millions of small objects (clauses, literals, subgoals) while
    answering a query; the collector keeps re-traversing them and evaluation is 2-3x
    slower with the default thresholds (about 1.6x slower even with a gen-0 threshold
    of 100,000).  The cycles pyDatalog creates (its subgoal graph) only become garbage
    when a query ends, so pausing costs little memory: everything allocated during the
    pause stays in generation 0 and is examined by the first collection afterwards.

    ``gc.disable()`` is process-wide, so nested and concurrent users (threads) are
    reference-counted: the collector is re-enabled by the last one out, and only if it
    was enabled when the first one came in.
    """
    global _gc_users, _gc_was_enabled
    with _gc_lock:
        if _gc_users == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_was_enabled:
                gc.enable()


# ----------------------------------------------------------------------------- aggregates


def aggregate_value(func: str, values: Sequence):
    """The value of an aggregate over the values of its distinct matches (one entry per
    match; None for count), or None when min/max range over nothing.

    min and max follow the rule language's order (integers before strings); sum adds
    integers (TypeError otherwise); count and sum of nothing are 0."""
    if func == "count":
        return len(values)
    if func == "sum":
        if any(type(v) is not int for v in values):
            raise TypeError("sum of a non-integer value")
        return sum(values)
    if not values:
        return None
    return (min if func == "min" else max)(values, key=value_key)


def aggregate_table(func: str, rows, ngroup: int, target: Optional[int], constant=None) -> dict:
    """group -> value of an aggregate over the distinct matches of its body.

    ``rows`` are the matches (group columns first); ``target`` is the column of the
    aggregated value (None: the constant ``constant``, or nothing for count)."""
    groups: dict[tuple, list] = {}
    for row in set(map(tuple, rows)):
        groups.setdefault(row[:ngroup], []).append(row[target] if target is not None else constant)
    return {g: aggregate_value(func, values) for g, values in groups.items()}
