"""Exceptions and diagnostics of tilemem's Datalog layer."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterable, Optional

from tilemem.errors import Diagnostic, UnlocatedError   # Diagnostic: a message in a rule file

__all__ = [
    "Diagnostic", "DatalogError", "RuleError", "QueryError", "FactError", "EvaluationError",
]


class DatalogError(UnlocatedError):
    """Base class of every error raised by tilemem.datalog (a TilememError: rule files
    and queries carry their positions in the message)."""


class RuleError(DatalogError):
    """The rule files are invalid (syntax, arity, safety or stratification errors).

    ``diagnostics`` lists every problem found, in file order; ``str()`` prints one
    ``file:line:col: error: message`` line per problem.
    """

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class QueryError(DatalogError, ValueError):
    """A query pattern typed by a user is invalid (syntax, unknown predicate, arity)."""

    def __init__(self, message: str, col: Optional[int] = None):
        self.col = col
        super().__init__(message if col is None else f"<query>:1:{col}: error: {message}")


class FactError(DatalogError, ValueError):
    """Facts handed to :meth:`Database.add_facts` are invalid (unknown relation, arity, type)."""


class EvaluationError(DatalogError):
    """A run-time error while evaluating the rules (e.g. arithmetic on a string)."""


class EngineUnavailable(DatalogError, ValueError):
    """An evaluation engine that does not exist or whose package is not installed."""
