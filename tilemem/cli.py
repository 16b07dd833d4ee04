"""The ``tilemem`` command line: a thin front over the library.

Each subcommand lives in ``tilemem.commands.<name>``; this module builds the
argument parser, resolves the settings (command line over environment over
``[tool.tilemem]``, see ``tilemem.config``) and turns every failure into a one-line
message and an exit status (0 ok, 1 check failed, 2 usage or input error, 3 internal
error).  Diagnostics about the inputs are the commands' output (stdout); the tool's
own failures go to stderr — and, with ``--json``, also to stdout as a JSON object.
"""
from __future__ import annotations

import argparse
import contextvars
import errno
import importlib
import io
import os
import re
import sys

from tilemem import __version__
from tilemem.commands import COMMANDS
from tilemem.commands.common import EPILOG, EXIT_INPUT, EXIT_INTERNAL

ERROR_SCHEMA = "tilemem-error/1"

# a message that already says where and what ("file:line:col: error: ...")
_LOCATED = re.compile(r"^\S[^\n]*?:\d+(:\d+)?: (error|warning): ")

# settings key -> the argparse attribute holding its command-line value
_SETTING_ATTRS = {"backend": "backend", "engine": "engine", "rules": "rules",
                  "exclude": "exclude", "output-format": "output_format",
                  "cache-dir": "cache_dir"}


class ArgumentError(Exception):
    """A command line argparse refused: the message and the parser that refused it."""

    def __init__(self, message: str, parser: "Parser"):
        super().__init__(message)
        self.parser = parser


#: set while build_parser runs (in this thread or task only: a library may build parsers
#: in two threads, and the other's help text keeps the terminal's width)
_building: contextvars.ContextVar[bool] = contextvars.ContextVar("tilemem_parser_building",
                                                                 default=False)


class Parser(argparse.ArgumentParser):
    """argparse with "did you mean" suggestions, errors raised instead of exiting (so that
    ``--json`` can answer in JSON), and each subcommand's own usage in its errors."""

    def error(self, message):
        m = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if m:
            import difflib
            choices = re.findall(r"'([^']*)'", m.group(3))
            close = difflib.get_close_matches(m.group(2), choices, n=1, cutoff=0.5)
            what = "command" if m.group(1) == "COMMAND" else f"value for {m.group(1)}"
            message = (f"unknown {what} '{m.group(2)}'"
                       + (f" (did you mean '{close[0]}'?)" if close else "")
                       + f"; choose from {', '.join(choices)}")
        raise ArgumentError(message, self)

    def _get_formatter(self):
        """argparse formats each argument's metavar once as it is added (a check of its
        nargs), through a help formatter sized to the terminal -- which imports shutil
        (~7 M instructions of every start) and asks the terminal's size.  The width plays
        no part in that check: while the parser is built it is a fixed one; help and
        usage text (printed later) get the terminal's."""
        if _building.get():
            return self.formatter_class(prog=self.prog, width=80)
        return super()._get_formatter()

    def _print_message(self, message, file=None):
        """argparse drops a failed write; ``--help`` and ``--version`` on a closed, broken
        or full stdout must not say success, so stdout's errors go up (main turns them into
        one line and status 2).  A failed write to stderr is still dropped."""
        if not message:
            return
        if file is not sys.stdout:
            return super()._print_message(message, file)
        file.write(message)
        file.flush()

    def unknown(self, extras: list[str]) -> ArgumentError:
        """The error for arguments this parser does not take, with a suggestion."""
        opts = [o for a in self._actions for o in a.option_strings]
        import difflib
        hints = []
        for x in extras:
            if x.startswith("-"):
                close = difflib.get_close_matches(x.split("=", 1)[0], opts, n=1, cutoff=0.6)
                if close:
                    hints.append(f"did you mean '{close[0]}' for '{x}'?")
        msg = f"unrecognized arguments: {' '.join(extras)}"
        if hints:
            msg += " (" + "; ".join(hints) + ")"
        return ArgumentError(msg, self)


