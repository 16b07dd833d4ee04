"""tilemem's IR: a typed model of the program text PyPTO's printer emits.

Expressions are a small generic tree (names, dotted enum references, calls,
lists, tuples, dicts, subscripts, operators, constants) because op calls and
their arguments are open-ended; statements, functions and types are modelled
explicitly because the solver reasons about them.

Every node carries its source position (``line``/``col``, 1-based) for error
messages and explanations.  Positions never take part in equality, so two
nodes that print the same compare equal.
"""
from __future__ import annotations

from array import array as _array
from itertools import repeat as _repeat
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Union

from tilemem.records import DICT as _DICT, LIST as _LIST, Record as _Node, record, replace

__all__ = [
    "Expr", "Name", "Dotted", "IntConst", "FloatConst", "BoolConst", "NoneConst", "StrConst",
    "ListExpr", "IntItems", "FloatItems", "NameItems", "HELD_ITEMS", "TupleExpr", "DictExpr", "Subscript", "Call", "BinOp", "UnaryOp", "Opaque",
    "Type", "TileView", "TileType", "TensorType", "ScalarType", "TupleType", "OpaqueType",
    "Stmt", "Assign", "EvalStmt", "Return", "Yield", "For", "While", "If", "With", "Break",
    "Continue", "Pass", "OpaqueStmt", "Param", "Function", "Program", "replace", "subexpressions",
    "type_kind", "DERIVED_LEVEL_ROLE",
]


# ----------------------------------------------------------------------------- node classes
#
# A node class is defined once, by its ``__init__``: the parameters are the fields, in
# order, with their types and defaults, and the body sets them (:mod:`tilemem.records`
# derives ``__slots__``, equality, hashing, repr and the dataclass field table).  They are
# plain classes, not dataclasses: building ~40 dataclasses cost 20 ms at every start (the
# methods are generated as text and compiled), and a frozen dataclass's __init__ sets each
# field through object.__setattr__ (1.5 us a node; 0.4 us here: the parser builds a million
# nodes for the largest kernels).  The bodies set at most three fields a statement: Python
# swaps up to three values without building a tuple.  ``dataclasses.fields``, ``replace``,
# ``asdict`` and ``is_dataclass`` work on nodes.  Expression and type nodes are immutable
# by convention (their hash depends on their fields).

if TYPE_CHECKING:
    Pos = Optional[int]               # a source position field (line or column), 1-based

_POSITIONS = ("line", "col")


def node(cls=None, *, frozen: bool = False, uncompared: tuple = _POSITIONS,
         hidden: tuple = _POSITIONS):
    """Finish a node class (:func:`tilemem.records.record`): its fields are the
    parameters of its ``__init__``; by default the source position takes no part in
    equality, hashing and repr."""
    return record(cls, frozen=frozen, uncompared=uncompared, hidden=hidden)


# ----------------------------------------------------------------------------- expressions


@node(frozen=True)
class Expr(_Node):
    """An expression node."""


@node(frozen=True)
class Name(Expr):
    """A bare identifier: a variable, or a free name such as a dynamic dim."""
    def __init__(self, id: str, line: Pos = None, col: Pos = None):
        self.id, self.line, self.col = id, line, col


@node(frozen=True)
class Dotted(Expr):
    """A dotted reference that is not called: ``pl.FP32``, ``pl.Mem.Vec``, ``self.f``."""
    def __init__(self, parts: tuple[str, ...], line: Pos = None, col: Pos = None):
        self.parts, self.line, self.col = parts, line, col

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@node(frozen=True)
class IntConst(Expr):
    def __init__(self, value: int, line: Pos = None, col: Pos = None):
        self.value, self.line, self.col = value, line, col


@node(frozen=True)
class FloatConst(Expr):
    """A float literal, kept as written (``%.17g`` text, ``nan``, ``inf``)."""
    def __init__(self, text: str, line: Pos = None, col: Pos = None):
        self.text, self.line, self.col = text, line, col


@node(frozen=True)
class BoolConst(Expr):
    def __init__(self, value: bool, line: Pos = None, col: Pos = None):
        self.value, self.line, self.col = value, line, col


@node(frozen=True)
class NoneConst(Expr):
    def __init__(self, line: Pos = None, col: Pos = None):
        self.line, self.col = line, col


