"""The library front: ``tilemem.solve``, ``tilemem.parse``, ``tilemem.print_program``."""
from __future__ import annotations

import io
import os
from contextlib import AbstractContextManager
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import IO, Any, Optional, Sequence, Union, cast

from tilemem import ir
from tilemem.infer.contract import CONTRACT_CODE
from tilemem.datalog.engine import gc_paused
from tilemem.input_text import read_source
from tilemem.frontend.reading import declared_ops, read_program, read_programs
from tilemem.infer.emitter import MoveRecord
from tilemem.infer.halves import solve_in_halves
from tilemem.ir.printer import print_program  # noqa: F401  (the library front re-exports it)
from tilemem.limits import Limits, guarded
from tilemem.pipeline import Pipeline
from tilemem.residency.facts import bridge_marks
from tilemem.residency.verdicts import ResidencyDecision
from tilemem.records import Fresh, LIST, Record, record
from tilemem.solved import SolveWarning

if TYPE_CHECKING:       # the explanation classes are imported when a question is asked
    from tilemem.datalog.database import QueryResult
    from tilemem.explain import ProofNode, Session, WhyNot
    from tilemem.explain.rendering import Answer

__all__ = ["parse", "solve", "solve_all", "solve_program", "declared_ops", "print_program",
           "Solution", "SolveWarning"]


def parse(text: str, path: str = "<input>", limits: Optional[Limits] = None,
          form: Optional[str] = None, program: Optional[str] = None,
          rules: Sequence[str] = ()) -> ir.Program:
    """Read program text into tilemem's IR (raises TilememError on bad input).

    ``form``: "ir" (PyPTO's printed IR), "dsl" (hand-written DSL) or None (by the
    printer header, see :mod:`tilemem.frontend.reading`); ``program``: which
    ``@pl.program`` of a file holding several; ``rules``: rule files whose ``op``
    facts declare ops of your own (accepted as ``pl.tile.NAME(...)`` in the DSL).
    """
    with guarded(path, text):
        return read_program(text, path, form, program, declared_ops(rules), limits)


#: what tilemem.solve reads: program text, a file's path, or an open file
if TYPE_CHECKING:
    Source = Union[str, os.PathLike[str], IO[Any]]


def _names_a_file(s: str) -> bool:
    """A one-line string that names a file (or a program file that is not there)."""
    return "\n" not in s and len(s) < 4096 and (
        os.path.exists(s) or s.strip().endswith((".pto", ".py")))


BRIDGE_WARNING = ("{n} load{s} carr{ies} the compiler's Mat-bridge mark "
                  "(__compiler_tensor_to_tile_mat_bridge) but no backend is set, so the "
                  "loop-invariant residency phase does not run: give --backend, "
                  "TILEMEM_BACKEND or [tool.tilemem] backend")


