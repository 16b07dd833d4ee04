"""The op table as Python reads it (the type rules, the DSL's op calls, the rewriter, the
words): the rows the rule files load.

The op table lives in one place, ``rules/ops.dl`` + ``rules/ops/*.facts`` (generated
from PyPTO's ``ops.json``); the rules read it as facts, and Python reads the same rows
here (through the shipped rule set), so the registry's output-memory rule of an op is
never written twice.
"""
from __future__ import annotations

from functools import lru_cache
__all__ = ["OpTable", "op_table"]


class OpTable:
    """The output-memory rule of each op (ops.json "output"), the op the pass inserts as a
    move (``op_inserted_move``) and the ops of other roles, the registered ops and the
    declared types of their attributes (``op_kwarg``), from the op table's rows."""

    def __init__(self, rows: dict):
        get = lambda rel: rows.get(rel, ())
        self.fixed = {op: space for op, space in get("op_output_fixed")}
        self.kwarg = {op: kw for op, kw in get("op_output_kwarg")}
        self.default = {op: space for op, space in get("op_output_default")}
        self.inherits = frozenset(op for (op,) in get("op_inherits_input"))
        self.no_rule = frozenset(op for (op,) in get("op_no_output_rule"))
        self.inserted_move = min(op for (op,) in get("op_inserted_move"))
        self.type_passthrough = {op: slot for op, slot in get("op_type_passthrough")}
        self.ops = frozenset(row[0] for row in get("op"))          # every registered op
        self.kwarg_types: dict[str, dict[str, str]] = {}           # op -> {attribute: C++ type}
        for op, kw, ty in get("op_kwarg"):
            self.kwarg_types.setdefault(op, {})[kw] = ty
        self._rows = rows

    def role(self, relation: str) -> str:
        """The op of a role relation (``op_chain_load``, ``op_fresh_tensor``, ...) that
        words name: the first by name."""
        return min(row[0] for row in self._rows.get(relation, ()))

    def output_rule(self, op: str) -> tuple:
        """``("fixed", S)`` | ``("kwarg", K, default or None)`` | ``("inherit",)`` |
        ``("none",)``; an op the table does not know stamps Vec (``("fixed", "Vec")``)."""
        if op in self.fixed:
            return ("fixed", self.fixed[op])
        if op in self.kwarg:
            return ("kwarg", self.kwarg[op], self.default.get(op))
        if op in self.inherits:
            return ("inherit",)
        if op in self.no_rule:
            return ("none",)
        return ("fixed", "Vec")


@lru_cache(maxsize=1)
def op_table() -> OpTable:
    """The shipped op table (the rule set is cached per process)."""
    from tilemem.datalog import RuleSet
    return OpTable(RuleSet.from_package().fact_rows)


def output_rule(op: str) -> tuple:
    return op_table().output_rule(op)