#: PyPTO's ConstInt holds an int64: its constructor rejects a Python int outside it
INT64_RANGE = range(-(1 << 63), 1 << 63)


def int64_overflow(v: int) -> str:
    """The message for an integer no ConstInt holds (both readings say it the same way)."""
    shown = str(v) if v.bit_length() <= 100 else f"of {v.bit_length()} bits"  # str() of a huge int is slow
    return f"integer constant {shown} does not fit in a 64-bit ConstInt"


@node(frozen=True)
class StrConst(Expr):
    """A string literal; ``quote`` is the delimiter it was written with (``'`` or ``"``)."""
    def __init__(self, value: str, quote: str = "'", line: Pos = None, col: Pos = None):
        self.value, self.quote = value, quote
        self.line, self.col = line, col


@node(frozen=True)
class ListExpr(Expr):
    def __init__(self, items: tuple[Expr, ...], line: Pos = None, col: Pos = None):
        self.items, self.line, self.col = items, line, col


class _HeldItems:
    """The items of a long list of constants held as arrays instead of one node per
    element (a list literal is as long as its line: a node, its column and the pointer
    to it cost ~100 bytes an element).  A read-only sequence of the nodes: each element
    is made when it is read, with its position; equal to, and hashed as, the tuple of
    those nodes, so a ListExpr compares the same either way.  Positions: ``lines`` one
    int while every item is on that line (-1: not known), else an array("i") of lines;
    ``cols`` an array("i") (-1: none); both None: no positions.  A subclass says which
    nodes it holds (``_keeps``) and how (``_put``, ``_value``, ``_values``, ``_slice``,
    ``_node``); an item it does not keep, or a position past 2**31, makes ``append``
    say no, and the readings keep the nodes."""
    __slots__ = ("lines", "cols")
    COMPACT_AT = 32                  # the readings hold a list of more such items this way
    NODE: type

    @classmethod
    def of(cls, nodes, positions: bool = True):
        """The nodes held this way, or None when one is not kept."""
        nodes = list(nodes)
        out = cls()
        if positions:
            out.lines = nodes[0].line if nodes and nodes[0].line is not None else -1
            out.cols = _array("i")
        for x in nodes:
            if not out.append(x):
                return None
        return out

    def append(self, x) -> bool:
        """Add the node ``x`` (while a list is read); False, and nothing added, when it
        is not one this holds or a position is past 2**31."""
        if type(x) is not self.NODE or not self._keeps(x):
            return False
        cols = self.cols
        if cols is not None:
            line = -1 if x.line is None else x.line
            col = -1 if x.col is None else x.col
            if not -1 <= line < _I32 or not -1 <= col < _I32:
                return False
            lines = self.lines
            if type(lines) is int and line != lines:
                self.lines = lines = _array("i", [lines]) * len(cols)
            if type(lines) is not int:
                lines.append(line)
            cols.append(col)
        self._put(x)
        return True

    def __iter__(self):
        node = self._node
        if self.cols is None:
            return map(node, self._values())
        lines = self.lines
        return map(node, self._values(), _repeat(lines) if type(lines) is int else lines, self.cols)

    def __getitem__(self, i):
        cols, lines = self.cols, self.lines
        if isinstance(i, slice):
            out = self._slice(i)
            if cols is not None:
                out.lines, out.cols = (lines if type(lines) is int else lines[i]), cols[i]
            return out
        if cols is None:
            return self._node(self._value(i))
        return self._node(self._value(i), lines if type(lines) is int else lines[i], cols[i])

    def __reversed__(self):
        return iter(self[::-1])

    def index(self, x, *args) -> int:
        return tuple(self).index(x, *args)

    def __eq__(self, other):
        if type(other) is type(self):
            return self._same(other)
        if isinstance(other, tuple):
            return len(other) == len(self) and self._equals_nodes(other)
        if isinstance(other, _HeldItems):
            return len(self) == len(other) == 0
        return NotImplemented

    def _equals_nodes(self, other: tuple) -> bool:
        node = self.NODE
        return all(type(o) is node and x == o for x, o in zip(self, other))

    def __hash__(self):
        return hash(tuple(self))

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)

    def __repr__(self) -> str:
        return repr(tuple(self))


