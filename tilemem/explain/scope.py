"""Which function each fact of a program belongs to, so that an answer about a var
shows only facts of that var's function (and of the functions that call it).

A value names a function when it is a var id (``"kernel:x"``), a function's name, or
an integer in a column that holds statement positions, statement lists, uses or call
sites (found from the input relations' column names, as the source map finds
positions).  A fact's functions are those its values name; a call site names both
its caller and its callee.  Values of no function (spaces, op names, indices, sizes)
say nothing.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from tilemem.explain.sourcemap import infer_columns

# the input columns whose integers identify something of one function
_INT_KINDS = {"stmt": ("pos", "end"), "list": ("list",), "use": ("use",), "site": ("site",)}


class Scope:
    """The functions of every fact of one fact extraction (see the module docstring)."""

    def __init__(self, facts, rules):
        self.facts = facts
        self.columns = {kind: infer_columns(rules, names) for kind, names in _INT_KINDS.items()}
        rows = facts.rows
        self.functions = {f for f, _ in facts.vars.values()} | {p[1] for p in rows.get("stmt", [])} \
            | {r[0] for r in rows.get("func_kind", [])}
        of: dict[str, dict[int, frozenset]] = {k: {} for k in _INT_KINDS}
        for pos, fn, _, _ in rows.get("stmt", []):
            of["stmt"][pos] = frozenset((fn,))
        for pos, end in rows.get("stmt_end", []):
            if pos in of["stmt"]:
                of["stmt"][end] = of["stmt"][pos]
        for pos, _, _, lst in rows.get("stmt", []):
            if pos in of["stmt"]:
                of["list"][lst] = of["stmt"][pos]
        for lst, pos in rows.get("list_in_stmt", []):
            if pos in of["stmt"]:
                of["list"][lst] = of["stmt"][pos]
        for var, use, _, _ in rows.get("use", []):
            fn = self._var_function(var)
            if fn:
                of["use"][use] = frozenset((fn,))
        for site, caller, callee in rows.get("callsite", []):
            of["site"][site] = frozenset((caller, callee))
        self._of = of
        self.neighbours: dict[str, set[str]] = {}
        for caller, callee in [r[1:] for r in rows.get("callsite", [])] + list(rows.get("submit_site", [])):
            self.neighbours.setdefault(callee, set()).add(caller)
            self.neighbours.setdefault(caller, set()).add(callee)

    def _var_function(self, value) -> Optional[str]:
        if not isinstance(value, str):
            return None
        entry = self.facts.vars.get(value)
        if entry:
            return entry[0]
        fn, sep, _ = value.partition(":")
        return fn if sep and fn in self.functions else None

    def of_fact(self, pred: str, row: Sequence) -> set[str]:
        """The functions the values of ``pred(row)`` name."""
        out: set[str] = set()
        for i, v in enumerate(row):
            if isinstance(v, str):
                fn = self._var_function(v)
                if fn:
                    out.add(fn)
                elif v in self.functions:
                    out.add(v)
            elif isinstance(v, int) and not isinstance(v, bool):
                for kind, cols in self.columns.items():
                    if i in cols.get(pred, ()):
                        out |= self._of[kind].get(v, frozenset())
        return out

    def around(self, function: str) -> frozenset:
        """The function and those it calls or is called by (or submits, or is submitted
        by): what an answer about one of its vars may show (the call sites are where its
        parameters' storage is proven, its calls where it may write)."""
        return frozenset({function} | self.neighbours.get(function, set()))

    def admits(self, pred: str, row: Sequence, functions: Iterable[str]) -> bool:
        """Whether every function ``pred(row)`` names is one of ``functions``."""
        return self.of_fact(pred, row) <= set(functions)
