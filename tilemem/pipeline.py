"""One program through the pass: text -> IR -> facts -> rules -> solution -> text.

:class:`Pipeline` is the only place the stages are chained; ``tilemem.solve``, the
explanation sessions (``tilemem why``, ``Solution.explain``) and the query console all
run a program through it.  Each stage is computed once, on first use:

1. phases 0-3: the facts of the InCore functions (``tilemem.facts``) under the rules
   (``tilemem.infer.solver.derive``);
2. the rewrite: spaces set and moves inserted (``tilemem.infer.emitter.emit``);
3. phase 4, with a backend only (``tilemem.residency``): the facts of the whole rewritten
   program under the residency rules, the hoists applied and the verdicts put in words;
4. the printed program.

``explain=True`` keeps what explanations need: the facts' source lines and the two
databases (open until :meth:`close`); a plain solve keeps neither and frees phase 3's
relations before phase 4 runs.  When phase 4 follows, a large phase 0-3 evaluation runs
in a child process (``derive(apart=True)``): clingo frees none of the symbols it builds,
and phase 4 would ground on top of them (the 21,032-line MTP kernel's peak 233 -> 191 MB).
Where a command solves one large file with a core to spare, phases 0-3 and the rewrite
run in two halves of its InCore functions, one in a forked child (``tilemem.infer.halves``),
and the pipeline adopts what they make (:meth:`Pipeline.adopt`).

The pipeline owns the statement index of each fact extraction (``stmts3``, ``stmts4``:
the statement each ``pos`` number stands for): the facts hold numbers only, and the
stages that map a number back to the program (the rewrite, the hoists, the verdicts,
contract breaks, explanations) are given the index here.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Sequence

from tilemem import ir
from tilemem.backends import normalize_backend
from tilemem.datalog.database import DEFAULT_ENGINE
from tilemem.frontend.reading import declared_ops, read_program
from tilemem.infer.emitter import Solution3, emit
from tilemem.errors import TilememError
from tilemem.infer.solver import LocatedEvaluationError, derive
from tilemem.ir.printer import print_program
from tilemem.records import replace
from tilemem.residency.hoists import apply_hoists, strip_program_bridge_marks
from tilemem.residency.solve import derive_residency
from tilemem.residency.verdicts import decisions

if TYPE_CHECKING:
    from tilemem.infer.contract import ContractBreak
    from tilemem.residency.verdicts import ResidencyDecision


class Pipeline:
    """The stages of solving one parsed and checked program (see the module docstring)."""

    def __init__(self, program: ir.Program, backend: Optional[str] = None,
                 rules: Sequence[str] = (), path: str = "<input>", text: Optional[str] = None,
                 engine: Optional[str] = None, explain: bool = False, limits=None):
        self.program = program
        self.limits = limits         # budgets of user rules (None: the current limits)
        self.backend = normalize_backend(backend)
        self.rules = tuple(rules)
        self.path = path
        self.text = text
        self.engine = engine or os.environ.get("TILEMEM_ENGINE") or DEFAULT_ENGINE
        self.explain = explain
        self._phase3 = None          # Derived of phases 0-3
        self.db3 = None              # its Database (explain=True only)
        self.stmts3 = None           # its statement index: pos -> (function, statement)
        self._sol3 = None
        self._emitted = None         # (rewritten program, moves)
        self._phase4 = None          # Derived of phase 4
        self.db4 = None              # its Database (explain=True only)
        self.stmts4 = None           # its statement index
        self._done = None            # (final program, residency decisions)
        self._breaks = None          # contract_break rows, located (contract_breaks())
        self._spaces = None          # function -> var -> space (spaces())
        self._printed = None         # the printed text, when adopted

    @classmethod
    def from_text(cls, text: str, path: str = "<input>", limits=None, form=None, program=None,
                  **kw) -> "Pipeline":
        """Read and check program text (raises TilememError on bad input; ``limits``: the
        input caps, :class:`tilemem.limits.Limits`; ``form``, ``program``: the reading and
        the program of a file holding several, see :mod:`tilemem.frontend.reading`)."""
        program = read_program(text, path, form, program, declared_ops(kw.get("rules") or ()),
                               limits)
        from tilemem.frontend.check.alongside import check_program_unless_apart
        check_program_unless_apart(program, path)
        return cls(program, path=path, text=text, limits=limits, **kw)

    # ------------------------------------------------------------------ stages

    def phase3(self):
        """Phases 0-3 over the InCore functions (a ``Derived``)."""
        if self._phase3 is None:
            self.stmts3 = {}
            with self._located():
                self._phase3, self.db3 = derive(self.program, self.backend, self.rules,
                                                keep_db=self.explain, engine=self.engine,
                                                origins=self.explain, limits=self.limits,
                                                stmts=self.stmts3,
                                                apart=self.backend is not None)
        return self._phase3

    @contextmanager
    def _located(self):
        """A fact value the engine cannot hold, or two answers where the rules' keys
        allow one, is an error at its statement in the input."""
        try:
            yield
        except LocatedEvaluationError as e:
            raise TilememError(self.path, e.line, e.col, str(e), source=self.text) from None

    @property
    def sol3(self):
        """Spaces and moves as the emitter reads them."""
        if self._sol3 is None:
            self._sol3 = Solution3.from_relations(self.phase3().rel)
        return self._sol3

    def contract_breaks(self) -> list[ContractBreak]:
        """Where PyPTO's answer leaves an operand outside its op's spaces (the rules'
        ``contract_break``), located in the source (``tilemem.infer.contract``)."""
        if self._breaks is None:
            from tilemem.infer.contract import contract_breaks
            d = self.phase3()
            self._breaks = contract_breaks(d.facts, self.stmts3, d.rel("contract_break"))
        return self._breaks

    def emitted(self):
        """(the program with spaces set and moves inserted, the inserted moves)."""
        if self._emitted is None:
            sol3 = self.sol3             # (phases 0-3 run: stmts3 is filled)
            self._emitted = emit(self.program, self.stmts3, sol3)
            if not self.explain:
                self._phase3 = self.stmts3 = None   # phase 4 needs neither: free them first
        return self._emitted

    @property
    def moves(self):
        return self.emitted()[1]

    def phase4(self):
        """Phase 4 over the whole rewritten program (a ``Derived``), None without a backend."""
        if self.backend is None:
            return None
        if self._phase4 is None:
            emitted = self.emitted()[0]
            self.stmts4 = {}
            with self._located():
                self._phase4, self.db4 = derive_residency(
                    emitted, self.backend, self.rules, engine=self.engine,
                    origins=self.explain, keep_db=self.explain, limits=self.limits,
                    stmts=self.stmts4)
        return self._phase4

    def finished(self) -> tuple[ir.Program, Optional[list[ResidencyDecision]]]:
        """(the final program: hoists applied, bridge marks stripped; the residency verdicts
        or None without a backend)."""
        if self._done is None:
            out = self.emitted()[0]
            residency = None
            res = self.phase4()
            if res is not None:              # residency needs the backend's capacities
                out = apply_hoists(out, self.stmts4, res.rel("hoist"))
                residency = decisions(res.facts, self.stmts4, res.rel)
                if not self.explain:
                    self._phase4 = self.stmts4 = None
            self._done = (strip_program_bridge_marks(out), residency)
        return self._done

    def by_function(self) -> dict:
        """Phases 0-3 and the rewrite by InCore function: name -> (its rewritten function,
        its moves, its spaces -- var -> space, or None --, its contract breaks), as
        :func:`merged_functions` takes them."""
        breaks = self.contract_breaks()          # (before the rewrite frees phase 3)
        rewritten, moves = self.emitted()
        spaces = self.spaces()
        moves_of: dict = {}
        for m in moves:
            moves_of.setdefault(m.function, []).append(m)
        breaks_of: dict = {}
        for b in breaks:
            breaks_of.setdefault(b.function, []).append(b)
        return {fn.name: (fn, moves_of.get(fn.name, []), spaces.get(fn.name),
                          breaks_of.get(fn.name, []))
                for fn in rewritten.functions if fn.is_incore}

    def adopt_phase3(self, derived, stmts) -> None:
        """Take phases 0-3's relations evaluated elsewhere (``tilemem.infer.halves``: in a
        child process) and the statement index of the facts they were derived from."""
        self._phase3, self.stmts3 = derived, stmts

    def adopt(self, emitted: ir.Program, moves, spaces: dict, breaks: list,
              finished: Optional[tuple] = None, printed: Optional[str] = None) -> None:
        """Take the outcome of phases 0-3 and the rewrite from elsewhere: the rewritten
        program, its moves, spaces (as :meth:`spaces`) and contract breaks (as
        :meth:`contract_breaks`); and, if given, phase 4's (as :meth:`finished`) and the
        printed text.  ``tilemem.workspace`` solves each function on its own (InCore
        functions are independent until phase 4; phase 4 by ``residency.parts``) and
        keeps them between edits."""
        self._emitted = (emitted, moves)
        self._spaces, self._breaks = spaces, breaks
        if finished is not None:
            self._done = finished
        self._printed = printed

    def spaces(self) -> dict[str, dict[str, str]]:
        """function -> var -> space."""
        if self._spaces is not None:
            return self._spaces
        spaces: dict[str, dict[str, str]] = {}
        for vid, space in sorted(self.sol3.space.items()):
            fn, sep, name = vid.partition(":")
            if sep:         # a user rule may add a row that names no var ("tile.my_add"): not a tile
                spaces.setdefault(fn, {})[name] = space
        return spaces

    def printed(self) -> str:
        if self._printed is not None:
            return self._printed
        return print_program(self.finished()[0], self.path)

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Close the databases kept for explanations (the stages that made them run again
        when asked again)."""
        for db in (self.db3, self.db4):
            if db is not None:
                db.close()
        if self.db3 is not None:
            self._phase3 = None
        if self.db4 is not None:
            self._phase4 = None
        self.db3 = self.db4 = None