class IntItems(_HeldItems):
    """The items of a list of more than ``COMPACT_AT`` int64 constants (PyPTO's
    ConstInt), as arrays: the value, the column, the line once while it stays the same
    (12 bytes an element, 8 without positions; ~35 bytes per byte of ``0, 0, ...`` as
    nodes).  ``values`` is the array("q") of the values."""
    __slots__ = ("values",)
    NODE = IntConst

    def __init__(self, values=(), lines=None, cols=None):
        self.values = values if type(values) is _array else _array("q", values)
        self.lines, self.cols = lines, cols

    @staticmethod
    def _keeps(x) -> bool:
        return type(x.value) is int and _INT64_MIN <= x.value <= _INT64_MAX

    def _put(self, x) -> None:
        self.values.append(x.value)

    def _value(self, i):
        return self.values[i]

    def _values(self):
        return self.values

    def _slice(self, i) -> "IntItems":
        return IntItems(self.values[i])

    def _same(self, other) -> bool:
        return self.values == other.values

    def _equals_nodes(self, other: tuple) -> bool:
        return all(type(o) is IntConst and o.value == v for o, v in zip(other, self.values))

    @staticmethod
    def _node(value, line=-1, col=-1):
        return IntConst(value, line if line >= 0 else None, col if col >= 0 else None)

    def __len__(self) -> int:
        return len(self.values)

    def __contains__(self, x) -> bool:
        return type(x) is IntConst and x.value in self.values

    def count(self, x) -> int:
        return self.values.count(x.value) if type(x) is IntConst else 0


class _TextItems(_HeldItems):
    """The items of a list of more than ``COMPACT_AT`` nodes that are each one ASCII
    text (the field ``FIELD`` of ``NODE``), as that text: the texts one after the other
    in one bytearray, the end of each in an array("q"), and the positions (~9 bytes an
    element besides the text; a node, its text and its column cost ~140).  A text that
    is not ASCII keeps the nodes."""
    __slots__ = ("text", "ends")
    FIELD: str

    def __init__(self, texts=(), lines=None, cols=None):
        self.text, self.ends = bytearray(), _array("q")
        self.lines, self.cols = lines, cols
        for t in texts:
            self._add(t)

    def _add(self, t: str) -> None:
        self.text += t.encode("ascii")
        self.ends.append(len(self.text))

    def _keeps(self, x) -> bool:
        t = getattr(x, self.FIELD)
        return type(t) is str and t.isascii()

    def _put(self, x) -> None:
        self._add(getattr(x, self.FIELD))

    def _value(self, i):
        ends = self.ends
        i = range(len(ends))[i]                     # a negative index, and IndexError
        return self.text[ends[i - 1] if i else 0:ends[i]].decode("ascii")

    def _values(self):
        text, start = self.text, 0
        for end in self.ends:
            yield text[start:end].decode("ascii")
            start = end

    def texts(self):
        """The texts of the items, in order (no node made)."""
        return self._values()

    def _slice(self, i):
        return type(self)(map(self._value, range(len(self.ends))[i]))

    def _same(self, other) -> bool:
        return self.ends == other.ends and self.text == other.text

    def __len__(self) -> int:
        return len(self.ends)

    def __contains__(self, x) -> bool:
        return type(x) is self.NODE and any(t == getattr(x, self.FIELD) for t in self._values())

    def count(self, x) -> int:
        return sum(t == getattr(x, self.FIELD) for t in self._values()) if type(x) is self.NODE else 0


class FloatItems(_TextItems):
    """A long list of float literals, as written (FloatConst keeps its text: the
    grammar's float token, ``nan``, ``inf``, a ``-``)."""
    __slots__ = ()
    NODE, FIELD = FloatConst, "text"

    @staticmethod
    def _node(text, line=-1, col=-1):
        return FloatConst(text, line if line >= 0 else None, col if col >= 0 else None)


class NameItems(_TextItems):
    """A long list of names (``[a, b, ...]``), as their identifiers."""
    __slots__ = ()
    NODE, FIELD = Name, "id"

    @staticmethod
    def _node(text, line=-1, col=-1):
        return Name(text, line if line >= 0 else None, col if col >= 0 else None)


#: the ways a list's items may be held instead of a tuple of nodes
HELD_ITEMS = (IntItems, FloatItems, NameItems)


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_I32 = 1 << 31


@node(frozen=True)
class TupleExpr(Expr):
    """A parenthesised tuple ``(a, b)``; one element prints as ``(a,)``."""
    def __init__(self, items: tuple[Expr, ...], line: Pos = None, col: Pos = None):
        self.items, self.line, self.col = items, line, col


