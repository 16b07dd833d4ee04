"""Phase 4 one function at a time: what the residency phase made of each function of a
program (its final form, its verdicts, and what other functions' verdicts read about
it), and a solve of a few edited functions that keeps the others' (``tilemem.Workspace``).

The residency rules decide about the statements of one function from that function's
facts and these facts of others (``rules/p4_residency/``; all the joins that cross a function
go through them):

* about its callers (the functions that call or submit it): their call sites of it, the
  storage roots of the actuals there (``root``, ``created``), their kinds, and whether
  they are themselves called or submitted (``root_orchestration``);
* about its callees: their parameters (directions), their return values, and which
  parameter each returns the storage of (``return_param``).

So an edited function F is solved again together with its callers (whole), every other
function given by those facts of it (its :class:`Exports`, kept from the solve that
held it; ``return_param`` as ``return_param_kept``, schema.dl).  The verdicts and hoists
of F are then those of a whole solve.  The other functions' are kept when F's exports
are unchanged (what they read of F is the same); when they changed, the whole program is
solved again.  A solve with user rules (which may join anything) is always whole.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Optional

from tilemem import ir
from tilemem.facts.extract import StatementIndex
from tilemem.infer.solver import evaluate, inputs_read
from tilemem.records import Record, record, replace
from tilemem.residency.facts import extract_program
from tilemem.residency.hoists import apply_hoists, strip_program_bridge_marks
from tilemem.residency.solve import RESIDENCY_RESULTS, residency_reads
from tilemem.residency.verdicts import ResidencyDecision, decisions

__all__ = ["Exports", "Part", "solve_parts"]

# The derived relations read besides the verdicts: what callers and callees read of a
# function (its exports).
_EXPORTED = ("return_param", "root", "created")


@record(frozen=True)
class Exports(Record):
    """What the residency rules read about function F when they decide about another
    function's statements (see the module docstring): rows of F's facts and derived
    relations, its call sites numbered from 0 in F's order."""
    def __init__(self, kind, incore, params, declared, returns, return_params, sites, submits,
                 roots, created):
        self.kind, self.incore, self.params, self.declared = kind, incore, params, declared
        self.returns, self.return_params, self.sites = returns, return_params, sites
        self.submits, self.roots, self.created = submits, roots, created

    def callees(self) -> set[str]:
        """The functions F calls or submits."""
        return {k for k, _ in self.sites} | set(self.submits)


class Part:
    """Phase 4's outcome for one function: the function it was given (``emitted``), its
    final form (hoists applied, bridge marks stripped), its verdicts in program order
    and its exports (None without a backend)."""
    __slots__ = ("emitted", "final", "decisions", "exports", "printed")

    def __init__(self, emitted: ir.Function, final: ir.Function,
                 decisions: Optional[list[ResidencyDecision]], exports: Optional[Exports]):
        self.emitted, self.final, self.decisions, self.exports = emitted, final, decisions, exports
        self.printed: Optional[str] = None          # print_function(final), when asked


def stripped_parts(program: ir.Program, only: Optional[set[str]]) -> dict[str, Part]:
    """Without a backend (no phase 4): the functions named in ``only`` (None: every
    function) with the bridge marks stripped."""
    if only is not None:
        program = replace(program, functions=[f for f in program.functions if f.name in only])
    out = strip_program_bridge_marks(program)
    return {e.name: Part(e, f, None, None) for e, f in zip(program.functions, out.functions)}


def solve_parts(program: ir.Program, backend: str, only: Optional[set[str]],
                kept: dict[str, Part], engine: str, limits=None) -> tuple[Optional[dict[str, Part]], int]:
    """Phase 4 over ``program`` (phase-3 rewritten, no user rules): the parts of every
    function (``only`` None), or of the functions named in ``only``, solved with their
    callers and the ``kept`` exports of the others; and how many functions the solve
    held.  The parts are None when the exports of a function of ``only`` changed (what
    the others read of it is no longer what they were solved with): the caller solves
    the whole program instead."""
    if only is None:
        facts, stmts, rel = _solve(program, backend, engine, limits, None)
        return _parts(program, facts, stmts, rel, {f.name for f in program.functions}), len(program.functions)
    names = [f.name for f in program.functions]
    held = set(only)
    for name in names:                      # the callers of an edited function
        if name not in only and kept[name].exports.callees() & only:
            held.add(name)
    sub = replace(program, functions=[f for f in program.functions if f.name in held])
    given = {n: kept[n].exports for n in names if n not in held}
    facts, stmts, rel = _solve(sub, backend, engine, limits, given)
    parts = _parts(sub, facts, stmts, rel, only)
    if any(parts[n].exports != kept[n].exports for n in only):
        return None, len(held)
    return parts, len(held)


