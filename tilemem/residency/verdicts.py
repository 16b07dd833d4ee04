"""Phase 4 verdicts in words: for every marked Mat load and exact-chain step inside
a loop, "hoisted out of loop L", or every refusal that holds, most fundamental first.

The verdicts are derived by ``rules/p4_residency/residency.dl``: ``residency_hoisted`` and
``residency_refusal(pos, var, loop, rank, code, name, place)`` (one row per reason, ranked by
the rules), each reason with its words and what would make the statement legal
(``residency_refusal_words``: templates, facts beside the rule that derives the reason).
This module only fills the templates in with source lines and names.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.facts.extract import Facts, StatementIndex
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


# The derived relations the verdicts are read from (the emitter reads ``hoist``).
VERDICT_RELATIONS = ("residency_hoisted", "residency_refusal", "residency_refusal_words",
                     "residency_source", "writable", "total_footprint", "backend_capacity")


def _name(vid) -> str:
    return str(vid).split(":", 1)[-1]


def _detail(name: str, place: int):
    """What a refusal is about: the place it names (a statement or a call site), else
    the name ("" when the rule names neither; rules/p4_residency/residency.dl, ``refusal``)."""
    return place if place != -1 else name


class _Words:
    """The program facts a reason's words need (lines, statement text, call sites)."""

    def __init__(self, facts: Facts, stmts: StatementIndex, rel):
        self.facts, self.stmts = facts, stmts
        self.totals = {(f, s): t for f, s, t in rel("total_footprint")}
        self.caps = {s: c for _, s, c in rel("backend_capacity")}
        self.writable = {d for d, in rel("writable")}
        self._texts: dict[int, str] = {}     # pos -> stmt_text (a statement is named by
        # several refusals: print it, a whole loop for a loop header, once)
        self.def_line: dict[str, int] = {}
        def_line, get = self.def_line, stmts.get
        for pos, vid in facts.rows.get("defines", []):
            if vid not in def_line:
                entry = get(pos)
                line = getattr(entry[1], "line", None) if entry else None
                if line is not None:
                    def_line[vid] = line

    def line(self, pos) -> Optional[int]:
        entry = self.stmts.get(pos) if isinstance(pos, int) else None
        return getattr(entry[1], "line", None) if entry else None

    def stmt_text(self, pos) -> str:
        got = self._texts.get(pos)
        if got is None:
            got = self._texts[pos] = self._stmt_text(pos)
        return got

    def _stmt_text(self, pos) -> str:
        from tilemem.ir.printer import print_stmt
        entry = self.stmts.get(pos) if isinstance(pos, int) else None
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
        """Whether ``fn`` may write the actual of its parameter ``index`` (the rules'
        ``writable`` directions)."""
        def build(rows):
            return {f: {i for i, _, d in params if d in self.writable}
                    for f, params in self._params().items()}
        return index in self._index("_writable_index", build).get(fn, ())

    def role(self, key: str) -> str:
        """The op of a role relation (``{op_<role>}`` in the words)."""
        roles = self._index("_roles", lambda rows: {})
        got = roles.get(key)
        if got is None:
            from tilemem.ir.optable import op_table
            got = roles[key] = op_table().role(key)
        return got

    def actual(self, site, fn: str, src: str) -> Optional[str]:
        """The caller's actual passed at a call site for ``fn``'s parameter ``src``."""
        index = next((i for i, v, _ in self._params().get(fn, ()) if _name(v) == src), None)
        return next((a for i, a in self.site(site)[1] if i == index), None)

    def where_defined(self, vid) -> str:
        line = self.def_line.get(vid)
        return f" (line {line})" if line else ""

    def shown(self, kind: str, detail):
        """A refusal's detail as a verdict shows it: a call site by its caller, a
        statement by its line, anything else by its name."""
        if kind == "site":
            return self.site(detail)[0]
        if kind == "stmt":
            return self.line(detail)
        return _name(detail)