@node(frozen=True)
class DictExpr(Expr):
    def __init__(self, items: tuple[tuple[Expr, Expr], ...], line: Pos = None, col: Pos = None):
        self.items, self.line, self.col = items, line, col


@node(frozen=True)
class Subscript(Expr):
    """``value[i]`` or ``value[i, j]`` (several indices print comma-separated)."""
    def __init__(self, value: Expr, index: tuple[Expr, ...], line: Pos = None, col: Pos = None):
        self.value, self.index = value, index
        self.line, self.col = line, col


#: Call.op of each callee text seen (the facts and the rewrite ask it ~4 times a call;
#: a program names a few hundred callees; bounded for a long-lived process)
_OP_OF_FUNC: dict = {}


@node(frozen=True)
class Call(Expr):
    """A call ``func(args..., key=value..., attrs={...})``.

    ``func`` is the dotted callee as written (``pl.tile.load``, ``self.helper``,
    ``pl.range``, ``abs``); ``kwargs`` keep their written order, ``attrs`` included.
    """
    def __init__(self, func: str, args: tuple[Expr, ...] = (),
                 kwargs: tuple[tuple[str, Expr], ...] = (), line: Pos = None, col: Pos = None):
        self.func, self.args, self.kwargs = func, args, kwargs
        self.line, self.col = line, col

    @property
    def op(self) -> Optional[str]:
        """The registered op name (``tile.load``) for ``pl.<ns>.<name>`` calls, else None.

        Keyword-named ops are printed with a trailing underscore (``pl.tile.and_``).
        """
        func = self.func
        try:
            return _OP_OF_FUNC[func]
        except KeyError:
            pass
        if func.startswith("pl.") and func.count(".") >= 2:
            name = func[3:]
        elif func.startswith("pld.") and func.count(".") >= 2:
            name = func
        else:
            name = None
        if name is not None and name.endswith("_") and name.rsplit(".", 1)[1] in (
                "and_", "or_", "not_", "xor_", "in_", "is_"):
            name = name[:-1]
        if len(_OP_OF_FUNC) >= 4096:
            _OP_OF_FUNC.clear()
        _OP_OF_FUNC[func] = name
        return name

    def kwarg(self, key: str) -> Optional[Expr]:
        for k, v in self.kwargs:
            if k == key:
                return v
        return None

    def with_kwarg(self, key: str, value: Expr) -> "Call":
        """Replace ``key`` in place, or append it before ``attrs`` (which always prints last)."""
        kws = list(self.kwargs)
        for i, (k, _) in enumerate(kws):
            if k == key:
                kws[i] = (key, value)
                return replace(self, kwargs=tuple(kws))
        at = len(kws)
        if kws and kws[-1][0] == "attrs":
            at -= 1
        kws.insert(at, (key, value))
        return replace(self, kwargs=tuple(kws))


@node(frozen=True)
class BinOp(Expr):
    """Infix operator: ``+ - * / // % ** == != < <= > >= and or xor & | ^ << >>``."""
    def __init__(self, op: str, left: Expr, right: Expr, line: Pos = None, col: Pos = None):
        self.op, self.left, self.right = op, left, right
        self.line, self.col = line, col


@node(frozen=True)
class UnaryOp(Expr):
    """Prefix operator: ``-``, ``~``, ``not``."""
    def __init__(self, op: str, operand: Expr, line: Pos = None, col: Pos = None):
        self.op, self.operand = op, operand
        self.line, self.col = line, col


@node(frozen=True)
class Opaque(Expr):
    """Text the model does not understand, printed back verbatim."""
    def __init__(self, text: str, line: Pos = None, col: Pos = None):
        self.text, self.line, self.col = text, line, col


# ----------------------------------------------------------------------------- types


@node(frozen=True)
class Type(_Node):
    """A type annotation node."""


