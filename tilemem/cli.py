"""The ``tilemem`` command line: a thin front over the library.

Each subcommand lives in ``tilemem.commands.<name>``; this module builds the
argument parser and turns every failure into a one-line message and an exit
status (0 ok, 1 check failed, 2 usage or input error, 3 internal error).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from tilemem import __version__
from tilemem.commands import COMMANDS
from tilemem.commands.common import EPILOG, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tilemem",
        description="Infer the on-chip memory space of every tile in a PyPTO program "
                    "(PyPTO's InferTileMemorySpace pass as Datalog rules).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="version", version=f"tilemem {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f".commands.{name}", __package__).register(sub)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not getattr(args, "func", None):
        ap.print_help(sys.stderr)
        return EXIT_INPUT
    from tilemem.datalog import DatalogError
    from tilemem.errors import TilememError, UsageError
    try:
        return args.func(args)
    except TilememError as e:
        print(e.format(), file=sys.stderr)
        return EXIT_INPUT
    except (UsageError, DatalogError) as e:
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