class _Fields(dict):
    """The values a refusal's words may fill in (see ``refusal_words`` in
    rules/p4_residency/residency.dl), each computed when the words ask for it."""

    def __init__(self, w: _Words, kind: str, detail, src: str, fn: str, loop_line):
        super().__init__()
        self.w, self.kind, self.detail, self.src, self.fn = w, kind, detail, src, fn
        self.loop_line = loop_line

    def __missing__(self, key: str):
        value = self._compute(key)
        self[key] = value
        return value

    def _compute(self, key: str):
        field = _FIELD_OF.get(key)
        if field is not None:
            return field(self)
        if key.startswith("op_"):
            return self.w.role(key)
        return "{" + key + "}"

    def _detail(self):
        return self.w.shown(self.kind, self.detail)

    def _loop(self):
        return f"the loop at line {self.loop_line}" if self.loop_line else "the loop"

    def _fn(self):
        return self.fn

    def _src(self):
        return self.src

    def _defined(self):
        return self.w.where_defined(self.detail)

    def _stmt(self):
        return self.w.stmt_text(self.detail)

    def _caller(self):
        return self.w.site(self.detail)[0]

    def _actual(self):
        return self.w.actual(self.detail, self.fn, self.src) or self.src

    def _against(self):
        outs = (a for i, a in self.w.site(self.detail)[1] if self.w.is_writable(self.fn, i))
        return next((f"`{a}`" for a in outs), "the outputs")

    def _total(self):
        return self.w.totals.get((self.fn, self.detail), "?")

    def _cap(self):
        return self.w.caps.get(self.detail, "?")


# The fields the words of a refusal may name (besides {op_<role>}): see _Fields.
FIELDS = ("detail", "loop", "fn", "src", "defined", "stmt", "caller", "actual", "against",
          "total", "cap")
_FIELD_OF = {key: getattr(_Fields, "_" + key) for key in FIELDS}


def _refusal_order(row) -> tuple:
    """A statement's refusals by rank, code, then detail: a call site or statement (a
    number) in program order, before names (so the order does not depend on where a
    solve's numbering starts: a workspace solves a few functions of the program)."""
    _, _, rank, code, detail = row
    return (rank, str(code), (0, detail, "") if isinstance(detail, int) else (1, 0, str(detail)))


def decisions(facts: Facts, stmts: StatementIndex, rel) -> list[ResidencyDecision]:
    """Turn the derived verdicts (``rel(name) -> rows``) into sentences, in program order.
    Every refusal is worded by its code's words in the rules (``residency_refusal_words``)
    and ordered by its code's rank there."""
    w = _Words(facts, stmts, rel)
    out: list[tuple[int, ResidencyDecision]] = []
    for pos, vid, loop in rel("residency_hoisted"):
        ll = w.line(loop)
        out.append((pos, ResidencyDecision(stmts[pos][0], _name(vid), w.line(pos), ll, True,
                                           "hoisted", f"hoisted out of the loop at line {ll}" if ll
                                           else "hoisted out of its loop")))
    by_pos: dict[int, list] = {}
    for pos, vid, loop, rank, code, name, place in rel("residency_refusal"):
        by_pos.setdefault(pos, []).append((vid, loop, rank, code, _detail(name, place)))
    words = {(pos, code, _detail(name, place)): (kind, reason, fix)
             for pos, code, name, place, kind, reason, fix in rel("residency_refusal_words")}
    sources = {pos: _name(src) for pos, src in rel("residency_source")}
    for pos, rows in by_pos.items():
        fn = stmts[pos][0]
        vid, loop = rows[0][0], rows[0][1]
        ll = w.line(loop)
        src = sources.get(pos, "")
        refusals = []
        for _, _, rank, code, detail in sorted(rows, key=_refusal_order):
            kind, reason, fix = words.get((pos, code, detail), ("none", f"refused by rule '{code}'", ""))
            fields = _Fields(w, kind, detail, src, fn, ll)
            refusals.append(Refusal(rank, code, fields["detail"], reason.format_map(fields),
                                    fix.format_map(fields) if fix else None))
        first = refusals[0]
        fix = None if any(r.fix is None for r in refusals) else \
            "; ".join(dict.fromkeys(r.fix for r in refusals))
        out.append((pos, ResidencyDecision(fn, _name(vid), w.line(pos), ll, False, first.code,
                                           first.reason, tuple(refusals), fix)))
    return [d for _, d in sorted(out, key=lambda x: x[0])]
