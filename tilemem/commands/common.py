"""Helpers shared by the subcommands: input, atomic output, exit codes."""
from __future__ import annotations

import argparse
import os
import sys
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

EXIT_OK, EXIT_CHECK, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

EPILOG = """\
exit status:
  0  success
  1  a check failed (fmt --check: not canonical; solve --check: solving would
     change the file; solve --strict: solving warned, e.g. PyPTO's answer
     breaks TileMemoryInferred; verify: the program violates TileMemoryInferred)
  2  usage or input error (bad syntax, missing file, unknown backend, ...;
     in a batch: some file could not be read or solved, the others still are)
  3  internal error in tilemem (please report it with the input that caused it)
  130  interrupted (Ctrl-C; 143: SIGTERM, 129: SIGHUP); nothing half-written
"""


class wrap(str):
    """A long description, filled to 79 columns when help is printed (the parsers keep
    other text as written).  Filling waits for the help: most runs never show it."""
    __slots__ = ()


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Text as written, except :class:`wrap` descriptions, filled to 79 columns."""

    def _fill_text(self, text, width, indent):
        if isinstance(text, wrap):
            import textwrap
            return textwrap.indent(textwrap.fill(str(text), 79, break_on_hyphens=False), indent)
        return super()._fill_text(text, width, indent)


#: commands that read a program (they get the input caps), and those of them that
#: evaluate rules (they also get the budgets of --rules files)
READS_PROGRAMS = ("solve", "fmt", "verify", "facts", "why", "query", "graph")
EVALUATES_RULES = ("solve", "verify", "why", "query", "graph")


def add_parser(subparsers, name: str, **kw) -> argparse.ArgumentParser:
    """A subcommand's parser, with the options every command takes (-q, -v, --color,
    --config, --isolated)."""
    p = subparsers.add_parser(name, epilog=EPILOG,
                              formatter_class=HelpFormatter, **kw)
    g = p.add_argument_group("common options")
    v = g.add_mutually_exclusive_group()
    v.add_argument("-q", "--quiet", action="store_true",
                   help="print less: no progress bar, summary or source excerpts")
    v.add_argument("-v", "--verbose", action="store_true",
                   help="print more on stderr: the configuration used, one line per file")
    g.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the output: auto (on a terminal; NO_COLOR and FORCE_COLOR "
                        "are honoured), always or never")
    g.add_argument("--config", metavar="FILE",
                   help="read [tool.tilemem] from this pyproject.toml instead of the nearest one")
    g.add_argument("--isolated", action="store_true",
                   help="ignore every configuration file")
    if name in READS_PROGRAMS:
        add_limit_options(p, rules=name in EVALUATES_RULES)
    return p


def add_inputs(p: argparse.ArgumentParser, many: bool = True, what: str = "program text") -> None:
    """The input arguments: FILE... (files, directories, ``-``) with --exclude, or one
    FILE; both with --stdin-filename."""
    if many:
        p.add_argument("files", nargs="+", metavar="FILE",
                       help=f"{what} files, directories (every *.pto under them, recursively, "
                            "sorted) or - for stdin")
        p.add_argument("--exclude", action="append", metavar="PATTERN",
                       help="skip files and directories matching this glob when expanding "
                            "directories (a name, dir/ or a relative path); repeatable; "
                            "replaces [tool.tilemem] exclude")
    else:
        p.add_argument("file", metavar="FILE", help=f"{what}, or - for stdin")
    p.add_argument("--stdin-filename", metavar="PATH",
                   help="the name of standard input in messages (and where to look for "
                        "pyproject.toml)")


def add_solver_options(p: argparse.ArgumentParser, backend: bool = True, engine: bool = True,
                       backend_help: str = "as for solve") -> None:
    """--backend, --rules and --engine (defaults from the environment and [tool.tilemem])."""
    if backend:
        p.add_argument("--backend", default=None, help=backend_help)
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="an extra rule file (e.g. op-table facts for your own ops); repeatable")
    if engine:
        p.add_argument("--engine", choices=("clingo", "pydatalog"), default=None,
                       help="Datalog engine: clingo (default; C++, fast) or pydatalog (pure "
                            "Python, 3-8x slower); same rules, same result")


def add_cache_options(p: argparse.ArgumentParser) -> None:
    """--no-cache and --cache-dir: the result cache (tilemem.resultcache)."""
    g = p.add_argument_group("result cache")
    g.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the result cache (answers of unchanged inputs "
                        "kept in .tilemem_cache in the project)")
    g.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="keep the result cache in DIR (default: [tool.tilemem] cache-dir, "
                        "$TILEMEM_RESULT_CACHE_DIR, else .tilemem_cache beside the project's "
                        "pyproject.toml or in the current directory)")


def result_cache(args):
    """The command's result cache (a :class:`tilemem.resultcache.ResultCache`), or None
    when it is turned off."""
    if getattr(args, "no_cache", False):     # (the cache's module imports json: ~5 M instructions)
        return None
    from tilemem.resultcache import ResultCache, default_dir, disabled_by_environment
    if disabled_by_environment():
        return None
    where = getattr(args, "cache_dir", None)
    settings = getattr(args, "settings", None)
    return ResultCache(where or default_dir(settings.config_file if settings else None))


def add_output_format(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--output-format", choices=("text", "json", "github", "sarif"), default=None,
                   help=f"how to print {what} (on stdout): text (default), json, github "
                        "(GitHub Actions annotations) or sarif (SARIF 2.1.0)")


def style(args, stream=None, data: bool = False):
    """The colour style for a stream (stdout by default) under --color; ``data``: for a
    program or a diff (``FORCE_COLOR`` alone does not colour them off a terminal)."""
    from tilemem.tools.colors import Style, use_color
    return Style(use_color(getattr(args, "color", "auto"), stream or sys.stdout, data=data))


def _size(text: str) -> int:
    from tilemem.limits import parse_size
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _limit(read, unit: str = ""):
    """An argparse type for a limit: ``read`` turns the text into a number, which must be
    0 (no limit) or more; ``unit`` names it in the messages."""
    of, more = (f" of {unit}", f" {unit}") if unit else ("", "")

    def limit(text: str):
        try:
            x = read(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number{of}: {text!r}") from None
        if not 0 <= x < float("inf"):
            raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more{more}")
        return x
    return limit


_count = _limit(lambda text: int(text.replace("_", "").replace(",", "")))
_seconds = _limit(float, "seconds")


def add_limit_options(p: argparse.ArgumentParser, rules: bool) -> None:
    """The caps on one input (and, with ``rules``, the budgets of --rules files)."""
    from tilemem.limits import DEFAULT_LIMITS as d
    g = p.add_argument_group("limits (0 lifts a limit)")
    g.add_argument("--max-input-size", type=_size, default=None, metavar="SIZE",
                   help=f"largest input accepted (default {d.max_input_size >> 20}M; "
                        f"suffixes K, M, G)")
    g.add_argument("--max-line-length", type=_size, default=None, metavar="N",
                   help=f"longest input line accepted, in characters (default "
                        f"{d.max_line_length >> 20}M)")
    if rules:
        g.add_argument("--max-facts", type=_count, default=None, metavar="N",
                       help=f"stop when the rules of --rules files have derived N facts "
                            f"(default {d.max_facts:,})")
        g.add_argument("--max-seconds", type=_seconds, default=None, metavar="S",
                       help=f"stop when the rules of --rules files have run S seconds "
                            f"(default {d.max_seconds:g})")


def limits_from(args):
    """The Limits of a command's flags (the defaults where a flag is not given)."""
    from tilemem.limits import DEFAULT_LIMITS
    return DEFAULT_LIMITS.replace(
        max_input_size=getattr(args, "max_input_size", None),
        max_line_length=getattr(args, "max_line_length", None),
        max_facts=getattr(args, "max_facts", None),
        max_seconds=getattr(args, "max_seconds", None))


