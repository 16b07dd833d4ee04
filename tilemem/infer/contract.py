"""Where PyPTO's own answer breaks its contract, as warnings.

The rules decide it (``rules/p2_moves.dl``, ``contract_break``): a constrained operand that
PyPTO leaves in a space its op does not accept — the consumer is the only statement of a
loop, branch or scope body, where PyPTO inserts no ``tile.move``.  tilemem prints PyPTO's
exact answer and says so; this module only words the derived rows and locates them at
the offending argument.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.facts.extract import Facts, StatementIndex
from tilemem.records import Record, record

CONTRACT_CODE = "contract-break"


@record(frozen=True)
class ContractBreak(Record):
    """One operand PyPTO's output leaves outside the spaces its op accepts."""
    def __init__(self, function: str, var: str, op: str, slot: int, space: str, reason: str,
                 line: Optional[int], col: Optional[int]):
        self.function, self.var, self.op = function, var, op
        self.slot, self.space, self.reason = slot, space, reason
        self.line, self.col = line, col

    @property
    def message(self) -> str:
        return (f"{self.op} input {self.slot} ({self.var}) stays in {self.space}: {self.reason}; "
                "TileMemoryInferred does not hold here")


def contract_breaks(facts: Facts, stmts: StatementIndex, rows) -> list[ContractBreak]:
    """The ``contract_break(pos, slot, var, op, space, reason)`` rows, in source order."""
    out = []
    for p, slot, vid, op, space, reason in rows:
        fn, stmt = stmts[p]
        call = stmt.value if isinstance(stmt, ir.Assign) else getattr(stmt, "expr", None)
        arg = call.args[slot] if isinstance(call, ir.Call) and slot < len(call.args) else None
        line = getattr(arg, "line", None) or getattr(stmt, "line", None)
        col = getattr(arg, "col", None) if getattr(arg, "line", None) else None
        out.append(ContractBreak(fn, facts.vars[vid][1], op, slot, space, reason, line, col))
    out.sort(key=lambda b: (b.line or 0, b.col or 0, b.function, b.slot))
    return out
