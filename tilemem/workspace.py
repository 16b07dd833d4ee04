"""An open program kept solved under edits: only what an edit touches is solved again.

::

    ws = tilemem.Workspace(text, path="kernel.pto", backend="910B")
    sol = ws.solution()                     # a tilemem.Solution, as tilemem.solve gives
    sol = ws.edit((12, 8), (12, 14), "b_tile")   # replace line 12, columns 8-14 (0-based)
    sol = ws.set_text(new_text)             # or the whole text at once

Phases 0-3 and the rewrite are per InCore function: no rule of theirs joins facts of
two functions.  A workspace keeps, for each InCore function, what they made of it (the
rewritten function, its moves, spaces and contract breaks), and solves again only the
functions an edit changed -- all of them in one solve.  A function counts as unchanged
when its IR is equal to the one kept (so that whatever the reading made of the text
around it, e.g. a callee's type in hand-written DSL, is in the comparison) and its text,
from its ``def`` line to the next function's, is the same at the same line (the IR's
equality leaves positions out; the output quotes them).  Phase 4 (loop-invariant Mat
residency) reads call sites across functions: a changed function is solved again with
its callers, the others given by what the residency rules read of them
(``tilemem.residency.parts``), and the whole program when that changed; each function
is printed again only when it changed.  Printed IR is read one function at a time,
each function's text kept with the function it read as (hand-written DSL, and printed
text with comments, are read whole).  The answer is byte-identical to
``tilemem.solve`` of the same text (``tests/test_workspace.py`` compares them on the
corpora).

A workspace is not thread-safe: one edit at a time.  An edit that makes the text
unreadable raises the error ``tilemem.solve`` would (a TilememError); the workspace keeps
the text, and the next edit that mends it is solved from what was kept.
"""
from __future__ import annotations

from typing import Optional, Sequence

from tilemem import ir
from tilemem.records import replace

__all__ = ["Workspace"]


class _Kept:
    """What phases 0-3 and the rewrite made of one InCore function (its spaces: var ->
    space, or None; see Pipeline.by_function)."""
    __slots__ = ("source", "line", "text", "rewritten", "moves", "spaces", "breaks")

    def __init__(self, source, line, text, rewritten, moves, spaces, breaks):
        self.source, self.line, self.text = source, line, text
        self.rewritten, self.moves, self.spaces, self.breaks = rewritten, moves, spaces, breaks


