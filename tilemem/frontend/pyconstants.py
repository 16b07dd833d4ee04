"""What a name around a ``@pl.program`` class may stand for, besides a number or a
list (:mod:`tilemem.frontend.pysource` finds them): a dynamic dim, a dtype, an enum
member, a declared allocation.  Records, in a module of their own: the DSL's expression
and type readers, which also check printed IR, name them without importing the module
scanner (``ast``)."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.records import Record, record

__all__ = ["Dynamic", "DataTypeRef", "EnumRef", "DeclaredMemRef"]


@record(frozen=True)
class Dynamic(Record):
    """``NAME = pl.dynamic("NAME")`` at module level."""

    def __init__(self, name: str):
        self.name = name


@record(frozen=True)
class DataTypeRef(Record):
    """``NAME = pl.FP32`` (or ``pl.DataType.FP32``): a name PyPTO resolves to that dtype."""

    def __init__(self, name: str):
        self.name = name


@record(frozen=True)
class EnumRef(Record):
    """``NAME = pl.PadValue.max`` (any ``pl.<Enum>.<member>``, ``pld.`` too): a name PyPTO
    resolves to that enum value where an op argument is a Python value."""

    def __init__(self, parts: tuple):
        self.parts = parts


@record(frozen=True)
class DeclaredMemRef(Record):
    """``NAME = pl.MemRef()`` / ``pl.MemRef(slots=N)`` / ``pl.MemRef("name"[, slots=N])``: an
    allocation declared around the program (a Tile annotation names it, or one of its
    slots).  ``ident`` tells declarations apart (another name for one is the same object)."""

    def __init__(self, name: Optional[str], slots: int, ident: tuple):
        self.name, self.slots, self.ident = name, slots, ident
