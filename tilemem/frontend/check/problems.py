"""The problems a check finds in one file, reported together.

A check records each problem where it finds it; the file is rejected once, with every
problem (up to :data:`MAX_PROBLEMS`) in the order of the text, the first as the error's
own position (what ``path:line:col`` tools and the exit code read)."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.errors import TilememError

__all__ = ["MAX_PROBLEMS", "Problems", "ProgramErrors"]

MAX_PROBLEMS = 20
MAX_REPORT = 3000       # characters of the errors shown (each excerpt is at most a window of its line)


class ProgramErrors(TilememError):
    """Several located errors of one file: formats as each error in turn (the first is
    this error's own ``path:line:col``)."""

    def __init__(self, errors: list, dropped: int = 0):
        first = errors[0]
        super().__init__(first.path, first.line, first.col, first.message, first.source_line)
        self.errors = list(errors)
        self.dropped = dropped

    def format(self) -> str:
        out = [TilememError.format(e) for e in self.errors]
        if self.dropped:
            out.append(f"{self.path}: note: {self.dropped} more problem(s) not shown "
                       f"(the first {len(self.errors)} are)")
        return "\n".join(out)


class Problems:
    """The problems found so far in one file (``source``: its text, for the excerpts)."""

    def __init__(self, path: str, source: Optional[str]):
        self.path, self.source = path, source
        self.found: list[tuple] = []        # (line, col, order found, message)

    def add(self, line: Optional[int], col: Optional[int], message: str) -> None:
        self.found.append((line or 0, col or 0, len(self.found), message))

    def add_at(self, node, message: str) -> None:
        self.add(getattr(node, "line", None), getattr(node, "col", None), message)

    def __bool__(self) -> bool:
        return bool(self.found)

    def raise_any(self) -> None:
        """Raise the problems found (none: return), in the order of the text."""
        if not self.found:
            return
        seen = set()
        unique = []
        for line, col, _, msg in sorted(self.found):
            if (line, col, msg) not in seen:        # one message per problem
                seen.add((line, col, msg))
                unique.append((line, col, msg))
        lines = self.source.split("\n") if self.source is not None else None
        errors = []
        size = 0
        for line, col, msg in unique[:MAX_PROBLEMS]:
            src = lines[line - 1].rstrip("\r") if lines is not None and 0 < line <= len(lines) else None
            err = TilememError(self.path, line or None, col or None, msg, src)
            size += len(err.format())
            if errors and size > MAX_REPORT:
                break           # a report stays readable (and bounded) however long its lines
            errors.append(err)
        shown = errors
        if len(errors) == 1:
            raise errors[0]
        raise ProgramErrors(errors, len(unique) - len(shown))
