"""Bounds on what one input may cost, and the library boundary that enforces them.

* :class:`Limits` -- the caps on one input (total size, line length) and the budgets of
  the user's rules (derived facts, seconds); ``0`` lifts a cap.  The defaults are far
  above any real program (the largest real kernel is 3.5 MB with 10 kB lines).
* :func:`check_text` -- the input caps, as a located ``path:line:col: error:``; called
  by the program reader's entry point, so every reader and every command gets it.
* :func:`guarded` -- the library boundary: runs a stage with the shared raised
  recursion limit (``tilemem.recursion``) and turns a leftover ``RecursionError`` or
  ``MemoryError`` into a located :class:`~tilemem.errors.TilememError`.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.errors import TilememError
from tilemem.recursion import deep_recursion
from tilemem.records import Record, record, replace

__all__ = ["Limits", "DEFAULT_LIMITS", "current_limits", "use_limits", "check_text", "guarded", "input_error", "parse_size",
           "deepest_point"]

MiB = 1 << 20


@record(frozen=True)
class Limits(Record):
    """Caps on one input and budgets of user rules; 0 (or None for seconds) lifts one.

    ``max_input_size``/``max_line_length`` count characters (bytes when reading a
    file); ``max_facts`` bounds the facts derived by the rules of ``--rules`` files
    (every instance of their rules counts) and ``max_seconds`` the time spent
    evaluating them.  The shipped rules are bounded by the program's size."""
    def __init__(
            self,
            max_input_size: int = 64 * MiB,  # ~18x the largest real kernel
            max_line_length: int = 1 * MiB,  # ~100x the longest real line
            max_facts: int = 1_000_000,      # user rules only: the shipped rules are bounded
            max_seconds: float = 60.0,
    ):
        self.max_input_size, self.max_line_length, self.max_facts = max_input_size, max_line_length, max_facts
        self.max_seconds = max_seconds

    def replace(self, **changes) -> "Limits":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


DEFAULT_LIMITS = Limits()

# The limits of the current command (the CLI sets them from its flags); library calls
# that pass no ``limits`` use these, so every stage of one command sees the same caps.
_active: ContextVar[Limits] = ContextVar("tilemem_limits", default=DEFAULT_LIMITS)


def current_limits() -> Limits:
    """The limits in effect here (DEFAULT_LIMITS unless inside :func:`use_limits`)."""
    return _active.get()


@contextmanager
def use_limits(limits: Limits):
    """Make ``limits`` the default of library calls inside the block (this context only:
    other threads keep theirs)."""
    token = _active.set(limits)
    try:
        yield limits
    finally:
        _active.reset(token)

_SIZE = re.compile(r"\s*(\d+)\s*([kKmMgG]i?[bB]?|[bB])?\s*\Z")
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text: str) -> int:
    """``"1048576"``, ``"64M"``, ``"512k"``, ``"2GiB"`` -> bytes (for command-line flags)."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (e.g. 1048576, 512K, 64M, 0 for no limit)")
    unit = (m.group(2) or "")[:1].lower()
    return int(m.group(1)) * _UNITS[unit]


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def check_text(text: str, path: str, limits: Optional[Limits] = None) -> None:
    """Raise a located TilememError if ``text`` is over the size or line-length cap."""
    limits = limits or current_limits()
    cap = limits.max_input_size
    if cap and len(text) > cap:
        line, col = _position(text, cap)
        raise TilememError(path, line, col,
                           f"input too large: {len(text):,} characters (the limit is {cap:,}; "
                           f"--max-input-size 0 lifts it)", source=text)
    cap = limits.max_line_length
    if cap and len(text) > cap:
        lengths = list(map(len, text.split("\n")))
        longest = max(lengths)
        if longest > cap:
            i = lengths.index(longest)
            line = i + 1
            raise TilememError(path, line, cap + 1,
                               f"line too long: {longest:,} characters (the limit is {cap:,}; "
                               f"--max-line-length 0 lifts it)", source=text)


_OPENERS, _CLOSERS = "([{", ")]}"


def deepest_point(text: Optional[str]) -> tuple[Optional[int], Optional[int]]:
    """(line, col) of the most deeply nested place of a program text: the most indented
    line, or the innermost bracket if brackets nest deeper than blocks do (an estimate
    for a message; strings are not skipped)."""
    if not text:
        return None, None
    best = (-1, None, None)
    for n, raw in enumerate(text.split("\n"), 1):
        stripped = raw.lstrip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(stripped)
        if indent // 4 > best[0]:
            best = (indent // 4, n, indent + 1)
        depth = 0
        for i, ch in enumerate(raw):
            if ch in _OPENERS:
                depth += 1
                if depth > best[0]:
                    best = (depth, n, i + 1)
            elif ch in _CLOSERS:
                depth -= 1
    return best[1], best[2]


def _longest_line(text: Optional[str]) -> tuple[Optional[int], Optional[int]]:
    if not text:
        return None, None
    lengths = list(map(len, text.split("\n")))
    return lengths.index(max(lengths)) + 1, 1


def input_error(exc: BaseException, path: Optional[str], text: Optional[str]) -> TilememError:
    """The located input error for a ``RecursionError`` or ``MemoryError`` raised while
    processing ``text`` (read from ``path``)."""
    if isinstance(exc, RecursionError):
        line, col = deepest_point(text)
        return TilememError(path, line, col, "program nested too deeply to process", source=text)
    size = f" ({len(text):,} characters; its longest line is here)" if text else ""
    line, col = _longest_line(text)
    return TilememError(path, line, col, f"out of memory while processing this input{size}",
                        source=text)


@contextmanager
def guarded(path: Optional[str], text: Optional[str] = None):
    """Run a library stage on the input ``text`` read from ``path``: with the raised
    recursion limit (enough for anything the reader accepts), and with a leftover
    ``RecursionError``/``MemoryError`` reported as a located input error."""
    try:
        with deep_recursion():
            yield
    except (RecursionError, MemoryError) as exc:
        raise input_error(exc, path, text) from None