@node(frozen=True, uncompared=(), hidden=())
class TileView(_Node):
    """The fields of a printed ``pl.TileView(...)``.

    Only fields written in the text are set; ``None`` means "the implicit value
    for the tile's shape and memory space" (see ``tilemem.ir.views``).
    """
    def __init__(self, valid_shape: Optional[tuple[Expr, ...]] = None,
                 stride: Optional[tuple[Expr, ...]] = None, start_offset: Optional[Expr] = None,
                 blayout: Optional[str] = None, slayout: Optional[str] = None,
                 fractal: Optional[int] = None, pad: Optional[str] = None,
                 compact: Optional[str] = None):
        self.valid_shape, self.stride, self.start_offset = valid_shape, stride, start_offset
        self.blayout, self.slayout, self.fractal = blayout, slayout, fractal
        self.pad, self.compact = pad, compact


@node(frozen=True)
class TileType(Type):
    """``pl.Tile[[dims], pl.DTYPE(, memref)?(, pl.Mem.S)?(, pl.TileView(...))?]``."""
    def __init__(self, shape: tuple[Expr, ...], dtype: str, memref: Optional[Expr] = None,
                 space: Optional[str] = None, view: Optional[TileView] = None, line: Pos = None,
                 col: Pos = None):
        self.shape, self.dtype, self.memref = shape, dtype, memref
        self.space, self.view = space, view
        self.line, self.col = line, col


@node(frozen=True)
class TensorType(Type):
    """``pl.Tensor[[dims], pl.DTYPE(, pl.TensorView(...))?(, memref)?]`` (``pld.DistributedTensor`` too)."""
    def __init__(self, shape: tuple[Expr, ...], dtype: str, view: Optional[Expr] = None,
                 memref: Optional[Expr] = None, kind: str = 'pl.Tensor', line: Pos = None,
                 col: Pos = None):
        self.shape, self.dtype, self.view = shape, dtype, view
        self.memref, self.kind = memref, kind
        self.line, self.col = line, col


@node(frozen=True)
class ScalarType(Type):
    def __init__(self, dtype: str, line: Pos = None, col: Pos = None):
        self.dtype, self.line, self.col = dtype, line, col


@node(frozen=True)
class TupleType(Type):
    def __init__(self, items: tuple[Type, ...], line: Pos = None, col: Pos = None):
        self.items, self.line, self.col = items, line, col


@node(frozen=True)
class OpaqueType(Type):
    """Any other annotation (``pl.Array[...]``, ``pl.Ptr``, ...), kept as its expression."""
    def __init__(self, expr: Expr, line: Pos = None, col: Pos = None):
        self.expr, self.line, self.col = expr, line, col


_TYPE_KINDS = ((TileType, "tile"), (TensorType, "tensor"), (ScalarType, "scalar"),
               (TupleType, "tuple"))


_KIND_OF_CLASS = {cls: kind for cls, kind in _TYPE_KINDS}


def type_kind(t: Optional[Type]) -> Optional[str]:
    """What a type is: "tile", "tensor", "scalar", "tuple" or "other"; None for no type."""
    if t is None:
        return None
    kind = _KIND_OF_CLASS.get(type(t))      # the facts ask once a var (MTP: ~40,000 times)
    if kind is not None:
        return kind
    return next((kind for cls, kind in _TYPE_KINDS if isinstance(t, cls)), "other")


# ----------------------------------------------------------------------------- statements


@node
class Stmt(_Node):
    """A statement node."""


@node(uncompared=('line', 'col', 'annotation'), hidden=('line', 'col', 'annotation'))
class Assign(Stmt):
    """``a: T = value`` (one annotated target) or ``a, b = value`` (tuple unpacking).

    ``annotation``: the annotation expression as written (read by the DSL reading; not
    compared)."""
    def __init__(self, targets: list[str], type: Optional[Type], value: Expr,
                 comments: list[str] = _LIST, line: Pos = None, col: Pos = None,
                 annotation: Optional[Expr] = None):
        self.targets, self.type, self.value = targets, type, value
        self.comments = [] if comments is _LIST else comments
        self.annotation = annotation
        self.line, self.col = line, col