#: (display path, text) of the last program read by this command (for the located
#: message of a leftover RecursionError/MemoryError, see cli.main)
current_input: list = [None, None]


def read_input(path: str, stdin_name: Optional[str] = None) -> tuple[str, str]:
    """(text, display path) of a program file, or of standard input for ``-`` (shown as
    ``stdin_name``, default ``<stdin>``); the display path has its control characters
    escaped (``errors.printable``): every message built from it can be printed."""
    text, shown, _ = read_input_identity(path, stdin_name, identity=False)
    return text, shown


def read_input_identity(path: str, stdin_name: Optional[str] = None, identity: bool = True):
    """``(text, display path, identity)``: :func:`read_input`, and what the file was when
    read (``tilemem.files.FileIdentity``; None for standard input or without
    ``identity``), for a rewrite in place to check it is still that file."""
    from tilemem.errors import printable
    from tilemem.input_text import decode_source, read_source_identity, read_stream
    ident = None
    if path == "-":
        name = printable(stdin_name or "<stdin>")
        text, shown = decode_source(read_stream(sys.stdin.buffer, name), name), name
    else:
        (text, ident), shown = read_source_identity(path, identity=identity), printable(path)
    current_input[:] = [shown, text]
    return text, shown, ident


def read_arg(args, path: Optional[str] = None) -> tuple[str, str]:
    """``read_input`` of a command's (first) input, with its --stdin-filename."""
    return read_arg_identity(args, path, identity=False)[:2]