def merged_functions(program: ir.Program, solved: dict) -> tuple:
    """(the rewritten program, its moves, spaces and contract breaks, each as a whole
    solve's ``emitted``, ``spaces`` and ``contract_breaks`` give them) from phases 0-3
    and the rewrite done function by function: ``solved`` maps an InCore function's name
    to (its rewritten function, its moves, its spaces -- var -> space --, its contract
    breaks); a function it does not name is kept as it is.  (InCore functions are
    independent until phase 4: ``tilemem.workspace`` and ``tilemem.infer.halves``.)"""
    functions, moves, spaces, breaks = [], [], {}, []
    for fn in program.functions:
        got = solved.get(fn.name) if fn.is_incore else None
        if got is None:
            functions.append(fn)
            continue
        rewritten, fn_moves, fn_spaces, fn_breaks = got
        functions.append(rewritten)
        moves.extend(fn_moves)
        if fn_spaces:
            spaces[fn.name] = fn_spaces
        breaks.extend(fn_breaks)
    breaks.sort(key=lambda b: (b.line or 0, b.col or 0, b.function, b.slot))
    # (spaces as Pipeline.spaces orders a whole solve's: by the var's id, function:name)
    ordered: dict = {}
    for _, fn, var, space in sorted((f"{fn}:{v}", fn, v, sp) for fn, vs in spaces.items()
                                    for v, sp in vs.items()):
        ordered.setdefault(fn, {})[var] = space
    return replace(program, functions=functions), moves, ordered, breaks