@node
class EvalStmt(Stmt):
    """A bare expression statement, e.g. ``pl.system.bar_v()``."""
    def __init__(self, expr: Expr, comments: list[str] = _LIST, line: Pos = None,
                 col: Pos = None):
        self.expr = expr
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node
class Return(Stmt):
    def __init__(self, values: list[Expr], comments: list[str] = _LIST, line: Pos = None,
                 col: Pos = None):
        self.values = values
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node(uncompared=('line', 'col', 'annotation'), hidden=('line', 'col', 'annotation'))
class Yield(Stmt):
    """``pl.yield_(v...)``; with targets it binds the enclosing loop/branch return vars.

    One target prints ``rv: T = pl.yield_(v)``; several print ``a, b = pl.yield_(x, y)``
    (unannotated, so their types live in ``target_types`` as None).
    """
    def __init__(self, values: list[Expr], targets: list[str] = _LIST,
                 target_types: list[Optional[Type]] = _LIST, comments: list[str] = _LIST,
                 line: Pos = None, col: Pos = None, annotation: Optional[Expr] = None):
        self.values = values
        self.targets = [] if targets is _LIST else targets
        self.target_types = [] if target_types is _LIST else target_types
        self.comments = [] if comments is _LIST else comments
        self.annotation = annotation
        self.line, self.col = line, col


@node
class For(Stmt):
    """``for i[, (a, b)] in pl.<kind>(...):`` — ``iter`` is the header call as written.

    ``kind`` is the callee's last component (range, parallel, unroll, pipeline,
    while_, spmd, split_aiv); ``loop_var`` may be None (``pl.while_``).
    """
    def __init__(self, loop_var: Optional[str], iter_args: Optional[list[str]], iter: Call,
                 body: list[Stmt], comments: list[str] = _LIST, line: Pos = None,
                 col: Pos = None):
        self.loop_var, self.iter_args, self.iter = loop_var, iter_args, iter
        self.body = body
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col

    @property
    def kind(self) -> str:
        return self.iter.func.rsplit(".", 1)[-1]

    @property
    def init_values(self) -> list[Expr]:
        init = self.iter.kwarg("init_values")
        return list(init.items) if isinstance(init, (TupleExpr, ListExpr)) else []


@node
class While(Stmt):
    def __init__(self, cond: Expr, body: list[Stmt], comments: list[str] = _LIST,
                 line: Pos = None, col: Pos = None):
        self.cond, self.body = cond, body
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node
class If(Stmt):
    def __init__(self, cond: Expr, then_body: list[Stmt], else_body: Optional[list[Stmt]] = None,
                 comments: list[str] = _LIST, line: Pos = None, col: Pos = None):
        self.cond, self.then_body, self.else_body = cond, then_body, else_body
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node
class With(Stmt):
    """``with <call>[ as name]:`` — pl.scope / pl.at / pl.cluster / pl.spmd."""
    def __init__(self, item: Expr, as_name: Optional[str], body: list[Stmt],
                 comments: list[str] = _LIST, line: Pos = None, col: Pos = None):
        self.item, self.as_name, self.body = item, as_name, body
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node
class Break(Stmt):
    def __init__(self, comments: list[str] = _LIST, line: Pos = None, col: Pos = None):
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node
class Continue(Stmt):
    def __init__(self, comments: list[str] = _LIST, line: Pos = None, col: Pos = None):
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node
class Pass(Stmt):
    def __init__(self, comments: list[str] = _LIST, line: Pos = None, col: Pos = None):
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


@node
class OpaqueStmt(Stmt):
    """A statement line the model does not understand, printed back verbatim."""
    def __init__(self, text: str, comments: list[str] = _LIST, line: Pos = None, col: Pos = None):
        self.text = text
        self.comments = [] if comments is _LIST else comments
        self.line, self.col = line, col


# ----------------------------------------------------------------------------- functions


@node
class Param(_Node):
    """A function parameter; ``direction`` is In, Out or InOut."""
    def __init__(self, name: str, type: Type, direction: str = 'In', line: Pos = None,
                 col: Pos = None):
        self.name, self.type, self.direction = name, type, direction
        self.line, self.col = line, col


# FunctionType -> (level, role) that PyPTO's Function constructor derives when the
# decorator gives none (printer.md section 2); both readings apply it
DERIVED_LEVEL_ROLE = {
    "InCore": ("CHIP_DIE", "SubWorker"),
    "AIC": ("AIC", "SubWorker"),
    "AIV": ("AIV", "SubWorker"),
    "Group": ("CORE_GROUP", "SubWorker"),
    "Orchestration": ("CHIP", "Orchestrator"),
    "Graph": ("CHIP", "Orchestrator"),
}


