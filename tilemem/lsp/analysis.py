"""One version of a document, read, solved and verified -- what every feature reads.

Nothing here knows the protocol: positions are tilemem's (1-based lines and columns),
problems are plain records the diagnostics module turns into LSP diagnostics.

A ``.py`` module's programs are read and solved one by one (as ``tilemem solve``
does), so a program that does not read leaves the others answered; a module Python
cannot parse, or a printed-IR file that does not read, is one problem and no program.
"""
from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Optional

from tilemem import ir
from tilemem.errors import TilememError, UsageError
from tilemem.lsp.settings import ClientSettings, Effective, effective
from tilemem.lsp.varindex import FunctionVars, index_function

log = logging.getLogger("tilemem.lsp")


_NEWLINE = re.compile(r"\r\n|\r|\n")

READINGS = {"ir": "printed IR", "dsl": "DSL"}


@dataclass
class Problem:
    """Something to say about the document at a place (a diagnostic to be)."""
    line: Optional[int]          # 1-based; None: the document as a whole
    col: Optional[int]           # 1-based; None: the whole line
    message: str
    code: str
    severity: str                # error | warning | information | hint
    length: Optional[int] = None  # characters marked from col (None: to the word's end)
    source: str = "tilemem"


def split_lines(text: str) -> list[str]:
    """The lines of a text as the protocol counts them (\\n, \\r\\n or \\r end one)."""
    return _NEWLINE.split(text)


def problem_of(err: TilememError, code: str = "input-error") -> Problem:
    return Problem(err.line, err.col, err.message, code, "error")


@dataclass
class FunctionSpan:
    """A function of a program and the lines it covers (its ``def`` to its last line)."""
    function: ir.Function
    first_line: int
    last_line: int


@dataclass
class ProgramAnalysis:
    """One ``@pl.program``: the program as read, its solution (None when it does not
    solve: ``error`` says why), its functions and their vars."""
    name: str
    first_line: int
    last_line: int
    source: Optional[ir.Program] = None
    solution: Any = None                     # tilemem.api.Solution
    error: Optional[TilememError] = None
    problems: list[Problem] = field(default_factory=list)
    functions: list[FunctionSpan] = field(default_factory=list)
    _vars: dict[str, FunctionVars] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closed: bool = False
    _vars_lock: threading.Lock = field(default_factory=threading.Lock)   # never held long

    def function_at(self, line: int) -> Optional[FunctionSpan]:
        for f in self.functions:
            if f.first_line <= line <= f.last_line:
                return f
        return None

    def vars_of(self, fn: ir.Function, lines: list[str]) -> FunctionVars:
        with self._vars_lock:
            fv = self._vars.get(fn.name)
            if fv is None:
                fv = self._vars[fn.name] = index_function(fn, lines)
            return fv

    def space_of(self, function: str, var: str) -> Optional[str]:
        if self.solution is None:
            return None
        return self.solution.spaces.get(function, {}).get(var)

    def explained(self, ask):
        """``ask(solution)``: a question to the solution's explanation session (built on
        first use, kept with the analysis); one question at a time (a session is not
        shared between threads)."""
        if self.solution is None:
            return None
        with self._lock:
            if self._closed:             # superseded while the question waited
                return None
            return ask(self.solution)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self.solution is not None:
                self.solution.close()


@dataclass
class DocumentAnalysis:
    """One version of a document, analysed."""
    path: str
    text: str
    version: Optional[int] = None
    reading: Optional[str] = None            # "ir" | "dsl" | None (nothing to read)
    settings: Optional[Effective] = None
    programs: list[ProgramAnalysis] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)   # about the document as a whole
    _lines: Optional[list[str]] = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    @property
    def solved(self) -> bool:
        """Whether every program of the document was read and solved (a good analysis:
        its hints are kept while later versions do not solve)."""
        return bool(self.programs) and all(p.solution is not None for p in self.programs)

    def program_at(self, line: int) -> Optional[ProgramAnalysis]:
        for p in self.programs:
            if p.first_line <= line <= p.last_line:
                return p
        return None

    def function_at(self, line: int) -> Optional[tuple[ProgramAnalysis, FunctionSpan]]:
        p = self.program_at(line)
        f = p.function_at(line) if p is not None else None
        return (p, f) if f is not None else None

    def all_problems(self) -> list[Problem]:
        out = list(self.problems)
        for p in self.programs:
            out.extend(p.problems)
        return out

    def status(self) -> dict:
        """Which reading was used, and what came of it (the ``tilemem/status`` payload)."""
        return {
            "reading": READINGS.get(self.reading or "", None),
            "programs": [{"name": p.name, "solved": p.solution is not None,
                          "error": p.error.message if p.error is not None else None}
                         for p in self.programs],
            "backend": self.settings.backend if self.settings else None,
            "backendFrom": self.settings.backend_origin if self.settings else None,
        }

    def close(self) -> None:
        for p in self.programs:
            p.close()


