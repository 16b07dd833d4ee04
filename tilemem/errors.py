"""Errors tilemem reports to its user, with a source position.

``TilememError.format()`` renders the compiler-style message::

    path:line:col: error: message
        the offending source line
                   ^
"""
from __future__ import annotations

import re
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.records import Record, record

__all__ = ["TilememError", "UnlocatedError", "UsageError", "Diagnostic", "position_of",
           "source_line_at", "printable"]


# Characters a terminal acts on instead of showing: C0 controls but the tab (ESC starts
# the sequences that retitle a window or recolour it), DEL, C1 controls, and the
# invisible bidi and zero-width marks that make text read differently than it is.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e"
                          "\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]")


def _escape(m: "re.Match") -> str:
    c = ord(m.group(0))
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: str) -> str:
    """``text`` safe to show on a terminal: every control or invisible formatting
    character written as an escape (``\\x1b``, ``\\u202e``); tabs are kept."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


class TilememError(Exception):
    """An error about the user's input, located at ``path:line:col`` (1-based).

    ``line``/``col`` may be None when no position applies (e.g. a missing file).
    ``source_line`` is the text of line ``line`` (without its newline), shown under
    the message with a caret at ``col``; when it is None but ``source`` (the whole
    text) is given, the line is taken from there.
    """

    def __init__(self, path: Optional[str], line: Optional[int], col: Optional[int], message: str,
                 source_line: Optional[str] = None, *, source: Optional[str] = None):
        self.path = path if path is not None else "<input>"
        self.line = line
        self.col = col
        self.message = message
        if source_line is None and source is not None and line is not None:
            source_line = source_line_at(source, line)
        self.source_line = source_line
        super().__init__(self.format_first_line())

    # Messages and source lines quote the input; a hostile input (a 1 MB name or line)
    # must not turn one error into megabytes of terminal output.
    MAX_MESSAGE = 1000
    MAX_SOURCE = 160

    def format_first_line(self) -> str:
        msg = self.message
        if len(msg) > self.MAX_MESSAGE:
            msg = msg[: self.MAX_MESSAGE - 3] + "..."
        msg = printable(msg)
        path = printable(self.path)
        if self.line is None:
            return f"{path}: error: {msg}"
        if self.col is None:
            return f"{path}:{self.line}: error: {msg}"
        return f"{path}:{self.line}:{self.col}: error: {msg}"

    def format(self) -> str:
        """``path:line:col: error: message``, then the source line and a caret line
        (a long line is shown as a window around the column)."""
        first = self.format_first_line()
        if not self.source_line or self.line is None:
            return first
        src = self.source_line.rstrip("\r\n")
        col = self.col
        if len(src) > self.MAX_SOURCE:
            at = (col or 1) - 1
            start = max(0, min(at - self.MAX_SOURCE // 2, len(src) - self.MAX_SOURCE))
            end = start + self.MAX_SOURCE
            src = ("..." if start else "") + src[start:end] + ("..." if end < len(src) else "")
            if col is not None:
                col = col - start + (3 if start else 0)
        if col is None:
            return f"{first}\n{printable(src)}"
        # Control characters are shown escaped, so the caret moves by what they became;
        # tabs are kept in the caret prefix so the caret lines up under tabbed text.
        before = printable(src[: max(col - 1, 0)])
        prefix = "".join(ch if ch == "\t" else " " for ch in before)
        prefix += " " * max(col - 1 - len(src), 0)
        return f"{first}\n{printable(src)}\n{prefix}^"

    def __str__(self) -> str:
        return self.format_first_line()


@record(frozen=True)
class Diagnostic(Record):
    """One message located in an input file: a program, a rule file, a query.  The one
    type of the API's warnings (``Solution.warnings``), the diagnostics of ``tilemem
    report`` / ``verify`` / ``--check`` (text, JSON, GitHub, SARIF: tools/diagnostics.py)
    and the rule checker's errors and warnings (tilemem.datalog).

    ``line``/``col`` are 1-based or None; ``code`` names the kind of problem (a
    tools.diagnostics RULES key, ``unread-relation``, ...; empty for the rule checker's);
    ``severity``: error | warning | note; ``source_line``: the text of ``line`` for a caret
    excerpt; ``var``: the var a warning is about (``function:name``), if any.
    """
    def __init__(
            self,
            path: str,
            line: Optional[int],
            col: Optional[int],
            message: str,
            code: str = "",
            severity: str = "error",
            source_line: Optional[str] = None,
            var: Optional[str] = None,
    ):
        self.path, self.line, self.col = path, line, col
        self.message, self.code, self.severity = message, code, severity
        self.source_line, self.var = source_line, var

    @property
    def file(self) -> str:
        """The rule checker's name for ``path`` (a rule file)."""
        return self.path

    def first_line(self) -> str:
        """``path[:line[:col]]: severity: message``."""
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.severity}: {self.message}"

    def __str__(self) -> str:
        """The first line with control characters escaped (a file name or a rule file's text
        may hold them)."""
        return printable(self.first_line())

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.col,
                "severity": self.severity, "code": self.code, "message": self.message}

    def to_list(self) -> list:
        """A warning as the result cache keeps it (:meth:`from_list` reads it back)."""
        return [self.path, self.line, self.col, self.message, self.code, self.source_line,
                self.var]

    @classmethod
    def from_list(cls, row, severity: str = "warning") -> "Diagnostic":
        path, line, col, message, code, source_line, var = row
        return cls(path, line, col, message, code, severity, source_line, var)


def source_line_at(source: str, line: int) -> Optional[str]:
    """The text of 1-based ``line`` of ``source`` (without newline), or None if out of range."""
    if line < 1:
        return None
    start = 0
    for _ in range(line - 1):
        nl = source.find("\n", start)
        if nl < 0:
            return None
        start = nl + 1
    end = source.find("\n", start)
    text = source[start:] if end < 0 else source[start:end]
    return text.rstrip("\r")


def position_of(data, offset: int) -> tuple[int, int]:
    """1-based (line, col) of ``offset`` in ``data`` (str or bytes); col counts characters."""
    nl = b"\n" if isinstance(data, (bytes, bytearray)) else "\n"
    line = data.count(nl, 0, offset) + 1
    start = data.rfind(nl, 0, offset) + 1
    if isinstance(data, (bytes, bytearray)):
        # Column in characters: decode the valid prefix of the line leniently.
        col = len(bytes(data[start:offset]).decode("utf-8", errors="replace")) + 1
    else:
        col = offset - start + 1
    return line, col


class UnlocatedError(TilememError):
    """A TilememError at no position of an input: ``str()`` is its message alone.

    The base of the library's other errors (a bad option, a bad rule file, a question
    that cannot be answered), so that ``except TilememError`` catches everything
    tilemem raises on purpose; ``path``, ``line`` and ``col`` are None."""

    def __init__(self, message: str = ""):
        super().__init__(None, None, None, str(message))
        self.path = None

    def format_first_line(self) -> str:
        return self.message

    def format(self) -> str:
        return self.message

    def __str__(self) -> str:
        return self.message


class UsageError(UnlocatedError):
    """A problem with how tilemem was invoked (bad option value, unwritable output),
    as opposed to a problem at a position in the input program."""
