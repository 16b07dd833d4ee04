"""Solving many files: input expansion, per-file jobs, worker processes, results.

Each job solves one whole file and returns a picklable :class:`FileResult`; a
failing file never stops the batch.  ``run_batch`` yields results in input order
whatever the number of workers, so the output of a batch is deterministic.

Also here: the JSON form of a solution (``solution_json``, schema in README) and
the unified diff of input vs solved text (``unified_diff``), shared by the
single-file and batch paths of ``tilemem solve``.
"""
from __future__ import annotations

import functools
import fnmatch
import os
import sys
import time
from pathlib import Path
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterator, Optional, Sequence
from tilemem.records import Fresh, LIST, Record, record
from tilemem.solved import SOLUTION_SCHEMA, SolvedProgram, solution_json  # noqa: F401 (re-exported)
BATCH_SCHEMA = "tilemem-batch/1"

OK, INPUT_ERROR, INTERNAL_ERROR = "ok", "input-error", "internal-error"


# ----------------------------------------------------------------------------- inputs


def expand_inputs(args: Sequence[str], exclude: Optional[str] = None, *,
                  include: Sequence[str] = ("*.pto",), exclude_patterns: Sequence[str] = ()
                  ) -> tuple[list[tuple[str, str]], list[str]]:
    """``(files, problems)``: each file as ``(path, root)`` and one message per bad argument.

    A directory means every file under it whose name matches one of the ``include``
    globs (default ``*.pto``), recursively, sorted by path; its root is the directory.
    A file's root is its own directory.  Files under ``exclude`` (the output directory)
    are skipped, and so are files found in a directory that ``exclude_patterns`` match
    (see :func:`is_excluded`); a file named on the command line is always taken.  Each
    file is listed once.
    """
    from tilemem.errors import printable
    files: list[tuple[str, str]] = []
    problems: list[str] = []
    seen: set[str] = set()
    excl = os.path.abspath(exclude) if exclude else None

    def under_excl(ap: str) -> bool:
        return bool(excl) and (ap == excl or ap.startswith(excl + os.sep))

    def add(path: str, root: str):
        ap = os.path.abspath(path)
        if ap in seen or under_excl(ap):
            return
        seen.add(ap)
        files.append((path, root))

    for a in args:
        if a != "-" and os.path.isdir(a):
            if under_excl(os.path.abspath(a)):
                problems.append(f"{printable(a)}: error: this directory is inside the output directory "
                                f"{exclude}: its results would land among the inputs; choose an "
                                f"--out-dir outside it")
                continue
            found = sorted(str(p) for p in Path(a).rglob("*") if p.is_file()
                           and any(fnmatch.fnmatchcase(p.name, g) for g in include)
                           and not is_excluded(str(p), a, exclude_patterns))
            if not found:
                pats = ", ".join(include)
                problems.append(f"{printable(a)}: error: no {pats} files in this directory"
                                + (" (after --exclude)" if exclude_patterns else ""))
            for f in found:
                add(f, a)
        else:
            add(a, os.path.dirname(a) or ".")
    return files, problems


def is_excluded(path: str, root: str, patterns: Sequence[str]) -> bool:
    """Whether a file found under directory ``root`` is excluded by a glob of ``patterns``:
    a pattern matches the file's name, the name of a directory between ``root`` and the
    file, or the file's path relative to ``root`` or to the current directory (as ruff's
    ``--exclude``; ``*`` also matches ``/`` here)."""
    if not patterns:
        return False
    rel = os.path.relpath(path, root)
    parts = Path(rel).parts
    candidates = set(parts) | {rel, os.path.relpath(path), os.path.normpath(path)}
    for pat in patterns:
        pat = pat.rstrip("/") or pat
        if any(fnmatch.fnmatchcase(c, pat) for c in candidates):
            return True
    return False


def output_paths(files: Sequence[tuple[str, str]], out_dir: str) -> list[str]:
    """Where each input's result goes under ``out_dir``: its path relative to the
    common directory of all the inputs' roots (a single directory argument maps
    ``DIR/a/b.pto`` to ``OUT/a/b.pto``)."""
    if not files:
        return []
    roots = [os.path.abspath(root) for _, root in files]
    base = os.path.commonpath(roots)
    return [os.path.join(out_dir, os.path.relpath(os.path.abspath(p), base)) for p, _ in files]


# ----------------------------------------------------------------------------- one file


