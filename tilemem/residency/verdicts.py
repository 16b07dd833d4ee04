"""Phase 4 verdicts in words: for every marked Mat load and exact-chain step inside
a loop, "hoisted out of loop L" or the first residency rule that refused it.

The verdicts are derived by ``rules/p4_residency.dl`` (``residency_hoisted`` and
``residency_declined(pos, var, loop, code, detail)``); this module only turns the
code and its detail into a sentence with source lines.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Optional

from tilemem import ir
from tilemem.facts.extract import Facts


@dataclass(frozen=True)
class ResidencyDecision:
    function: str
    var: str
    line: Optional[int]          # the statement's line in the input
    loop_line: Optional[int]     # the line of the loop it sits in
    hoisted: bool
    code: str                    # "hoisted" or the refusing rule's code
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "?"
        return f"{self.function}: {self.var} ({where}): {self.reason}"


def _line(facts: Facts, pos) -> Optional[int]:
    entry = facts.stmts.get(pos) if isinstance(pos, int) else None
    return getattr(entry[1], "line", None) if entry else None


def _name(vid) -> str:
    return str(vid).split(":", 1)[-1]


def _stmt_text(facts: Facts, pos) -> str:
    from tilemem.ir.printer import print_stmt
    entry = facts.stmts.get(pos) if isinstance(pos, int) else None
    if not entry:
        return "a statement"
    stmt = entry[1]
    if isinstance(stmt, (ir.For, ir.If, ir.While, ir.With)):
        text = print_stmt(stmt).split("\n")[0]
    else:
        text = print_stmt(stmt).strip().split("\n")[-1]
    return text if len(text) <= 80 else text[:77] + "..."


def _site(facts: Facts, site) -> tuple[str, list[tuple[int, str]]]:
    """(caller, [(index, actual name)]) of a call site."""
    caller = next((c for s, c, _ in facts.rows.get("callsite", []) if s == site), "?")
    args = sorted((i, _name(v)) for s, i, v in facts.rows.get("callsite_arg", []) if s == site)
    return caller, args


def _reason(code: str, detail, src: str, fn: str, facts: Facts, loop_line, capacity) -> str:
    loop = f"the loop at line {loop_line}" if loop_line else "the loop"
    if code == "nested":
        return f"not a top-level statement of {loop}'s body (it is inside a branch or scope)"
    if code == "loop_kind":
        return f"{loop} is pl.{detail}, not a sequential pl.range"
    if code == "dynamic_bounds":
        return f"{loop} has non-constant bounds, so it may run zero times"
    if code == "zero_trip":
        return f"{loop} runs zero times (start >= stop)"
    if code == "nonpositive_step":
        return f"{loop} has a step that is not positive"
    if code == "boundary_call":
        return f"{loop} contains a call to `{detail}`, which may hide an ordering effect"
    if code == "boundary_submit":
        return f"{loop} contains a task submit"
    if code == "boundary_op":
        return f"{loop} contains `{detail}`, an ordering boundary (sync, cross-core or unknown op)"
    if code == "prefix_closed":
        return (f"`{_stmt_text(facts, detail)}` (line {_line(facts, detail)}) comes first and "
                "closes the hoistable prefix of the loop body")
    if code == "yielded":
        return "its value is yielded (loop-carried)"
    if code == "not_stationary":
        return ("not a stationary matmul operand: the load feeds neither an exact single-use chain "
                "to a matching matmul operand nor a read-only matmul panel")
    if code == "source_direction":
        return f"source `{src}` is an {detail} parameter (only In sources can stay resident)"
    if code == "source_not_param":
        return f"source `{_name(detail)}` is not a parameter of `{fn}`"
    if code == "no_callsite":
        return f"`{detail}` has no call site, so nothing proves source `{src}` read-only"
    if code == "submitted":
        return f"`{detail}` is launched with a submit, which gives no alias evidence"
    if code == "non_root_caller":
        return f"`{fn}` is called from `{detail}`, which is not a root orchestration function"
    if code == "external_source":
        caller, args = _site(facts, detail)
        outs = [a for i, a in args if _is_writable(facts, fn, i)]
        against = f"`{outs[0]}`" if outs else "the outputs"
        return (f"source `{src}` is an external parameter at the call in `{caller}`: no tensor.create "
                f"proves it does not alias {against}")
    if code == "unknown_write_root":
        caller, _ = _site(facts, detail)
        return f"a writable actual at the call in `{caller}` has an unknown storage root"
    if code == "write_alias":
        caller, _ = _site(facts, detail)
        return f"at the call in `{caller}` a writable actual shares source `{src}`'s storage"
    if code == "root_written":
        return f"`{fn}` writes the storage of source `{src}`"
    if code == "loop_variant":
        return f"operand `{_name(detail)}` is defined inside the loop"
    if code == "capacity_unknown":
        return (f"{detail} capacity cannot be bounded (an allocation of unknown size, a pipelined "
                "loop, or system.reserve_buffer)")
    if code == "capacity_exceeded":
        total, cap = capacity(fn, detail)
        return f"{detail} footprint {total} B exceeds {cap} B"
    if code == "unmarked":
        return ("a user-written tile.load (no compiler bridge mark): residency never moves "
                "explicit tile programs")
    if code == "source_manual":
        return f"its source `{_name(detail)}` is a user-written tile.load, which stays in the loop"
    if code == "source_not_hoisted":
        return f"its source `{_name(detail)}` stays in the loop"
    return "refused by no named rule (please report this)"


def _is_writable(facts: Facts, fn: str, index: int) -> bool:
    return any(f == fn and i == index and d in ("Out", "InOut")
               for f, i, _, d in facts.rows.get("param", []))


def decisions(facts: Facts, rel) -> list[ResidencyDecision]:
    """Turn the derived verdicts (``rel(name) -> rows``) into sentences, in program order."""
    totals = {(f, s): t for f, s, t in rel("total_footprint")}
    caps = {s: c for _, s, c in rel("backend_capacity")}

    def capacity(fn, space):
        return totals.get((fn, space), "?"), caps.get(space, "?")

    hoisted, declined = rel("residency_hoisted"), rel("residency_declined")
    out: list[tuple[int, ResidencyDecision]] = []
    for pos, vid, loop in hoisted:
        fn = facts.stmts[pos][0]
        ll = _line(facts, loop)
        out.append((pos, ResidencyDecision(fn, _name(vid), _line(facts, pos), ll, True, "hoisted",
                                           f"hoisted out of the loop at line {ll}" if ll
                                           else "hoisted out of its loop")))
    seen = set()
    for pos, vid, loop, code, detail in sorted(declined, key=lambda r: (r[0], str(r[3]), str(r[4]))):
        if pos in seen:
            continue
        seen.add(pos)
        fn = facts.stmts[pos][0]
        stmt = facts.stmts[pos][1]
        src = ""
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call) and stmt.value.args:
            a0 = stmt.value.args[0]
            src = a0.id if isinstance(a0, ir.Name) else ""
        ll = _line(facts, loop)
        out.append((pos, ResidencyDecision(fn, _name(vid), _line(facts, pos), ll, False, code,
                                           _reason(code, detail, src, fn, facts, ll, capacity))))
    return [d for _, d in sorted(out, key=lambda x: x[0])]