class Workspace:
    """One program text, solved, and solved again after each edit (see the module
    docstring).  ``backend``, ``rules``, ``engine``, ``limits``, ``form`` and ``program``
    are :func:`tilemem.solve`'s."""

    def __init__(self, text: str, path: str = "<input>", backend: Optional[str] = None,
                 rules: Sequence[str] = (), engine: Optional[str] = None, limits=None,
                 form: Optional[str] = None, program: Optional[str] = None):
        self.path, self.backend, self.rules = path, backend, tuple(rules)
        self.engine, self.limits, self.form, self.program_name = engine, limits, form, program
        self.text = text
        self._kept: dict[str, _Kept] = {}
        self._read: dict[tuple, ir.Function] = {}      # (first line, text) -> function read
        self._head: Optional[tuple[str, ir.Program]] = None     # (prefix, a program read)
        self._checked: dict[int, ir.Function] = {}     # id -> function that passed the checks
        self._solution = None
        self._parts: dict = {}      # function name -> tilemem.residency.parts.Part
        self._shape: Optional[tuple] = None     # the program's names and header of _parts
        self._spans: dict = {}      # function name -> (its def line, its text) of _parts
        #: how many InCore functions the last solve solved again (the others were kept)
        self.resolved_functions = 0
        #: how many functions the last solve's phase 4 held (None: the pipeline's whole
        #: phase 4; 0: no function changed, or no backend)
        self.resolved_residency: Optional[int] = None
        #: how many functions the last solve read again (None: the text was read whole)
        self.reread_functions: Optional[int] = None

    # ------------------------------------------------------------------ edits

    def set_text(self, text: str):
        """Replace the whole text; returns the new solution."""
        self.text = text
        self._solution = None
        return self.solution()

    def edit(self, start: tuple[int, int], end: tuple[int, int], new_text: str):
        """Replace the text from ``start`` to ``end`` (``(line, column)``, 0-based, columns
        in characters, ``end`` excluded, as an editor's range) by ``new_text``; returns
        the new solution."""
        lines = self.text.split("\n")
        a, b = _offset(lines, *start), _offset(lines, *end)
        if b < a:
            raise ValueError(f"edit range ends ({end}) before it starts ({start})")
        return self.set_text(self.text[:a] + new_text + self.text[b:])

    # ------------------------------------------------------------------ the answer

    def solution(self):
        """The :class:`tilemem.Solution` of the current text (computed on first use)."""
        if self._solution is None:
            self._solution = self._solve()
        return self._solution

    def _solve(self):
        from tilemem.api import declared_ops, solution_of
        from tilemem.datalog.engine import gc_paused
        from tilemem.frontend.reading import read_program
        from tilemem.frontend.wellformed import check_program
        from tilemem.limits import guarded
        from tilemem.pipeline import Pipeline, merged_functions
        text, path = self.text, self.path
        with gc_paused(), guarded(path, text):          # the IR holds no cycles (api.solve)
            prog = self._read_by_function(text)
            if prog is None:
                prog = read_program(text, path, self.form, self.program_name,
                                    declared_ops(self.rules), self.limits)
            # (the checks are per function: a function read before was checked before)
            check_program(replace(prog, functions=[
                fn for fn in prog.functions if self._checked.get(id(fn)) is not fn]), path)
            self._checked = {id(fn): fn for fn in prog.functions}
            kept = self._phase3(prog, text)
            emitted, moves, spaces, breaks = merged_functions(prog, {
                name: (k.rewritten, k.moves, k.spaces, k.breaks)
                for name, k in kept.items()})
            pipe = Pipeline(prog, backend=self.backend, rules=self.rules, path=path, text=text,
                            engine=self.engine, limits=self.limits)
            finished, printed = self._phase4(emitted, prog, text, pipe.engine)
            pipe.adopt(emitted, moves, spaces, breaks, finished, printed)
            return solution_of(pipe, text, path, self.limits)

    def _phase4(self, emitted: ir.Program, source: ir.Program, text: str, engine: str):
        """((the final program, the verdicts), its text), phase 4 and the printing done
        per function: a function is solved again (``tilemem.residency.parts``) and printed
        again when it changed.  (None, None) where the pipeline does them whole: with user
        rules (they may join facts of any two functions), two functions of one name, or
        an error (the pipeline's solve then raises it as ``tilemem.solve`` does)."""
        from tilemem.backends import normalize_backend
        from tilemem.errors import TilememError
        from tilemem.ir.printer import print_function, print_program_head
        from tilemem.residency.parts import solve_parts, stripped_parts
        backend = normalize_backend(self.backend)
        names = [f.name for f in emitted.functions]
        self.resolved_residency = None
        if (backend is not None and self.rules) or len(set(names)) != len(names):
            self._parts, self._shape = {}, None
            return None, None
        shape = (emitted.name, emitted.header, emitted.prefix, emitted.dynamic,
                 emitted.class_name, tuple(names))
        texts = _function_texts(source, text)
        spans = {e.name: texts.get(id(f)) for f, e in zip(source.functions, emitted.functions)}
        only: Optional[set] = None
        if shape == self._shape and all(n in self._parts for n in names):
            only = set()
            for e in emitted.functions:
                old = self._parts.get(e.name)
                if old is None or spans[e.name] is None or self._spans.get(e.name) != spans[e.name] \
                        or not (old.emitted is e or old.emitted == e):
                    only.add(e.name)
            if len(only) > max(8, len(names) // 4) or len(only) == len(names):
                only = None                 # most of it: one whole solve costs less
        try:
            if backend is None:
                got = stripped_parts(emitted, only)
                self.resolved_residency = 0
            elif only == set():
                got, self.resolved_residency = {}, 0
            else:
                got, self.resolved_residency = (None, 0) if only is None else solve_parts(
                    emitted, backend, only, self._parts, engine, self.limits)
                if got is None:
                    got, self.resolved_residency = solve_parts(emitted, backend, None, {}, engine,
                                                               self.limits)
        except Exception:                   # (the whole solve's error is raised by the pipeline)
            self._parts, self._shape = {}, None
            return None, None
        parts = {n: got.get(n) or self._parts[n] for n in names}
        self._parts, self._shape, self._spans = parts, shape, spans
        final = replace(emitted, functions=[parts[n].final for n in names])
        residency = None if backend is None else [d for n in names for d in parts[n].decisions]
        pfx = final.prefix or "pl"
        try:
            for n in names:
                if parts[n].printed is None:
                    parts[n].printed = print_function(parts[n].final, prefix=pfx)
        except TilememError:
            return (final, residency), None          # too deep: print_program says where
        printed = "\n".join([print_program_head(final), *(parts[n].printed for n in names)])
        return (final, residency), printed

    def _read_by_function(self, text: str) -> Optional[ir.Program]:
        """Printed IR read one function at a time, each function's text kept with what
        it read as: after an edit only the edited function is read again.  None when the
        text is not plainly a printed program (hand-written DSL, a comment outside the
        header, anything a piece cannot be read alone for): then it is read whole, and
        so any error is the one a whole reading gives."""
        from tilemem.frontend.parser import parse
        from tilemem.frontend.reading import input_form
        from tilemem.limits import check_text
        self.reread_functions = None
        if self.form == "dsl" or input_form(text, self.form) != "ir":
            return None
        pieces = _function_pieces(text)
        if pieces is None:
            return None
        prefix, chunks = pieces
        check_text(text, self.path, self.limits)         # the caps apply to the whole text
        if self._head is None or self._head[0] != prefix:
            return self._read_whole(text, prefix, chunks)
        head = prefix.count("\n")
        read: dict[tuple, ir.Function] = {}
        functions = []
        program = self._head[1]
        reread = 0
        for line, chunk in chunks:
            fn = self._read.get((line, chunk))
            if fn is None or program is None:
                reread += 1
                try:
                    one = parse(prefix + "\n" * (line - 1 - head) + chunk, self.path, self.limits)
                except Exception:
                    return None
                if len(one.functions) != 1 or (program is not None and (
                        one.name, one.header, one.prefix, one.dynamic) != (
                        program.name, program.header, program.prefix, program.dynamic)):
                    return None
                program = program or one
                fn = one.functions[0]
            read[(line, chunk)] = fn
            functions.append(fn)
        if program is None or (self.program_name is not None and program.name != self.program_name):
            return None
        self._read, self._head = read, (prefix, program)
        self.reread_functions = reread
        return replace(program, functions=functions)

    def _read_whole(self, text: str, prefix: str, chunks) -> Optional[ir.Program]:
        """The first reading (or one after the text above the functions changed): the
        whole text at once (one function at a time costs more), its functions kept by
        the pieces they come from."""
        from tilemem.frontend.parser import parse
        try:
            program = parse(text, self.path, self.limits)
        except Exception:
            return None                         # read again by read_program: its error
        fns = program.functions
        if len(fns) != len(chunks) or not all(
                fn.line is not None and line <= fn.line < line + chunk.count("\n") + 1
                for fn, (line, chunk) in zip(fns, chunks)):
            self._read, self._head = {}, None
            return program
        if self.program_name is not None and program.name != self.program_name:
            return None
        self._read = {piece: fn for piece, fn in zip(chunks, fns)}
        self._head = (prefix, program)
        self.reread_functions = len(fns)
        return program

    def _phase3(self, prog: ir.Program, text: str) -> dict[str, _Kept]:
        """What phases 0-3 make of each InCore function: kept when unchanged, the others
        solved together."""
        spans = _function_texts(prog, text)
        kept: dict[str, _Kept] = {}
        changed = []
        for fn in prog.functions:
            if not fn.is_incore:
                continue
            line, ftext = spans.get(id(fn), (None, None))
            old = self._kept.get(fn.name)
            if old is not None and line is not None and old.line == line \
                    and old.text == ftext and (old.source is fn or old.source == fn):
                kept[fn.name] = old
            else:
                changed.append((fn, line, ftext))
        self.resolved_functions = len(changed)
        if changed:
            from tilemem.pipeline import Pipeline
            sub = replace(prog, functions=[fn for fn, _, _ in changed])
            pipe = Pipeline(sub, backend=self.backend, rules=self.rules, path=self.path,
                            text=text, engine=self.engine, limits=self.limits)
            solved = pipe.by_function()
            for fn, line, ftext in changed:
                kept[fn.name] = _Kept(fn, line, ftext, *solved[fn.name])
        self._kept = kept
        return kept


def _function_pieces(text: str) -> Optional[tuple[str, list[tuple[int, str]]]]:
    """(the text before the first function, [(first line, text) of each function from
    its decorator to the next one's]) of a printed program; None when a whole-line
    comment is not plainly inside a function body (followed by a statement of that
    body), where which function owns it is the reader's call."""
    lines = text.split("\n")
    starts = []
    loose = False                   # a comment not yet followed by a body statement
    for i, line in enumerate(lines):
        body = line.lstrip()
        if not body:
            continue
        indent = len(line) - len(body)
        if body.startswith("#"):
            if not starts:
                if not line.startswith("# pypto.program:"):
                    return None
            elif indent <= 4:
                return None
            loose = loose or bool(starts)
        elif indent == 4 and body.startswith("@"):
            if loose:
                return None
            if not (i and lines[i - 1].startswith("    @")):
                starts.append(i)
        elif indent >= 8:
            loose = False
    if not starts or loose:
        return None
    prefix = "\n".join(lines[:starts[0]]) + "\n"
    chunks = []
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        chunks.append((i + 1, "\n".join(lines[i:end])))
    return prefix, chunks


def _offset(lines: list[str], line: int, col: int) -> int:
    """The index in the text of (line, col), 0-based; a position past a line's end is
    its end, past the last line the text's end (as editors clamp them)."""
    if line < 0 or col < 0:
        raise ValueError(f"negative position ({line}, {col})")
    if line >= len(lines):
        return sum(len(x) + 1 for x in lines) - 1
    return sum(len(x) + 1 for x in lines[:line]) + min(col, len(lines[line]))


def _function_texts(prog: ir.Program, text: str) -> dict[int, tuple[int, str]]:
    """id(function) -> (its def line, its text up to the next function's def line); only
    for functions whose line is known and that come in text order."""
    starts = [(fn.line, fn) for fn in prog.functions if fn.line]
    if any(a[0] >= b[0] for a, b in zip(starts, starts[1:])):
        return {}                                   # not in text order: no reuse
    lines = text.split("\n")
    out = {}
    for i, (line, fn) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i + 1 < len(starts) else len(lines)
        out[id(fn)] = (line, "\n".join(lines[line - 1:end]))
    return out