@record(extras=True)
class FileResult(Record):
    """The outcome of solving one file (picklable: it crosses process boundaries)."""
    def __init__(
            self,
            path: str,
            status: str = OK,                 # ok | input-error | internal-error
            source: Optional[str] = None,     # the input text
            text: Optional[str] = None,       # the solved text (ends with a newline)
            json: Optional[dict] = None,      # solution_json(...) when asked for
            error: Optional[str] = None,      # the one-line error message
            # where the error is: (line, col, message, source line), when it has a position
            located: Optional[tuple] = None,
            warnings: list = LIST,            # SolveWarning records
            seconds: float = 0.0,
            # what the file was when read (tilemem.files.FileIdentity), when asked for:
            # an --in-place rewrite checks the file is still that one
            identity=None,
    ):
        self.path, self.status, self.source = path, status, source
        self.text, self.json, self.error = text, json, error
        self.located, self.seconds, self.identity = located, seconds, identity
        self.warnings = warnings.factory() if type(warnings) is Fresh else warnings

    @property
    def changed(self) -> bool:
        return self.status == OK and is_changed(self.source, self.text)


def is_changed(source: str, solved: str) -> bool:
    """Whether writing ``solved`` would change the file (final newlines aside, as ``fmt --check``)."""
    return source.rstrip("\n") != solved.rstrip("\n")


def with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def solved_programs(text: str, path: str, backend: Optional[str], rules: Sequence[str],
                    engine: Optional[str] = None, form: Optional[str] = None,
                    program: Optional[str] = None, limits=None, single: bool = False,
                    cache=None, check=None, alongside: bool = False) -> list[SolvedProgram]:
    """The answer of every program of ``text`` (``single``: the one program, an error when
    it holds several), from ``cache`` (a :class:`tilemem.resultcache.ResultCache`) when it
    has them, else solved (and stored there).  ``check(readings)`` is called with the
    reading of each program before any is solved (or when they come from the cache), to
    refuse what the caller cannot do with them.  ``alongside``: a large program's printed-IR
    check may run on a spare core while it is solved (a command that solves one file:
    :mod:`tilemem.frontend.check.alongside`)."""
    from tilemem.limits import current_limits
    limits = limits or current_limits()
    key = None
    if cache is not None:
        from tilemem.resultcache import result_key
        key = result_key("solve", text, path, rules, backend=backend, form=form, program=program,
                         limits=repr(limits),
                         engine=engine or os.environ.get("TILEMEM_ENGINE") or "default")
        got = cache.get(key)
        if got is not None:
            try:
                out = [SolvedProgram.from_dict(d) for d in got]
            except Exception:           # not what this version stores: solve it again
                out = None
            if out and (len(out) == 1 or not single):    # several: single's error, below
                if check is not None:
                    check([p.solution.get("reading") for p in out])
                return out
    from tilemem.frontend.check.alongside import checks_alongside
    with checks_alongside(alongside):
        out = _solved(text, path, backend, rules, engine, form, program, limits, single, check)
    if key is not None:
        cache.put(key, [p.to_dict() for p in out])
    return out


def _solved(text, path, backend, rules, engine, form, program, limits, single, check):
    """:func:`solved_programs`' programs solved now."""
    from tilemem import api
    if single:
        out = [SolvedProgram.of(api.solve(text, backend=backend, rules=rules, path=path,
                                          engine=engine, limits=limits, form=form,
                                          program=program), path)]
        if check is not None:
            check([out[0].solution["reading"]])
    else:
        from tilemem.datalog.engine import gc_paused
        from tilemem.frontend.reading import read_programs
        from tilemem.limits import guarded
        with gc_paused(), guarded(path, text):       # the IR holds no cycles (see api.solve)
            progs = read_programs(text, path, form, program, api.declared_ops(rules), limits)
        if check is not None:
            check([p.reading for p in progs])
        out = [SolvedProgram.of(api.solve_program(p, text, path, backend, rules, engine, limits),
                                path) for p in progs]
    return out


def solve_file(path: str, backend: Optional[str], rules: Sequence[str],
               want_json: bool = False, engine: Optional[str] = None,
               limits=None, cache_dir: Optional[str] = None,
               identity: bool = False) -> FileResult:
    """Solve one file; never raises for a bad input (the result says what went wrong).
    ``limits``: a :class:`tilemem.limits.Limits` (default: the current ones);
    ``cache_dir``: the result cache's directory (None: no cache); ``identity``: also say
    what the file was when read (``FileResult.identity``, for an in-place rewrite)."""
    from tilemem.commands.common import read_input_identity
    from tilemem.datalog import DatalogError
    from tilemem.errors import TilememError, UsageError, printable
    from tilemem.limits import current_limits, use_limits
    t0 = time.perf_counter()
    res = FileResult(path)
    try:
        with use_limits(limits or current_limits()):
            res.source, shown, res.identity = read_input_identity(path, identity=identity)
            res.path = shown
            cache = None
            if cache_dir is not None:
                from tilemem.resultcache import ResultCache
                cache = ResultCache(cache_dir)
            solved = solved_programs(res.source, shown, backend, rules, engine, single=True,
                                     cache=cache)[0]
        res.text = solved.text
        res.warnings = list(solved.warnings)
        if want_json:
            res.json = solved.json(is_changed(res.source, res.text))
    except (UsageError, DatalogError) as e:      # TilememErrors at no place of the input
        res.status, res.error = INPUT_ERROR, printable(f"{res.path}: error: {e}")
    except TilememError as e:
        res.status, res.error = INPUT_ERROR, e.format_first_line()
        res.located = (e.line, e.col, e.message, e.source_line)
    except Exception as e:  # a bug in tilemem: report it, keep going
        res.status = INTERNAL_ERROR
        res.error = printable(f"tilemem: internal error: {path}: {type(e).__name__}: {e}")
    res.seconds = time.perf_counter() - t0
    return res


