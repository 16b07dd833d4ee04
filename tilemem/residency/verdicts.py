"""Phase 4 verdicts in words: for every marked Mat load and exact-chain step inside
a loop, "hoisted out of loop L", or every refusal that holds, most fundamental first.

The verdicts are derived by ``rules/p4_residency.dl``: ``residency_hoisted`` and
``residency_refusal(pos, var, loop, rank, code, detail)`` (one row per reason, ranked by
the rules).  This module only turns each code and its detail into a sentence with
source lines, and says what would make the statement legal where a change of the
program could.
"""
from __future__ import annotations

from typing import Optional

from tilemem import ir
from tilemem.facts.extract import Facts
from tilemem.records import Record, record


@record(frozen=True)
class Refusal(Record):
    """One reason a statement stays in its loop."""
    def __init__(
            self,
            rank: int,                  # the rules' rank: lower is more fundamental
            code: str,                  # the refusal rule's code
            detail: object,             # what it is about: a var's name, a callee, a caller, a space
            reason: str,                # the reason in words
            fix: Optional[str] = None,  # what would lift this reason, where a program change can
    ):
        self.rank, self.code, self.detail = rank, code, detail
        self.reason, self.fix = reason, fix

    def to_dict(self) -> dict:
        from dataclasses import asdict      # imported when a verdict is shown as JSON
        return asdict(self)


@record(frozen=True)
class ResidencyDecision(Record):
    def __init__(
            self,
            function: str,
            var: str,
            line: Optional[int],                 # the statement's line in the input
            loop_line: Optional[int],            # the line of the loop it sits in
            hoisted: bool,
            code: str,                           # "hoisted" or the most fundamental refusal's code
            reason: str,                         # the verdict, or the most fundamental refusal in words
            refusals: tuple[Refusal, ...] = (),  # every refusal, most fundamental first
            fix: Optional[str] = None,           # what would make it legal: every refusal's fix, if each has one
    ):
        self.function, self.var, self.line = function, var, line
        self.loop_line, self.hoisted, self.code = loop_line, hoisted, code
        self.reason, self.refusals, self.fix = reason, refusals, fix

    def to_dict(self) -> dict:
        from dataclasses import asdict      # imported when a verdict is shown as JSON
        return asdict(self)

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "?"
        return f"{self.function}: {self.var} ({where}): {self.reason}"

    def report_lines(self) -> list[str]:
        """The verdict as compiler notes (without the ``path:line: note:`` prefix)."""
        lines = [f"{self.function}: {self.var}: {self.reason}"]
        lines.extend(f"  and: {r.reason}" for r in self.refusals[1:])
        if self.fix:
            lines.append(f"  to hoist it: {self.fix}")
        return lines


# refusals whose detail is a call site (shown as the calling function)
SITE_CODES = ("write_alias", "unknown_write_root", "external_source")


def _name(vid) -> str:
    return str(vid).split(":", 1)[-1]


class _Words:
    """The program facts a reason's words need (lines, statement text, call sites)."""

    def __init__(self, facts: Facts, rel):
        self.facts = facts
        self.totals = {(f, s): t for f, s, t in rel("total_footprint")}
        self.caps = {s: c for _, s, c in rel("backend_capacity")}
        self.def_line: dict[str, int] = {}
        for pos, vid in facts.rows.get("defines", []):
            line = self.line(pos)
            if line is not None:
                self.def_line.setdefault(vid, line)

    def line(self, pos) -> Optional[int]:
        entry = self.facts.stmts.get(pos) if isinstance(pos, int) else None
        return getattr(entry[1], "line", None) if entry else None

    def stmt_text(self, pos) -> str:
        from tilemem.ir.printer import print_stmt
        entry = self.facts.stmts.get(pos) if isinstance(pos, int) else None
        if not entry:
            return "a statement"
        stmt = entry[1]
        if isinstance(stmt, (ir.For, ir.If, ir.While, ir.With)):
            text = print_stmt(stmt).split("\n")[0]
        else:
            text = print_stmt(stmt).strip().split("\n")[-1]
        return text if len(text) <= 80 else text[:77] + "..."

    def _index(self, name: str, build):
        """A lookup table over the facts, built on first use (a program has thousands of
        parameters and call sites; a verdict's words look at a few)."""
        got = self.__dict__.get(name)
        if got is None:
            got = self.__dict__[name] = build(self.facts.rows)
        return got

    def site(self, site) -> tuple[str, list[tuple[int, str]]]:
        """(caller, [(index, actual name)]) of a call site."""
        def build(rows):
            callers, args = {}, {}
            for s, c, _ in rows.get("callsite", []):
                callers.setdefault(s, c)
            for s, i, v in rows.get("callsite_arg", []):
                args.setdefault(s, []).append((i, _name(v)))
            return callers, args
        callers, args = self._index("_sites", build)
        return callers.get(site, "?"), sorted(args.get(site, ()))

    def _params(self) -> dict:
        """function -> [(index, var, direction)] in fact order."""
        def build(rows):
            out: dict = {}
            for f, i, v, d in rows.get("param", []):
                out.setdefault(f, []).append((i, v, d))
            return out
        return self._index("_param_index", build)

    def is_writable(self, fn: str, index: int) -> bool:
        return any(i == index and d in ("Out", "InOut") for i, _, d in self._params().get(fn, ()))

    def actual(self, site, fn: str, src: str) -> Optional[str]:
        """The caller's actual passed at a call site for ``fn``'s parameter ``src``."""
        index = next((i for i, v, _ in self._params().get(fn, ()) if _name(v) == src), None)
        return next((a for i, a in self.site(site)[1] if i == index), None)

    def where_defined(self, vid) -> str:
        line = self.def_line.get(vid)
        return f" (line {line})" if line else ""


