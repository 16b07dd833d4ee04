"""Functional dependencies of derived relations (``.key name(col, ...)``), checked on rows.

A ``.key`` says the named columns of a relation determine the others: one memory space
per tile var (``.key space(var)``), one move per consumer operand.  The rules are meant
to derive at most one row per key; a rule file that derives a second (a user's
``space(V, "Left") :- space(V, "Vec").``) would otherwise reach the emitter as a mixed
answer, whichever row it happened to read last.  :func:`key_conflicts` finds such rows
in what an evaluation read back (``tilemem.infer.solver`` says which rules derived them).
"""
from __future__ import annotations

from collections import namedtuple
from operator import itemgetter

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import NamedTuple, Optional, Sequence

__all__ = ["KeyConflict", "key_conflicts", "key_of"]


# (collections' namedtuple at run time: typing is for the type checker only, see
# tilemem/__init__.py)
if TYPE_CHECKING:
    class KeyConflict(NamedTuple):
        relation: str
        key: tuple[str, ...]
        columns: tuple[str, ...]
        rows: tuple[tuple, tuple]
else:
    KeyConflict = namedtuple("KeyConflict", ["relation", "key", "columns", "rows"])
KeyConflict.__doc__ = """Rows of ``relation`` that agree on its key columns (``key``: their
names) but not elsewhere: ``rows`` in the order read, the first two of them."""


def _key_values(self) -> dict[str, object]:
    return {c: self.rows[0][self.columns.index(c)] for c in self.key}


KeyConflict.key_values = _key_values


def key_conflicts(rules, relations: dict[str, Sequence[tuple]]) -> list[KeyConflict]:
    """The first conflict of each keyed relation among ``relations`` (name -> rows read
    back), in the order of ``relations``.  One dict pass over the rows of a keyed
    relation: a solve's relations hold a row per var or move, microseconds."""
    out: list[KeyConflict] = []
    for name, rows in relations.items():
        info = rules.predicates.get(name)
        if info is None or info.key is None or not rows:
            continue
        # (rows hold ints and strs only, which never compare equal: plain values key)
        key_of_row = itemgetter(*(info.columns.index(c) for c in info.key))
        seen: dict = {}
        for row in rows:
            first = seen.setdefault(key_of_row(row), row)
            if first is not row and first != row:
                out.append(KeyConflict(name, info.key, info.columns, (first, row)))
                break
    return out


def key_of(rules, relation: str) -> Optional[object]:
    """The ``.key`` item of ``relation`` (its location, for messages), or None."""
    from tilemem.datalog.syntax import Key
    for it in rules.items:
        if isinstance(it, Key) and it.name == relation:
            return it
    return None
