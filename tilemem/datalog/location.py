"""Where a rule-language item is written, and the order of its values.

The few things a solve needs from the rule language without its syntax tree: a rule
set read from its JSON program (see :mod:`.program`) locates its predicates with
:class:`Loc`, and the engines order rows with :func:`value_key`.  They live apart from
:mod:`.syntax` (which re-exports them) so that a solve does not build the AST classes
and the rule parser it never uses.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Union
from tilemem.records import Record, record

__all__ = ["Loc", "Located", "value_key"]


@record(frozen=True)
class Loc(Record):
    """A source position (1-based line and column)."""
    def __init__(self, file: str, line: int, col: int):
        self.file, self.line, self.col = file, line, col

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Located:
    """Something with a source location ``loc``: its file and line."""
    __slots__ = ()

    @property
    def file(self) -> Optional[str]:
        return self.loc.file if self.loc else None

    @property
    def line(self) -> Optional[int]:
        return self.loc.line if self.loc else None


def value_key(v: Union[int, str]):
    """The language's total order on constants: every integer before every string;
    integers numerically, strings by code point."""
    return (1, v) if isinstance(v, str) else (0, v)