def _solve(program: ir.Program, backend: str, engine: str, limits,
           given: Optional[dict[str, Exports]]):
    from tilemem.datalog.engine import gc_paused
    relations = (*RESIDENCY_RESULTS, *_EXPORTED)
    read = inputs_read(relations, (), False)
    stmts: StatementIndex = {}
    with gc_paused():
        facts = extract_program(program, backend, False, read, stmts, residency_reads((), read))
        if given:
            _give(facts, given, {f.name for f in program.functions})
    derived, _ = evaluate(facts, relations, (), engine, False, limits, read, stmts)
    return facts, stmts, derived.rel


def _give(facts, given: dict[str, Exports], held: set[str]) -> None:
    """Add what the rules read of the functions not held (``given``: their exports):
    their kinds, parameters, return values and ``return_param`` rows, and their calls and
    submits of held functions (with site numbers after the held ones')."""
    rows = facts.rows
    site = 1 + max((r[0] for r in rows.get("callsite", ())), default=-1)
    for name, ex in given.items():
        for kind in ex.kind:
            facts.add("func_kind", name, kind)
        if ex.incore:
            facts.add("incore", name)
        for row in ex.params:
            facts.add("param", name, *row)
        for row in ex.returns:
            facts.add("return_value", name, *row)
        for row in ex.return_params:
            facts.add("return_param_kept", name, *row)
        for callee, _ in ex.sites:
            if callee in held:
                facts.add("callsite", site, name, callee)
                site += 1
        for callee in ex.submits:
            if callee in held:
                facts.add("submit_site", name, callee)


def _parts(program: ir.Program, facts, stmts: StatementIndex, rel, names: set[str]) -> dict[str, Part]:
    """The parts of the functions ``names`` of a solved (sub)program (``stmts``: its
    facts' statement index)."""
    hoists = [(p, loop) for p, loop in rel("hoist") if stmts[p][0] in names]
    final = strip_program_bridge_marks(apply_hoists(program, stmts, hoists))
    verdicts: dict[str, list] = defaultdict(list)
    for d in decisions(facts, stmts, rel):
        if d.function in names:
            verdicts[d.function].append(d)
    exports = _exports(facts, rel, names)
    return {e.name: Part(e, f, verdicts.get(e.name, []), exports[e.name])
            for e, f in zip(program.functions, final.functions) if e.name in names}


def _exports(facts, rel, names: set[str]) -> dict[str, Exports]:
    rows = facts.rows
    by: dict[str, dict[str, list]] = {n: defaultdict(list) for n in names}

    def put(name, key, row):
        got = by.get(name)
        if got is not None:
            got[key].append(row)

    for f, kind in rows.get("func_kind", ()):
        put(f, "kind", kind)
    for f, in rows.get("incore", ()):
        put(f, "incore", True)
    param_of: dict[str, str] = {}
    for f, i, v, d in rows.get("param", ()):
        put(f, "params", (i, v, d))
        param_of[v] = f
    for v, kind, space in rows.get("declared", ()):
        f = param_of.get(v)
        if f is not None:
            put(f, "declared", (v, kind, space))
    for f, i, v in rows.get("return_value", ()):
        put(f, "returns", (i, v))
    for f, i, j in rel("return_param"):
        put(f, "return_params", (i, j))
    site_of: dict[int, tuple[str, int]] = {}
    for c, f, k in rows.get("callsite", ()):
        got = by.get(f)
        if got is not None:
            site_of[c] = (f, len(got["sites"]))
            got["sites"].append(k)
    args: dict[int, list] = defaultdict(list)
    arg_of: dict[str, str] = {}
    for c, i, v in rows.get("callsite_arg", ()):
        if c in site_of:
            args[c].append((i, v))
            arg_of[v] = site_of[c][0]
    for f, k in rows.get("submit_site", ()):
        put(f, "submits", k)
    roots_of: dict[str, set] = defaultdict(set)
    for v, r in rel("root"):
        f = arg_of.get(v)
        if f is not None:
            put(f, "roots", (v, r))
            roots_of[f].add(r)
    created = {r for r, in rel("created")}
    out = {}
    for name, got in by.items():
        sites = got["sites"]
        site_args = [[] for _ in sites]
        for c, (f, k) in site_of.items():
            if f == name:
                site_args[k] = tuple(sorted(args.get(c, ())))
        out[name] = Exports(
            kind=tuple(got["kind"]), incore=bool(got["incore"]), params=tuple(got["params"]),
            declared=tuple(sorted(got["declared"])), returns=tuple(got["returns"]),
            return_params=tuple(sorted(got["return_params"])),
            sites=tuple(zip(sites, map(tuple, site_args))), submits=tuple(got["submits"]),
            roots=tuple(sorted(got["roots"])),
            created=tuple(sorted(r for r in roots_of.get(name, ()) if r in created)))
    return out