def _job(args) -> FileResult:
    return solve_file(*args)


def _load_in_worker(rules: tuple, engine: Optional[str]) -> None:
    """Once per worker: the rule program (and the engine) loaded for every file it solves."""
    from tilemem.datalog import engine_class
    from tilemem.infer.solver import load_rules
    try:
        load_rules(rules)
        if engine:
            engine_class(engine)
    except Exception:           # reported per file by solve_file
        pass


def _died(task, reason: str) -> FileResult:
    from tilemem.errors import printable
    path = printable(task[0])
    return FileResult(path, INPUT_ERROR,
                      error=f"{path}: error: worker died ({reason}) while solving this file "
                            f"(out of memory, or killed); the other files go on")


def _timed_out(task, seconds: float) -> FileResult:
    from tilemem.errors import printable
    path = printable(task[0])
    return FileResult(path, INPUT_ERROR, seconds=seconds,
                      error=f"{path}: error: not solved within {seconds:g} s "
                            f"(--timeout-per-file); the other files go on")


#: Per-file budgets of a batch: about ten times what the largest real kernel needs
#: (21,000 lines: ~11 s of CPU, 450 MB with clingo; wall time on a loaded 2-core machine
#: ~30 s).
DEFAULT_TIMEOUT = 300.0
DEFAULT_MEMORY = 4 << 30


def run_batch(paths: Sequence[str], backend: Optional[str], rules: Sequence[str],
              want_json: bool = False, jobs: int = 1,
              engine: Optional[str] = None, limits=None,
              timeout: Optional[float] = DEFAULT_TIMEOUT,
              memory: Optional[int] = DEFAULT_MEMORY,
              cache_dir: Optional[str] = None,
              identity: bool = False) -> Iterator[FileResult]:
    """Solve every path, yielding results in input order.

    A single path is solved in this process; several in up to ``jobs`` worker
    processes (``tilemem.tools.workers``: each keeps the rule program it loaded, a dead
    worker is reported for its file and replaced, a file over ``timeout`` seconds or
    ``memory`` bytes is reported; 0 or None: no budget) -- the others go on.
    ``cache_dir``: the result cache (:mod:`tilemem.resultcache`; None: none).
    """
    from tilemem.limits import current_limits
    from tilemem.tools.workers import run_tasks
    limits = limits or current_limits()
    cache_dir = None if cache_dir is None else str(cache_dir)
    work = [(p, backend, tuple(rules), want_json, engine, limits, cache_dir, identity)
            for p in paths]
    if len(work) <= 1:
        for w in work:
            yield _job(w)
        return
    yield from run_tasks(work, _job, jobs, died=_died, timed_out=_timed_out,
                         timeout=timeout or None, memory=memory or None,
                         init=functools.partial(_load_in_worker, tuple(rules), engine))


# ----------------------------------------------------------------------------- diffs


def unified_diff(before: str, after: str, path: str) -> str:
    """A unified diff of ``before`` -> ``after`` labelled with ``path`` (applies with ``patch -p0``)."""
    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    import difflib          # only when a diff is asked for
    out = []
    for line in difflib.unified_diff(a, b, fromfile=path, tofile=path):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


# ----------------------------------------------------------------------------- progress


class Progress:
    """A one-line progress bar on a terminal stream; does nothing elsewhere."""

    def __init__(self, total: int, stream=None, enabled: Optional[bool] = None):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled and total > 0
        self.done = 0
        self.shown = False

    def _width(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            return 80

    def update(self, done: int, label: str = "") -> None:
        self.done = done
        if not self.enabled:
            return
        width = self._width()
        bar_w = max(10, min(30, width // 4))
        filled = bar_w * done // self.total
        count = f"{done}/{self.total}"
        head = f"[{'#' * filled}{'.' * (bar_w - filled)}] {count} "
        room = max(0, width - len(head) - 1)
        from tilemem.errors import printable
        label = printable(label)
        if len(label) > room:
            label = "..." + label[-(room - 3):] if room > 3 else ""
        self.stream.write("\r\x1b[K" + head + label)
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