def _op(role: str) -> str:
    """The op the words name for a role of the op table (``op_chain_load``: tile.load)."""
    from tilemem.ir.optable import op_table
    return op_table().role(role)


def _words(code: str, detail, src: str, fn: str, w: _Words, loop_line) -> tuple[str, Optional[str]]:
    """(reason, fix) of one refusal; fix is None where no change of the program lifts it."""
    loop = f"the loop at line {loop_line}" if loop_line else "the loop"
    if code == "unmarked":
        return (f"a user-written {_op('op_chain_load')} (no compiler bridge mark): residency "
                "never moves explicit tile programs"), None
    if code == "not_incore":
        return f"`{detail}` is not an InCore function", None
    if code == "not_stationary":
        return ("not a stationary matmul operand: the load feeds neither an exact single-use chain "
                "to a matching matmul operand nor a read-only matmul panel"), None
    if code == "loop_kind":
        return f"{loop} is pl.{detail}, not a sequential pl.range", "write the loop as pl.range"
    if code == "dynamic_bounds":
        return (f"{loop} has non-constant bounds, so it may run zero times",
                "give the loop constant bounds")
    if code == "zero_trip":
        return f"{loop} runs zero times (start >= stop)", None
    if code == "nonpositive_step":
        return f"{loop} has a step that is not positive", "use a positive step"
    if code == "boundary_call":
        return (f"{loop} contains a call to `{detail}`, which may hide an ordering effect",
                f"move the call to `{detail}` out of the loop")
    if code == "boundary_submit":
        return f"{loop} contains a task submit", "move the submit out of the loop"
    if code == "boundary_op":
        return (f"{loop} contains `{detail}`, an ordering boundary (sync, cross-core or unknown op)",
                f"move `{detail}` out of the loop")
    if code == "loop_variant":
        return (f"operand `{_name(detail)}` is the loop variable or an iter-arg: it differs "
                "every iteration"), None
    if code == "loop_local":
        return (f"operand `{_name(detail)}` is computed inside the loop{w.where_defined(detail)}",
                f"compute `{_name(detail)}` before the loop")
    if code == "yielded":
        return "its value is yielded (loop-carried)", None
    if code == "nested":
        return (f"not a top-level statement of {loop}'s body (it is inside a branch or scope)",
                "move it to the top level of the loop body")
    if code == "prefix_closed":
        line = w.line(detail)
        return ((f"`{w.stmt_text(detail)}` (line {line}) comes first and closes the hoistable "
                 "prefix of the loop body"), f"place it before line {line}")
    if code == "source_manual":
        return (f"its source `{_name(detail)}` is a user-written {_op('op_chain_load')}, which "
                "stays in the loop"), None
    if code == "source_not_hoisted":
        return f"its source `{_name(detail)}`{w.where_defined(detail)} stays in the loop", None
    if code == "capacity_exceeded":
        total, cap = w.totals.get((fn, detail), "?"), w.caps.get(detail, "?")
        return f"{detail} footprint {total} B exceeds {cap} B", f"use smaller {detail} tiles in `{fn}`"
    if code == "capacity_unknown":
        return ((f"{detail} capacity cannot be bounded (an allocation of unknown size, a pipelined "
                 f"loop, or {_op('op_reserves_buffer')})"), None)
    if code == "source_not_param":
        what = f"source `{_name(detail)}`" if detail else "its source"
        return f"{what} is not a parameter of `{fn}`", None
    if code == "source_direction":
        return (f"source `{src}` is an {detail} parameter (only In sources can stay resident)",
                f"pass `{src}` as an In parameter")
    if code == "source_not_tensor":
        return f"source `{_name(detail)}` is not a tensor parameter", None
    if code == "root_written":
        return f"`{fn}` writes the storage of source `{src}`", None
    if code == "write_alias":
        caller, _ = w.site(detail)
        return (f"at the call in `{caller}` a writable actual shares source `{src}`'s storage",
                f"pass distinct buffers at the call in `{caller}`")
    if code == "submitted":
        return (f"`{detail}` is launched with a submit, which gives no alias evidence",
                f"call `{detail}` directly from the root orchestration function")
    if code == "non_root_caller":
        return (f"`{fn}` is called from `{detail}`, which is not a root orchestration function",
                f"call `{fn}` directly from the root orchestration function")
    if code == "no_callsite":
        return (f"`{detail}` has no call site, so nothing proves source `{src}` read-only",
                f"call `{detail}` from the root orchestration function")
    if code == "unknown_write_root":
        caller, _ = w.site(detail)
        return (f"a writable actual at the call in `{caller}` has an unknown storage root",
                f"pass `{fn}` outputs created with pl.create_tensor in `{caller}`")
    if code == "external_source":
        caller, args = w.site(detail)
        outs = [a for i, a in args if w.is_writable(fn, i)]
        against = f"`{outs[0]}`" if outs else "the outputs"
        actual = w.actual(detail, fn, src) or src
        return ((f"source `{src}` is an external parameter at the call in `{caller}`: no "
                 f"{_op('op_fresh_tensor')} proves it does not alias {against}"),
                f"create `{actual}` with pl.create_tensor in `{caller}`")
    return f"refused by rule '{code}'", None