@record(hidden=('_source_text', '_engine', '_limits', '_session'), extras=True)
class Solution(Record):
    """The result of solving one program.

    ``text``: the annotated program as PyPTO prints it; ``program``: the rewritten IR;
    ``spaces``: function -> var -> space; ``moves``: the inserted moves.
    """
    def __init__(
            self,
            text: str,
            program: ir.Program,
            spaces: dict[str, dict[str, str]],
            moves: list[MoveRecord],
            backend: Optional[str],
            source: ir.Program,
            path: str = "<input>",
            extra_rules: tuple[str, ...] = (),
            # phase 4 verdicts (None without a backend): one per marked load / chain step in a loop
            residency: Optional[list[ResidencyDecision]] = None,
            # e.g. bridge marks without a backend (SolveWarning records)
            warnings: list[SolveWarning] = LIST,
            _source_text: Optional[str] = None,
            _engine: Optional[str] = None,
            _limits: Optional[Limits] = None,
            _session: Optional[Session] = None,
    ):
        self.text, self.program, self.spaces = text, program, spaces
        self.moves, self.backend, self.source = moves, backend, source
        self.path, self.extra_rules, self.residency = path, extra_rules, residency
        self._source_text, self._engine, self._limits = _source_text, _engine, _limits
        self._session = _session
        given: Any = warnings            # (a Fresh default, or the list)
        self.warnings = given.factory() if type(given) is Fresh else warnings

    def query(self, pattern: str) -> QueryResult:
        """Rows of a Datalog pattern over the program's facts and derived relations.

        Returns ``(columns, rows)``; e.g. ``query('space(V, "Acc")')``.  Relations of
        phase 4 (residency, e.g. ``hoist(P, L)``) are answered from the whole rewritten
        program when a backend is set.  The databases are built on first use and kept
        until :meth:`close`.
        """
        with self._guarded():
            result: QueryResult = self.session().query(pattern)
            return result

    def session(self) -> Session:
        """The :class:`tilemem.explain.Session` behind query/explain (built lazily)."""
        if self._session is None:
            from tilemem.explain import Session
            self._session = Session(Pipeline(self.source, self.backend, self.extra_rules,
                                             self.path, self._source_text, self._engine,
                                             explain=True, limits=self._limits))
        return self._session

    def explain(self, var: str, function: Optional[str] = None) -> Union[ProofNode, WhyNot]:
        """The proof tree of the var's memory space (a :class:`tilemem.explain.ProofNode`;
        ``str()`` is an indented tree, ``to_dict()`` JSON-able data).  For a var the rules
        leave unresolved, a :class:`tilemem.explain.WhyNot` saying why.  ``var`` is a
        name, ``"function:name"``, or the name of an inserted move (then the proof of
        the ``move_at`` fact that inserted it)."""
        with self._guarded():
            tree: Union[ProofNode, WhyNot] = self.session().explain_var(var, function)
            return tree

    def why(self, subject: str, function: Optional[str] = None) -> Answer:
        """The answer ``tilemem why`` prints, as a :class:`tilemem.explain.Answer`
        (``str()``: the paragraph and the deciding steps; ``summary``: the paragraph;
        ``to_dict()``: what ``tilemem why --json`` prints, without the file's fields).

        ``subject``: a tile var (``"c_tile"`` or ``"kernel:c_tile"``; ``function`` says
        which function when the name is in several), an inserted move's name, a line of
        the input (``12``, or ``"12:8"`` with a column: an answer a tile defined, moved
        or hoisted there, in ``parts``), or a fact pattern such as
        ``'move_at(P, "kernel:a", T)'`` (why the facts matching it hold, or why none
        does)."""
        from tilemem.explain.answer import answer_subject
        with self._guarded():
            return answer_subject(self.session(), subject, function)

    def why_not(self, var: str, space: str, function: Optional[str] = None,
                depth: int = 3) -> Answer:
        """Why ``var`` is not in ``space`` (``tilemem why VAR --not SPACE``): a
        :class:`tilemem.explain.Answer`, whose ``trees`` hold the why-not search (each
        rule that could derive ``space(var, space)`` and its first failing premise)."""
        from tilemem.explain.answer import answer_not, space_name
        with self._guarded():
            return answer_not(self.session(), var, space_name(space), function, depth)

    def proofs(self, fact: str) -> Union[list[ProofNode], WhyNot]:
        """Proof trees of the facts matching a pattern such as ``move_at(P, "k:a", T)``,
        or a :class:`tilemem.explain.WhyNot` when none holds."""
        with self._guarded():
            proofs: Union[list[ProofNode], WhyNot] = self.session().why(fact)
            return proofs

    def explain_residency(self, var: str, function: Optional[str] = None) -> list[ProofNode]:
        """Proof trees of the phase 4 verdicts on the statement defining ``var``
        (``residency_hoisted`` / ``residency_declined``); empty without a backend."""
        with self._guarded():
            return self.session().explain_residency(var, function)

    def _guarded(self) -> AbstractContextManager[None]:
        """Explanations walk proofs as deep as the program nests (see tilemem.limits)."""
        return guarded(self.path, self._source_text)

    def close(self) -> None:
        """Free the databases kept for queries and explanations."""
        if self._session is not None:
            self._session.close()
            self._session = None