@node(uncompared=('name_hints', 'line', 'col'), hidden=('name_hints', 'line', 'col'))
class Function(_Node):
    """A ``@pl.function`` method of the program class.

    ``func_type`` is the FunctionType name (Opaque when the decorator has none);
    ``level``/``role`` are as written or derived the way PyPTO derives them.
    ``extra`` holds further decorator kwargs (auto_scope, external_source) in order;
    ``returns_tuple``: ``-> tuple[...]`` even with one element.

    ``name_hints``: the name hint PyPTO gave each var, by printed name, when the reader
    knows it (the DSL reading: ``x`` assigned twice is two vars with hint ``x``, printed
    ``x``, ``x_1``).  Printed text does not carry hints; the rules then infer them
    (rules/p3_rewrite.dl, name_hint).  Used to name inserted moves (printer.md §6).
    """
    def __init__(self, name: str, func_type: str, level: Optional[str], role: Optional[str],
                 params: list[Param], return_types: list[Type], body: list[Stmt],
                 extra: list[tuple[str, Expr]] = _LIST, returns_tuple: bool = False,
                 comments: list[str] = _LIST, decorator: str = 'pl.function',
                 name_hints: dict[str, str] = _DICT, line: Pos = None, col: Pos = None):
        self.name, self.func_type, self.level = name, func_type, level
        self.role, self.params, self.return_types = role, params, return_types
        self.body, self.returns_tuple, self.decorator = body, returns_tuple, decorator
        self.extra = [] if extra is _LIST else extra
        self.comments = [] if comments is _LIST else comments
        self.name_hints = {} if name_hints is _DICT else name_hints
        self.line, self.col = line, col

    @property
    def is_incore(self) -> bool:
        return self.func_type == "InCore"


@node(uncompared=('line', 'col', 'reading'))
class Program(_Node):
    """A ``@pl.program`` class: its functions, and its ``dynamic`` dims (``NAME =
    pl.dynamic("NAME")``).  ``header`` is the ``# pypto.program: X`` line as written;
    ``reading`` says how the text was read: "ir" (PyPTO's printed IR) or "dsl"
    (hand-written DSL, through PyPTO's front end; see tilemem.frontend.reading)."""
    def __init__(self, name: str, functions: list[Function],
                 dynamic: list[tuple[str, Expr]] = _LIST, prefix: str = 'pl',
                 header: Optional[str] = None, class_name: Optional[str] = None,
                 line: Pos = None, col: Pos = None, reading: str = 'ir'):
        self.name, self.functions = name, functions
        self.dynamic = [] if dynamic is _LIST else dynamic
        self.prefix, self.header, self.class_name = prefix, header, class_name
        self.line, self.col, self.reading = line, col, reading

    def function(self, name: str) -> Optional[Function]:
        for f in self.functions:
            if f.name == name:
                return f
        return None


Stmts = list[Stmt]
if TYPE_CHECKING:
    AnyNode = Union[Expr, Type, Stmt, Function, Program]


# the expression nodes that hold no other
_LEAF_NODES = frozenset({Name, Dotted, IntConst, FloatConst, BoolConst, NoneConst, StrConst, Opaque})


def subexpressions(e, operands_only: bool = False, constants: bool = True):
    """Every expression node inside ``e`` (``e`` included), in pre-order, left to right;
    iterative, since inputs may nest deeply.  ``operands_only``: skip what PyPTO's IR
    keeps as attributes rather than operands (a call's keyword arguments, dict literals).
    ``constants=False``: not the items of a list of number constants (a shape, an offset
    list: their nodes are made one at a time, for a walk that wants none of them)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        yield x
        tx = type(x)        # (no node class has subclasses: a type test, not isinstance chains)
        if tx in _LEAF_NODES:
            continue
        if tx is Call:
            if not operands_only:
                stack.extend(v for _, v in reversed(x.kwargs))
            stack.extend(reversed(x.args))
        elif tx is ListExpr or tx is TupleExpr:
            if type(x.items) in HELD_ITEMS:
                if constants or type(x.items) is NameItems:
                    yield from x.items      # leaves, made one at a time
            else:
                stack.extend(reversed(x.items))
        elif tx is DictExpr:
            if not operands_only:
                for k, v in reversed(x.items):
                    stack.extend((v, k))
        elif tx is Subscript:
            stack.extend(reversed(x.index))
            stack.append(x.value)
        elif tx is BinOp:
            stack.extend((x.right, x.left))
        elif tx is UnaryOp:
            stack.append(x.operand)
