"""Helpers shared by the subcommands: input, atomic output, exit codes."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Optional

EXIT_OK, EXIT_CHECK, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

EPILOG = """\
exit status:
  0  success
  1  a check failed (fmt --check: not canonical; solve --check: solving would
     change the file; verify: the program violates TileMemoryInferred)
  2  usage or input error (bad syntax, missing file, unknown backend, ...;
     in a batch: some file could not be read or solved, the others still are)
  3  internal error in tilemem (please report it with the input that caused it)
"""


def wrap(text: str) -> str:
    """A long description filled to 79 columns (the parsers keep text as written)."""
    import textwrap
    return textwrap.fill(text, 79, break_on_hyphens=False)


def add_parser(subparsers, name: str, **kw) -> argparse.ArgumentParser:
    return subparsers.add_parser(name, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter, **kw)


def read_input(path: str) -> tuple[str, str]:
    """(text, display path) of a program file, or of standard input for ``-``."""
    from tilemem.errors import decode_source, read_source, read_stream
    if path == "-":
        return decode_source(read_stream(sys.stdin.buffer, "<stdin>"), "<stdin>"), "<stdin>"
    return read_source(path), path


def write_atomic(path: str, text: str) -> None:
    """Write text to path via a temp file in the same directory and a rename.

    A crash or error leaves any previous file untouched, never a half-written one.
    """
    from tilemem.errors import UsageError
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise UsageError(f"cannot write '{path}': it is a directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tilemem-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {e.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        mode = os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise UsageError(f"cannot write '{path}': {e.strerror}") from None
        raise


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
        except BrokenPipeError:
            raise
        except OSError as e:        # a full disk or device behind stdout: not a bug
            from tilemem.errors import UsageError
            try:                    # drop what is still buffered, or exit would retry it
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            raise UsageError(f"cannot write to standard output: {e.strerror or e}") from None