def _unread_rule_warnings(pipe: Pipeline) -> list[SolveWarning]:
    """A warning per relation of a --rules file that nothing the solve reads depends on."""
    if not pipe.rules:
        return []
    from tilemem.infer.solver import RESULT_RELATIONS, load_rules, unread_user_relations
    from tilemem.residency.solve import RESIDENCY_RESULTS
    rules = load_rules(pipe.rules)
    with_backend = {p for p, _ in unread_user_relations(rules, RESULT_RELATIONS + RESIDENCY_RESULTS)}
    read = RESULT_RELATIONS + (RESIDENCY_RESULTS if pipe.backend is not None else ())
    out = []
    for pred, loc in unread_user_relations(rules, read):
        why = ("is not read by any rule of the solve" if pred in with_backend else
               "is only read by the residency phase, which runs with a backend")
        where: Any = loc          # a tilemem.datalog.location.Loc
        out.append(SolveWarning(where.file, where.line, where.col,
                                f"relation '{pred}' {why}: what this file says about it has "
                                f"no effect", "unread-relation", "warning"))
    return out


def solve(source: Source, backend: Optional[str] = None, rules: Sequence[str] = (),
          path: Optional[str] = None, engine: Optional[str] = None,
          limits: Optional[Limits] = None, form: Optional[str] = None,
          program: Optional[str] = None) -> Solution:
    """Infer the memory space of every tile of every InCore function.

    ``source`` is program text (a ``str``), a file to read (a ``pathlib.Path`` or any
    path-like object: ``tilemem.solve(Path("kernel.pto"))``), or an open file (its
    ``name`` is the path messages give).  A ``str`` is always text: a one-line string
    naming a file is refused with a message saying to pass a ``Path``.  ``path``: the
    name messages give for text (default ``<input>``).
    ``backend``: None/"none", "910B"/"Ascend910B", "950"/"Ascend950".
    ``rules``: extra rule files (e.g. the op table entries of your own ops).
    ``engine``: the Datalog engine, "clingo" (the default: fast) or "pydatalog" (pure
    Python); same rules, same result.  Default: ``$TILEMEM_ENGINE``, else "clingo".
    ``limits``: caps on the input and budgets of the ``rules``' evaluation
    (:class:`tilemem.limits.Limits`; default: the defaults).
    ``form`` and ``program``: as for :func:`parse` (a file holding several programs
    needs ``program``; :func:`solve_all` solves each).
    """
    # The IR, the facts and the emitter's output hold no reference cycles: the cyclic
    # collector would only re-traverse them, again and again as the heap grows (1.0 s of
    # 9.1 s on the 21,000-line DeepSeek MTP kernel).  What little cyclic garbage a solve
    # leaves is collected after it.
    with gc_paused():
        text, path = _text_of(source, path)
        with guarded(path, text if isinstance(text, str) else None):
            prog = read_program(text, path, form, program, declared_ops(rules), limits)
            return _solve(prog, text, path, backend, rules, engine, limits)


def solve_all(source: Source, backend: Optional[str] = None, rules: Sequence[str] = (),
              path: Optional[str] = None, engine: Optional[str] = None,
              limits: Optional[Limits] = None, form: Optional[str] = None) -> list[Solution]:
    """:func:`solve` for every program of the text (a ``.py`` module may hold several),
    each solved on its own, in source order."""
    with gc_paused():
        text, path = _text_of(source, path)
        with guarded(path, text if isinstance(text, str) else None):
            progs = read_programs(text, path, form, None, declared_ops(rules), limits)
            return [_solve(p, text, path, backend, rules, engine, limits) for p in progs]