def _function_spans(prog: ir.Program, last_line: int) -> list[FunctionSpan]:
    fns = [f for f in prog.functions if f.line]
    out = []
    for i, f in enumerate(fns):
        end = (fns[i + 1].line - 1) if i + 1 < len(fns) else last_line
        out.append(FunctionSpan(f, f.line, max(end, f.line)))
    return out


class Workspaces:
    """The :class:`tilemem.Workspace` of each program of one document, so that an edit
    solves again only the InCore functions it changed.  A workspace is kept per
    (reading, program, settings): other settings start a new one.  Used by one thread
    at a time (the server's solver)."""

    def __init__(self) -> None:
        self._by_key: dict[tuple, Any] = {}
        # (program, path, rules, engine) -> id(function) -> (the function, its violations)
        self._verified: dict[tuple, dict[int, tuple[ir.Function, list]]] = {}

    def solve(self, text: str, path: str, settings: Effective, form: str, program: Optional[str]):
        """The solution of ``program`` of ``text`` (raises TilememError as tilemem.solve)."""
        from tilemem.workspace import Workspace
        key = (form, program, settings.backend, settings.rules, settings.engine)
        ws = self._by_key.get(key)
        if ws is None:
            ws = self._by_key[key] = Workspace(text, path, settings.backend, settings.rules,
                                               settings.engine, form=form, program=program)
            return ws.solution()
        return ws.set_text(text)

    def keep_only(self, programs: set[Optional[str]]) -> None:
        """Forget the workspaces of programs the document no longer holds."""
        for key in [k for k in self._by_key if k[1] not in programs]:
            del self._by_key[key]
        for key in [k for k in self._verified if k[0] not in programs]:
            del self._verified[key]

    def verify(self, program: ir.Program, name: Optional[str], path: str, settings: Effective):
        """``tilemem.tools.verify.verify`` of the program as written, run again only on the
        InCore functions that are not the ones verified last time (the property is
        per function: its rules join no facts of two functions; a workspace hands back
        the very function it read before for a function whose text did not change)."""
        from tilemem.records import replace
        from tilemem.tools.verify import verify
        key = (name, path, settings.rules, settings.engine)
        kept = self._verified.get(key, {})
        incore = [fn for fn in program.functions if fn.is_incore]
        fresh = [fn for fn in incore if kept.get(id(fn), (None,))[0] is not fn]
        if len({fn.name for fn in incore}) != len(incore):
            self._verified.pop(key, None)             # two functions of one name: whole
            return verify(program, path, settings.rules, engine=settings.engine)
        got: dict[int, tuple[ir.Function, list]] = {}
        if fresh:
            by_name: dict[str, list] = {fn.name: [] for fn in fresh}
            for v in verify(replace(program, functions=fresh), path, settings.rules,
                            engine=settings.engine):
                by_name[v.function].append(v)
            got = {id(fn): (fn, by_name[fn.name]) for fn in fresh}
        now = {id(fn): got.get(id(fn)) or kept[id(fn)] for fn in incore}
        self._verified[key] = now
        out = [v for _, vs in now.values() for v in vs]
        out.sort(key=lambda v: (v.line or 0, v.col or 0, v.slot if v.slot is not None else -1))
        return out


def _verify(program: ir.Program, name: Optional[str], path: str, settings: Effective,
            level: str, workspaces: Workspaces) -> list[Problem]:
    if level == "off":
        return []
    out = []
    for v in workspaces.verify(program, name, path, settings):
        code = "unannotated-tile" if v.kind == "unannotated" else "operand-space"
        out.append(Problem(v.line, v.col, f"{v.message} (TileMemoryInferred; the pass "
                           f"fixes it: 'Apply the pass')", code, level, len(v.var) if v.line else None,
                           source="tilemem verify"))
    return out