def _source(facts: Facts, pos) -> str:
    stmt = facts.stmts[pos][1]
    if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call) and stmt.value.args:
        a0 = stmt.value.args[0]
        return a0.id if isinstance(a0, ir.Name) else ""
    return ""


def decisions(facts: Facts, rel) -> list[ResidencyDecision]:
    """Turn the derived verdicts (``rel(name) -> rows``) into sentences, in program order."""
    w = _Words(facts, rel)
    out: list[tuple[int, ResidencyDecision]] = []
    for pos, vid, loop in rel("residency_hoisted"):
        ll = w.line(loop)
        out.append((pos, ResidencyDecision(facts.stmts[pos][0], _name(vid), w.line(pos), ll, True,
                                           "hoisted", f"hoisted out of the loop at line {ll}" if ll
                                           else "hoisted out of its loop")))
    by_pos: dict[int, list] = {}
    for pos, vid, loop, rank, code, detail in rel("residency_refusal"):
        by_pos.setdefault(pos, []).append((vid, loop, rank, code, detail))
    for pos, rows in by_pos.items():
        fn = facts.stmts[pos][0]
        vid, loop = rows[0][0], rows[0][1]
        ll = w.line(loop)
        src = _source(facts, pos)
        refusals = []
        for _, _, rank, code, detail in sorted(rows, key=lambda r: (r[2], str(r[3]), str(r[4]))):
            reason, fix = _words(code, detail, src, fn, w, ll)
            shown = w.site(detail)[0] if code in SITE_CODES else \
                _name(detail) if isinstance(detail, str) else w.line(detail)
            refusals.append(Refusal(rank, code, shown, reason, fix))
        first = refusals[0]
        fix = None if any(r.fix is None for r in refusals) else \
            "; ".join(dict.fromkeys(r.fix for r in refusals))
        out.append((pos, ResidencyDecision(fn, _name(vid), w.line(pos), ll, False, first.code,
                                           first.reason, tuple(refusals), fix)))
    return [d for _, d in sorted(out, key=lambda x: x[0])]
