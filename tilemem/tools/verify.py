"""Check the ``TileMemoryInferred`` property on a program as written.

The property is stated in ``rules/verify.dl`` (relations ``unannotated_tile`` and
``operand_violation``).  This module only runs those rules over the facts of the
program as written and maps each derived row back to the source: ``pos`` to the
statement (the extraction's statement index), the slot to the argument's own line and column.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from tilemem import ir
from tilemem.datalog import DEFAULT_ENGINE, Database
from tilemem.errors import TilememError
from tilemem.facts.extract import extract
from tilemem.infer.solver import load_rules, budget_for


@dataclass(frozen=True)
class Violation:
    """One violation of the property, located in the source.

    ``kind`` is ``"unannotated"`` (a tile var defined by an assignment has no space)
    or ``"operand"`` (a constrained operand lies outside its slot's allowed spaces;
    then ``op``, ``slot``, ``allowed`` and ``space`` are set).
    """
    path: str
    line: Optional[int]
    col: Optional[int]
    kind: str
    function: str
    var: str
    op: Optional[str] = None
    slot: Optional[int] = None
    allowed: tuple[str, ...] = ()
    space: Optional[str] = None

    @property
    def message(self) -> str:
        if self.kind == "unannotated":
            via = f" (defined by {self.op})" if self.op else ""
            return f"tile var {self.var}{via} has no memory space"
        return (f"{self.op} input {self.slot} ({self.var}) requires {'/'.join(self.allowed)} "
                f"but is in {self.space}")

    def error(self, source: Optional[str] = None) -> TilememError:
        """The violation as a TilememError (``.format()`` adds the source line and caret)."""
        return TilememError(self.path, self.line, self.col, self.message, source=source)

    def format(self, source: Optional[str] = None) -> str:
        return self.error(source).format()

    def __str__(self) -> str:
        return self.error().format_first_line()


def _call_of(stmt: ir.Stmt) -> Optional[ir.Call]:
    value = stmt.value if isinstance(stmt, ir.Assign) else getattr(stmt, "expr", None)
    return value if isinstance(value, ir.Call) else None


def verify(program: ir.Program, path: str = "<input>",
           extra_rules: Sequence[str] = (), engine: Optional[str] = None) -> list[Violation]:
    """Every violation of TileMemoryInferred in ``program``, in source order
    (``engine``: the Datalog engine, default ``tilemem.datalog.DEFAULT_ENGINE``)."""
    stmts: dict = {}
    facts = extract(program, None, stmts=stmts)
    rules = load_rules(extra_rules)
    with Database(rules, engine=engine or DEFAULT_ENGINE, budget=budget_for(rules)) as db:
        for pred, rows in facts.items():
            if rows:
                db.add_facts(pred, rows)
        unannotated = db.relation("unannotated_tile")
        violations = db.relation("operand_violation")
        allowed: dict[tuple[str, int], list[tuple[int, str]]] = {}
        if violations:
            for op, slot, k, space in db.relation("op_input"):
                allowed.setdefault((op, slot), []).append((k, space))

    out: list[Violation] = []
    for pos, var in unannotated:
        fn, stmt = stmts[pos]
        call = _call_of(stmt)
        out.append(Violation(path, stmt.line, stmt.col, "unannotated", fn, facts.vars[var][1],
                             op=(call.op or call.func) if call else None))
    for pos, slot, var, op, space in violations:
        fn, stmt = stmts[pos]
        line, col = stmt.line, stmt.col
        call = _call_of(stmt)
        if call is not None and slot < len(call.args):
            arg = call.args[slot]
            if getattr(arg, "line", None) is not None:
                line, col = arg.line, arg.col
        spaces = tuple(s for _, s in sorted(allowed.get((op, slot), [])))
        out.append(Violation(path, line, col, "operand", fn, facts.vars[var][1], op=op,
                             slot=slot, allowed=spaces, space=space))
    out.sort(key=lambda v: (v.line or 0, v.col or 0, v.slot if v.slot is not None else -1))
    return out