def _solution_problems(pa: ProgramAnalysis, path: str) -> list[Problem]:
    """The solve's warnings (PyPTO's contract breaks, --strict; bridge marks without a
    backend) and a residency note at each bridge-marked load."""
    sol = pa.solution
    out = []
    for w in sol.warnings:
        if w.path != path:
            continue                     # about a rule file, not this document
        out.append(Problem(w.line, w.col, w.message, w.code, "warning"))
    if sol.residency:
        from tilemem.residency.facts import bridge_marks
        marked = {line for line, _ in bridge_marks(sol.source) if line}
        for d in sol.residency:
            if d.line not in marked:
                continue
            loop = f"the loop at line {d.loop_line}" if d.loop_line else "its loop"
            if d.hoisted:
                msg = f"residency ({sol.backend}): `{d.var}` is hoisted out of {loop}"
            else:
                msg = f"residency ({sol.backend}): `{d.var}` stays in {loop}: {d.reason}"
                if len(d.refusals) > 1:
                    msg += f" (and {len(d.refusals) - 1} more reason" \
                           f"{'s' if len(d.refusals) > 2 else ''}: hover `{d.var}`)"
            out.append(Problem(d.line, None, msg, "residency", "information"))
    return out


def _analyse_program(doc: DocumentAnalysis, pa: ProgramAnalysis, workspaces: Workspaces,
                     program: Optional[str], level: str) -> None:
    """Read, solve and verify one program into ``pa`` (errors become problems)."""
    settings = doc.settings
    try:
        pa.solution = workspaces.solve(doc.text, doc.path, settings, doc.reading, program)
        pa.source = pa.solution.source
        pa.functions = _function_spans(pa.source, pa.last_line)
    except TilememError as e:
        pa.error = e
        pa.problems.append(problem_of(e))
        return
    pa.problems.extend(_solution_problems(pa, doc.path))
    try:
        pa.problems.extend(_verify(pa.source, program, doc.path, settings, level, workspaces))
    except TilememError as e:
        pa.problems.append(problem_of(e))


def analyse(text: str, path: str, client: ClientSettings, version: Optional[int] = None,
            form: Optional[str] = None, workspaces: Optional[Workspaces] = None) -> DocumentAnalysis:
    """Read, solve and verify every program of a document.  Never raises for what the
    document says: errors are problems (an internal error too, logged).  ``workspaces``:
    what earlier analyses of the document kept (a new edit solves only what changed)."""
    doc = DocumentAnalysis(path, text, version)
    try:
        _analyse(doc, client, form, workspaces if workspaces is not None else Workspaces())
    except RecursionError:
        doc.problems.append(Problem(1, None, "input nested too deeply to process",
                                    "input-error", "error"))
    except Exception as e:                   # never let a document stop the server
        log.exception("tilemem lsp: internal error on %s", path)
        doc.problems.append(Problem(1, None, f"internal error in tilemem ({type(e).__name__}: "
                                    f"{e}); please report it with this file", "internal-error",
                                    "error"))
    return doc


def _analyse(doc: DocumentAnalysis, client: ClientSettings, form: Optional[str],
             workspaces: Workspaces) -> None:
    from tilemem.frontend.reading import input_form, may_hold_programs
    from tilemem.limits import guarded
    text, path = doc.text, doc.path
    try:
        doc.settings = effective(client, path)
    except UsageError as e:                  # a pyproject.toml that cannot be used
        doc.problems.append(Problem(1, None, str(e), "config-error", "warning"))
        doc.settings = Effective(client.backend, client.engine, client.rules or (), "client settings")
    settings = doc.settings
    doc.reading = input_form(text, form)
    level = client.verify
    with guarded(path, text):
        if doc.reading == "ir":
            pa = ProgramAnalysis("", 1, max(len(doc.lines), 1))
            doc.programs.append(pa)
            workspaces.keep_only({None})
            _analyse_program(doc, pa, workspaces, None, level)
            if pa.source is not None:
                pa.name = pa.source.name
            return
        if not may_hold_programs(text):
            doc.reading = None               # a Python module without programs: nothing to say
            return
        from tilemem.frontend.pysource import scan_module
        try:
            _, sites = scan_module(text, path)
        except TilememError as e:            # not Python (yet): Python's own message
            doc.problems.append(problem_of(e))
            return
        workspaces.keep_only({site.name for site in sites})
        for site in sites:
            pa = ProgramAnalysis(site.name, site.first_line, site.last_line)
            doc.programs.append(pa)
            _analyse_program(doc, pa, workspaces, site.name, level)
