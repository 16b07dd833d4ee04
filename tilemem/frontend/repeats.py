"""An annotation the reader has read once, built again where its text repeats.

A printed program repeats its annotations: ``pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec]`` stands
on thousands of lines.  The same text on one line reads as the same tokens and the same
LALR steps, so it builds the same nodes, at positions shifted by the same amount: a
:class:`Template` keeps the first reading (the annotation's expression and the type read
from it) and builds that graph again at another line and column -- the same classes, the
same field values, every position moved, the type sharing the expression's nodes as
:func:`~tilemem.frontend.ir_builder.to_type` shares them -- without scanning, parsing or
typing the text again (:meth:`tilemem.frontend.lalr.Driver.parse` decides where; the
driver keeps its templates from one text to the next: ``Driver.annotations``)."""
from __future__ import annotations

from functools import partial
from operator import itemgetter
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.records import Record

__all__ = ["Template"]

_POSITIONS = ("line", "col")
#: field values kept as they are (immutable, no position)
_PLAIN = (str, int, float, bool, type(None))


class _NoTemplate(Exception):
    """The graph holds something a template does not rebuild (a node on another line,
    a long list held as arrays, a mutable value)."""


class Template:
    """The first reading of an annotation at ``line``, ``col``: ``(expression, type)``;
    :meth:`at` builds the pair for the same text at another place (its steps worked out
    on its first use: many texts of a small program are read once)."""
    __slots__ = ("expr", "type", "line", "col", "build")

    def __init__(self, expr, type_, line: int, col: int):
        self.expr, self.type, self.line, self.col = expr, type_, line, col
        self.build = None

    def at(self, line: int, col: int) -> Optional[tuple]:
        """``(expression, type)`` read from the same text at ``line``, ``col``; None when
        the graph is not one a template rebuilds."""
        build = self.build
        if build is None:
            try:
                build = self.build = _compile(self.expr, self.type, self.line)
            except _NoTemplate:
                build = self.build = False
        if build is False:
            return None
        return build(line, col - self.col)


def _compile(expr, type_, line0: int):
    """``(line, column shift) -> (expression, type)``: one step a node or tuple of the
    graph, children first, each taking its fields by index from the values built or kept
    before it (an ``itemgetter``: one C call a node); a node reached twice (the type's
    parts shared with the expression) is built once."""
    base: list = []         # a value a place: the constants; None where a step puts one
    steps: list = []        # (place, class or None: a tuple, getter of its fields, column or None)
    at: dict = {}           # id of a node or tuple -> its place
    graph: list = []        # (its objects, alive while `at` holds their ids)
    built: set = set()      # the places steps fill

    def place(o) -> int:
        i = at.get(id(o))
        if i is not None:
            return i
        t = type(o)
        if t in _PLAIN:
            base.append(o)
            return len(base) - 1
        if t is tuple:
            items = [place(x) for x in o]
            if not built.intersection(items):       # no node built inside: shared
                base.append(o)
                return len(base) - 1
            step = (None, _tuple_getter(items), None)
        elif isinstance(o, Record):
            names = t._fields
            col = None
            if names[-2:] == _POSITIONS and (o.line is not None or o.col is not None):
                if o.line != line0 or type(o.col) is not int:
                    raise _NoTemplate("a node on another line")
                col, names = o.col, names[:-2]
            fields = [place(getattr(o, f)) for f in names]
            if not built.intersection(fields):
                if col is None:         # no position, no node built inside: shared
                    base.append(o)
                    return len(base) - 1
                # a leaf: its fields bound once (partial), its position given
                step = (partial(t, *[base[k] for k in fields]), None, col)
            else:
                step = (t, _fields_getter(fields), col)
        else:
            raise _NoTemplate(t.__name__)
        graph.append(o)
        base.append(None)
        i = at[id(o)] = len(base) - 1
        built.add(i)
        steps.append((i, *step))
        return i

    e, t = place(expr), place(type_)
    del graph, at, built

    def build(line, dc):
        vals = base[:]
        for i, cls, get, col in steps:
            if get is None:
                vals[i] = cls(line, col + dc)
            elif col is not None:
                vals[i] = cls(*get(vals), line, col + dc)
            elif cls is None:
                vals[i] = get(vals)
            else:
                vals[i] = cls(*get(vals))
        return vals[e], vals[t]
    return build


def _no_fields(vals) -> tuple:
    return ()


def _fields_getter(places: list):
    """``vals -> the values at places``, a sequence (to be unpacked)."""
    if not places:
        return _no_fields
    if len(places) == 1:
        i, = places
        return itemgetter(slice(i, i + 1))
    return itemgetter(*places)


def _tuple_getter(places: list):
    """``vals -> tuple of the values at places``."""
    if len(places) == 1:
        i, = places
        return lambda vals: (vals[i],)
    return itemgetter(*places)