def build_parser(only: "str | None" = None) -> Parser:
    """The argument parser; ``only``: register just that subcommand (the one a command
    line names: the others' parsers cost ~2 ms each to build and are never used)."""
    building = _building.set(True)
    try:
        ap = Parser(
            prog="tilemem",
            description="Infer the on-chip memory space of every tile in a PyPTO program "
                        "(PyPTO's InferTileMemorySpace pass as Datalog rules).",
            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
        ap.add_argument("--version", action="version", version=f"tilemem {__version__}")
        sub = ap.add_subparsers(dest="command", metavar="COMMAND")
        for name in (only,) if only in COMMANDS else COMMANDS:
            importlib.import_module(f".commands.{name}", __package__).register(sub)
    finally:
        _building.reset(building)
    ap.subcommands = dict(sub.choices)
    return ap


def _inputs(args) -> list[str]:
    if hasattr(args, "files"):
        return list(args.files or ())
    if getattr(args, "file", None):
        return [args.file]
    return []


def apply_settings(args) -> None:
    """Replace the command's option values by the effective settings (command line over
    environment over [tool.tilemem] over defaults) and keep them as ``args.settings``."""
    from tilemem.config import KEYS, load_settings
    if args.command == "config":
        keys = list(KEYS)
    else:
        keys = [k for k, attr in _SETTING_ATTRS.items() if hasattr(args, attr)]
        if hasattr(args, "files"):
            keys.append("include")
    cli = {k: getattr(args, _SETTING_ATTRS[k], None) for k in keys if k in _SETTING_ATTRS}
    settings = load_settings(cli, _inputs(args), stdin_filename=getattr(args, "stdin_filename", None),
                             config=getattr(args, "config", None),
                             isolated=getattr(args, "isolated", False), keys=keys)
    for k in keys:
        setattr(args, _SETTING_ATTRS.get(k, k), settings[k])
    args.settings = settings
    if getattr(args, "verbose", False) and args.command != "config":
        where = settings.config_file or "no configuration file"
        shown = "; ".join(f"{k}={_shown(s.value)} ({s.describe()})" for k, s in settings.values.items()
                          if s.origin != "default")
        print(f"tilemem: config: {where}" + (f"; {shown}" if shown else ""), file=sys.stderr)


def _shown(v) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(v) or "[]"
    return "none" if v is None else str(v)


def _wants_json(args, argv) -> bool:
    if args is not None:
        return bool(getattr(args, "json", False))
    return "--json" in (argv if argv is not None else sys.argv[1:])


def _stdout_failed(e: OSError, args, argv) -> int:
    """Standard output cannot be written (closed, a pipe nobody reads, a full device):
    one line on stderr and status 2 -- never success for output that did not arrive.
    What is still buffered goes to /dev/null, or the exit would retry it (and fail again)."""
    _to_devnull(sys.stdout)
    reason = "it is closed" if isinstance(e, StdoutClosed) else (e.strerror or str(e))
    return _fail(f"tilemem: error: cannot write to standard output: {reason}", args, argv)


def _to_devnull(stream) -> None:
    """Point a failed output stream's descriptor at /dev/null, so that what is still
    buffered goes nowhere instead of failing again when Python flushes it at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _fail(message: str, args, argv, status: int = EXIT_INPUT, err=None) -> int:
    """Report the tool's own failure: on stderr, and as JSON on stdout under --json."""
    try:
        print(message, file=sys.stderr)
    except (OSError, ValueError):           # stderr gone (a closed pipe): the status says it
        pass
    if _wants_json(args, argv):
        doc = {"schema": ERROR_SCHEMA, "status": status, "error": message.split("\n")[0]}
        if err is not None:
            doc.update(path=getattr(err, "path", None), line=getattr(err, "line", None),
                       column=getattr(err, "col", None))
        try:
            import json
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
            sys.stdout.flush()
        except OSError:
            pass
    return status


def main(argv=None) -> int:
    _stand_in_for_closed_streams()
    saved_stderr = sys.stderr
    sys.stderr = _GuardedStderr(saved_stderr)
    try:
        return _main(argv)
    finally:
        sys.stderr = saved_stderr


def _main(argv) -> int:
    first = (sys.argv[1:] if argv is None else list(argv))[:1]
    ap = build_parser(first[0] if first else None)
    args = None
    try:
        args, extras = ap.parse_known_args(argv)
        if extras:
            raise ap.subcommands.get(args.command, ap).unknown(extras)
    except ArgumentError as e:
        e.parser.print_usage(sys.stderr)
        return _fail(f"{e.parser.prog}: error: {e}", None, argv)
    except OSError as e:                    # --help or --version: stdout (Parser._print_message)
        return _stdout_failed(e, None, argv)
    if not getattr(args, "func", None):
        ap.print_help(sys.stderr)
        return EXIT_INPUT
    saved = _catch_signals()
    try:
        return _run(args, argv)
    except (KeyboardInterrupt, Interrupted) as e:   # a second signal while handling one
        return _interrupted(e)
    finally:
        _restore_signals(saved)


class StdoutClosed(OSError):
    """Standard output was closed when tilemem started (``>&-``): writing to it fails."""


class _ClosedStdout(io.TextIOBase):
    """``sys.stdout`` when file descriptor 1 was closed: every write raises StdoutClosed
    (the command ends with one line on stderr and status 2), flushing has nothing to do."""

    def writable(self) -> bool:
        return True

    def write(self, text):
        raise StdoutClosed(errno.EBADF, "it is closed")

    @property
    def buffer(self):
        return self                     # bytes are refused the same way

    def isatty(self) -> bool:
        return False


class _GuardedStderr:
    """``sys.stderr`` while a command runs: once a write or flush fails (a pipe whose
    reader is gone, a full device) the rest is dropped -- stderr gone changes nothing
    else: a batch goes on, and its exit status still says what failed (an error that
    could not be shown is no success)."""

    def __init__(self, stream):
        self._stream = stream
        self._gone = False

    def write(self, text):
        if not self._gone:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                self._lost()
        return len(text)

    def flush(self):
        if not self._gone:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._lost()

    def _lost(self) -> None:
        self._gone = True
        _to_devnull(self._stream)   # what is still buffered: not retried at exit

    def __getattr__(self, name):        # isatty, fileno, encoding, ...: the stream's
        return getattr(self._stream, name)


def _stand_in_for_closed_streams() -> None:
    """Closed standard streams (``>&-``, ``2>&-``): put /dev/null on their descriptors,
    so that no file tilemem opens takes their number (a C library's message to fd 2
    would land in it); a closed stdout refuses writes (_ClosedStdout), a closed stderr
    takes the messages and drops them -- nothing else changes."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        except OSError:
            pass
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")
    if sys.stdin is None:
        sys.stdin = open(os.devnull)


class Interrupted(BaseException):
    """SIGTERM or SIGHUP, raised in the main thread so that every cleanup (temp files,
    worker processes) runs as for Ctrl-C's KeyboardInterrupt.  Not a KeyboardInterrupt:
    the query console treats Ctrl-C as "cancel this line", a SIGTERM must end it."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def _catch_signals() -> dict:
    """Handle SIGTERM and SIGHUP as interrupts (main thread only); returns what to restore."""
    import signal
    saved = {}
    try:                                  # restored too: _interrupted ignores it while stopping
        saved[signal.SIGINT] = signal.getsignal(signal.SIGINT)
    except (ValueError, OSError):
        pass
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        try:
            saved[sig] = signal.signal(sig, _raise_interrupted)
        except (ValueError, OSError):     # not the main thread: leave signals alone
            break
    return saved


def _restore_signals(saved: dict) -> None:
    import signal
    for sig, handler in saved.items():
        try:
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        except (ValueError, OSError):
            pass


def _interrupted(e: BaseException) -> int:
    """Stop quietly: one line, status 128 + the signal (130 for Ctrl-C)."""
    import signal
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)      # no traceback from a second Ctrl-C
    except (ValueError, OSError):
        pass
    signum = getattr(e, "signum", signal.SIGINT)
    try:
        print("tilemem: interrupted", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 128 + signum


def _run(args, argv) -> int:
    from tilemem.commands.common import current_input, limits_from
    from tilemem.datalog import DatalogError
    from tilemem.errors import TilememError, UsageError, printable
    from tilemem.limits import input_error, use_limits
    from tilemem.recursion import deep_recursion
    try:
        apply_settings(args)
        try:
            # every stage may walk as deep as the input nests; the limits of the flags
            # are the default of every library call the command makes
            with deep_recursion(), use_limits(limits_from(args)):
                return args.func(args)
        except (RecursionError, MemoryError) as exc:
            raise input_error(exc, *current_input) from None
    except (UsageError, DatalogError) as e:      # TilememErrors at no place of the input
        # one line (a rule file's errors: one per line), control characters escaped
        msg = "\n".join(printable(line) for line in str(e).split("\n")) \
            if isinstance(e, DatalogError) else printable(str(e))
        return _fail(msg if _LOCATED.match(msg) else f"tilemem: error: {msg}", args, argv)
    except TilememError as e:
        return _fail(e.format(), args, argv, err=e)
    except (KeyboardInterrupt, Interrupted) as e:
        return _interrupted(e)
    except (BrokenPipeError, StdoutClosed) as e:    # stdout: stderr's failures are dropped
        return _stdout_failed(e, args, argv)
    except Exception as e:  # a bug: say so, without a traceback
        if os.environ.get("TILEMEM_DEBUG"):
            raise
        return _fail(f"tilemem: internal error: {printable(f'{type(e).__name__}: {e}')}\n"
                     "This is a bug in tilemem; please report it together with the input file "
                     "(set TILEMEM_DEBUG=1 to see the traceback).", args, argv, EXIT_INTERNAL)


def console_main() -> None:
    """The ``tilemem`` command (and ``python -m tilemem``): :func:`main`, then a quick exit.

    A solve leaves the IR, the facts and ~200 modules behind; the interpreter's teardown
    frees them one by one (a final collection, every object, every module): ~15 ms of a
    corpus kernel's 0.15 s, ~0.5 s after the 21,000-line MTP kernel, for a process that is
    ending anyway.  So once ``main`` returns, this does what a normal exit does that
    matters -- run the ``atexit`` handlers, flush stdout and stderr -- and ends the
    process (``os._exit``).  Every file tilemem writes is closed before ``main`` returns.
    Anything unusual (another thread still running, a flush that fails, a status that is
    not an int) takes the normal exit instead.

    The cyclic collector is off for the process: a command builds acyclic data (the IR,
    the facts, the solution: a solve leaves 0-5 cyclic objects behind) and ends here, so
    a collection would only traverse the live heap -- once after every stage that pauses
    it (tilemem.datalog.engine.gc_paused), over millions of objects on a large kernel
    (~0.4 s of the MTP kernel's 8.6 s).  Batch workers inherit this.  The interactive
    query console, which may run for hours, turns it back on (commands/query.py)."""
    import atexit
    import gc
    gc.disable()
    status = main()
    status = 0 if status is None else status
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    # (no thread of the threading module without that module: not imported for it)
    threading = sys.modules.get("threading")
    others = threading is not None and threading.active_count() != 1
    if type(status) is not int or others or run_exit_handlers is None:
        sys.exit(status)
    run_exit_handlers()
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        sys.exit(status)             # the normal exit reports it as it always has
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError):
        pass                         # stderr is gone: nothing more can be said on it
    os._exit(status)


if __name__ == "__main__":
    console_main()