def solve_program(program: ir.Program, text: str, path: str, backend: Optional[str] = None,
                  rules: Sequence[str] = (), engine: Optional[str] = None,
                  limits: Optional[Limits] = None) -> Solution:
    """Solve a program already read (``text``: the file it was read from)."""
    with gc_paused(), guarded(path, text):
        return _solve(program, text, path, backend, rules, engine, limits)


def _text_of(source: Source, path: Optional[str]) -> tuple[str, str]:
    """(program text, the path messages give) of what ``solve`` was given."""
    from tilemem.errors import TilememError
    from tilemem.input_text import decode_source, read_stream
    if isinstance(source, os.PathLike):
        name = os.fspath(source)
        return read_source(name), path or name
    if hasattr(source, "read"):
        name = path or str(getattr(source, "name", "<input>"))
        try:
            raw = getattr(source, "buffer", None)        # a text file: its bytes, checked
            data: Union[str, bytes]
            if raw is None and isinstance(source, io.TextIOBase):
                data = source.read()
            else:
                data = read_stream(source if raw is None else raw, name)
        except OSError as e:
            raise TilememError(name, None, None, f"cannot read file: {e.strerror or e}") from None
        return (data if isinstance(data, str) else decode_source(data, name)), name
    if isinstance(source, (bytes, bytearray)):
        return decode_source(bytes(source), path or "<input>"), path or "<input>"
    if not isinstance(source, str):
        raise TilememError(path, None, None, f"solve reads program text (str), a file path "
                           f"(pathlib.Path) or an open file, not {type(source).__name__}")
    if _names_a_file(source) and "@pl.program" not in source:
        raise TilememError(source.strip(), None, None,
                           "a str is program text, and this one names a file"
                           + ("" if os.path.exists(source) else " that does not exist")
                           + f": to read a file, pass a path: tilemem.solve(pathlib.Path({source.strip()!r}))")
    return source, path or "<input>"



def _solve(program: ir.Program, text: str, path: str, backend: Optional[str],
           rules: Sequence[str], engine: Optional[str], limits: Optional[Limits]) -> Solution:
    from tilemem.frontend.check.alongside import check_program_unless_apart
    check_program_unless_apart(program, path)
    pipe = Pipeline(program, backend=backend, rules=rules, path=path, text=text, engine=engine,
                    limits=limits)
    solve_in_halves(pipe)           # (phases 0-3 on two cores, where a command has them)
    return solution_of(pipe, text, path, limits)


def solution_of(pipe: Pipeline, text: str, path: str, limits: Optional[Limits]) -> Solution:
    """The Solution of a checked program's pipeline (its warnings, phase 4, the text)."""
    warnings = []
    bridges = bridge_marks(pipe.program) if pipe.backend is None else []
    if bridges:
        n = len(bridges)
        warnings.append(SolveWarning(path, bridges[0][0], bridges[0][1], BRIDGE_WARNING.format(
            n=n, s="s" if n > 1 else "", ies="ies" if n == 1 else "y"), "bridge-without-backend",
            "warning"))
    breaks = pipe.contract_breaks()
    # the source lines only for the warnings' excerpts, and not kept over phase 4 (the
    # lines of a 21,000-line kernel are 4.6 MB of its peak memory)
    lines = text.splitlines() if breaks else []
    for b in breaks:
        src = lines[b.line - 1] if b.line and b.line <= len(lines) else None
        warnings.append(SolveWarning(path, b.line, b.col, b.message, CONTRACT_CODE, "warning",
                                     src, f"{b.function}:{b.var}"))
    del lines
    warnings.extend(_unread_rule_warnings(pipe))
    out, residency = pipe.finished()
    return Solution(text=pipe.printed(), program=out, spaces=pipe.spaces(), moves=pipe.moves,
                    backend=pipe.backend, source=pipe.program, path=path,
                    extra_rules=pipe.rules, residency=residency, warnings=warnings,
                    _source_text=text, _engine=pipe.engine, _limits=limits)
