"""The ``tilemem`` command line (a thin front over the library).

Exit status: 0 ok; 1 a check failed (``fmt --check``); 2 usage or input error;
3 internal error (a bug in tilemem — please report it).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Optional

from . import __version__

EXIT_OK, EXIT_CHECK, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

EPILOG = """\
exit status:
  0  success
  1  a check failed (fmt --check: the file is not in canonical form)
  2  usage or input error (bad syntax, missing file, unknown backend, ...)
  3  internal error in tilemem (please report it with the input that caused it)
"""


def _read_input(path: str) -> tuple[str, str]:
    from .errors import read_source
    if path == "-":
        data = sys.stdin.buffer.read()
        from .errors import decode_source
        return decode_source(data, "<stdin>"), "<stdin>"
    return read_source(path), path


def write_atomic(path: str, text: str) -> None:
    """Write text to path via a temp file in the same directory and a rename.

    A crash or error leaves any previous file untouched, never a half-written one.
    """
    from .errors import UsageError
    directory = os.path.dirname(os.path.abspath(path)) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tilemem-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {e.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise UsageError(f"cannot write '{path}': {e.strerror}") from None
        raise


def _emit(text: str, out: Optional[str]) -> None:
    if not text.endswith("\n"):
        text += "\n"
    if out and out != "-":
        write_atomic(out, text)
    else:
        sys.stdout.write(text)


def cmd_fmt(args) -> int:
    from .parser import parse
    from .printer import print_program
    text, path = _read_input(args.file)
    out = print_program(parse(text, path))
    if args.check:
        if out.rstrip("\n") != text.rstrip("\n"):
            print(f"{path}: would be reformatted", file=sys.stderr)
            return EXIT_CHECK
        return EXIT_OK
    _emit(out, args.output)
    return EXIT_OK


def cmd_solve(args) -> int:
    from .api import solve
    text, path = _read_input(args.file)
    sol = solve(text, backend=args.backend, rules=args.rules or (), path=path)
    _emit(sol.text, args.output)
    return EXIT_OK


def cmd_facts(args) -> int:
    from .backends import normalize_backend
    from .facts import extract
    from .parser import parse
    from .wellformed import check_program
    text, path = _read_input(args.file)
    program = parse(text, path)
    check_program(program, path)
    facts = extract(program, normalize_backend(args.backend))
    lines = []
    for pred, rows in facts.items():
        for row in rows:
            lines.append(f"{pred}({', '.join(_term(x) for x in row)}).")
    _emit("\n".join(lines), args.output)
    return EXIT_OK


def _term(x) -> str:
    if isinstance(x, int):
        return str(x)
    return '"' + str(x).replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tilemem",
        description="Infer the on-chip memory space of every tile in a PyPTO program "
                    "(PyPTO's InferTileMemorySpace pass as Datalog rules).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="version", version=f"tilemem {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("solve", help="annotate a program with memory spaces and moves",
                       description="Print the program with every tile's memory space inferred, "
                                   "tile.move inserted where producer and consumer disagree.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="program text (PyPTO's printed @pl.program), or - for stdin")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--backend", default=None,
                   help="none (default), 910B / Ascend910B, 950 / Ascend950 (any case)")
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="an extra rule file (e.g. op-table facts for your own ops); repeatable")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("fmt", help="parse and print a program in PyPTO's canonical form",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="program text, or - for stdin")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--check", action="store_true",
                   help="print nothing; exit 1 when the file is not already canonical")
    p.set_defaults(func=cmd_fmt)

    p = sub.add_parser("facts", help="print the Datalog facts the rules read",
                       description="Print the program's input facts, one per line, in rule-file "
                                   "syntax (they can be loaded back as a .dl file).",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="program text, or - for stdin")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--backend", default=None, help="as for solve")
    p.set_defaults(func=cmd_facts)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not getattr(args, "func", None):
        ap.print_help(sys.stderr)
        return EXIT_INPUT
    from .errors import TilememError, UsageError
    try:
        return args.func(args)
    except TilememError as e:
        print(e.format(), file=sys.stderr)
        return EXIT_INPUT
    except UsageError as e:
        print(f"tilemem: error: {e}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("tilemem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except RecursionError:
        print("tilemem: error: input nested too deeply to process", file=sys.stderr)
        return EXIT_INPUT
    except Exception as e:  # a bug: say so, without a traceback
        print(f"tilemem: internal error: {type(e).__name__}: {e}\n"
              "This is a bug in tilemem; please report it together with the input file "
              "(set TILEMEM_DEBUG=1 to see the traceback).", file=sys.stderr)
        if os.environ.get("TILEMEM_DEBUG"):
            raise
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