def read_arg_identity(args, path: Optional[str] = None, identity: bool = True):
    """``(text, display path, identity)`` of a command's (first) input: ``read_arg``, and
    (with ``identity``) what the file was when read (``read_input_identity``)."""
    if path is None:
        path = args.file if hasattr(args, "file") else args.files[0]
        if path != "-" and os.path.isdir(path):
            from tilemem.errors import UsageError, printable
            raise UsageError(f"{printable(path)} is a directory: `tilemem {args.command}` reads "
                             "one program (solve, verify and fmt take directories)")
    return read_input_identity(path, getattr(args, "stdin_filename", None), identity=identity)


def write_atomic(path: str, text, expect=None) -> None:
    """Write text (or bytes) to path: old or new content, never half of one, through
    symlinks, keeping mode, owner and hard links, into a FIFO or device as a stream;
    ``expect``: the FileIdentity the file must still have (``tilemem.files``)."""
    from tilemem.files import write_atomic as write
    write(path, text, expect)


def emit(text: str, out: Optional[str]) -> None:
    """Print text (with a final newline) to stdout, or write it atomically to ``out``."""
    if not text.endswith("\n"):
        text += "\n"
    if out and out != "-":
        write_atomic(out, text)
    else:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except OSError as e:        # a full disk, a device or a pipe nobody reads: not a bug
            from tilemem.errors import UsageError
            try:                    # drop what is still buffered, or exit would retry it
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            raise UsageError(f"cannot write to standard output: {e.strerror or e}") from None


READING_HELP = ("how to read the input: ir (PyPTO's printed IR), dsl (hand-written "
                "@pl.program Python) or auto (default: printed IR when the file starts with "
                "PyPTO's header '# pypto.program: NAME', else DSL)")


def add_reading_options(p) -> None:
    """``--input-form`` and ``--program`` (the reading of the input, see
    tilemem.frontend.reading)."""
    p.add_argument("--input-form", choices=("auto", "ir", "dsl"), default="auto", metavar="FORM",
                   help=READING_HELP)
    p.add_argument("--program", metavar="NAME",
                   help="the @pl.program class to use when the file holds several (a .py module)")


def reading_form(args):
    """The form asked for with --input-form (None: decide by the printer header)."""
    form = getattr(args, "input_form", "auto")
    return None if form in (None, "auto") else form


def read_programs(args, text: str, path: str) -> list:
    """The programs of an input as the command line asks for them."""
    from tilemem.api import declared_ops
    from tilemem.datalog.engine import gc_paused
    from tilemem.frontend.reading import read_programs as _read
    with gc_paused():       # the IR holds no cycles (see tilemem.api.solve)
        return _read(text, path, reading_form(args), getattr(args, "program", None),
                     declared_ops(getattr(args, "rules", None) or ()))


def read_one_program(args, text: str, path: str):
    """The one program of an input (several need --program)."""
    from tilemem.errors import TilememError
    progs = read_programs(args, text, path)
    if len(progs) > 1:
        names = ", ".join(p.name for p in progs)
        raise TilememError(path, None, None,
                           f"{len(progs)} programs in this file ({names}); choose one with --program NAME")
    return progs[0]
