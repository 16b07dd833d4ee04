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

from typing import Optional, Union

from tilemem.records import DICT as _DICT, LIST as _LIST, Record as _Node, record, replace

__all__ = [
    "Expr", "Name", "Dotted", "IntConst", "FloatConst", "BoolConst", "NoneConst", "StrConst",
    "ListExpr", "TupleExpr", "DictExpr", "Subscript", "Call", "BinOp", "UnaryOp", "Opaque",
    "Type", "TileView", "TileType", "TensorType", "ScalarType", "TupleType", "OpaqueType",
    "Stmt", "Assign", "EvalStmt", "Return", "Yield", "For", "While", "If", "With", "Break",
    "Continue", "Pass", "OpaqueStmt", "Param", "Function", "Program", "replace", "pos", "subexpressions",
    "type_kind",
]


def pos():
    """A source-position field of a dataclass: excluded from equality and repr."""
    import dataclasses
    return dataclasses.field(default=None, compare=False, repr=False)


# ----------------------------------------------------------------------------- node classes
#
# The node classes are plain classes with __slots__ and a written-out __init__, not
# dataclasses: building ~40 dataclasses cost 20 ms at every start (the methods are
# generated as text and compiled), and a frozen dataclass's __init__ sets each field
# through object.__setattr__ (1.5 us a node; 0.4 us here: the parser builds a million
# nodes for the largest kernels).  They still look like dataclasses to the rest of the
# code (:mod:`tilemem.records`): ``dataclasses.fields``, ``replace``, ``asdict`` and
# ``is_dataclass`` work, and equality, hashing and repr are the dataclass ones.  Expression and
# type nodes are immutable by convention (their hash depends on their fields).


_POSITIONS = ("line", "col")


def node(cls=None, *, frozen: bool = False, uncompared: tuple = _POSITIONS,
         hidden: tuple = _POSITIONS):
    """Finish a node class (:func:`tilemem.records.record`): its fields are its
    ``__slots__``, in ``__init__``'s order; by default the source position takes no part
    in equality, hashing and repr."""
    return record(cls, frozen=frozen, uncompared=uncompared, hidden=hidden)


# ----------------------------------------------------------------------------- expressions


@node(frozen=True)
class Expr(_Node):
    __slots__ = ()


@node(frozen=True)
class Name(Expr):
    """A bare identifier: a variable, or a free name such as a dynamic dim."""
    __slots__ = ('id', 'line', 'col')
    id: str
    line: Optional[int]
    col: Optional[int]

    def __init__(self, id, line=None, col=None):
        self.id = id
        self.line = line
        self.col = col


@node(frozen=True)
class Dotted(Expr):
    """A dotted reference that is not called: ``pl.FP32``, ``pl.Mem.Vec``, ``self.f``."""
    __slots__ = ('parts', 'line', 'col')
    parts: tuple[str, ...]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, parts, line=None, col=None):
        self.parts = parts
        self.line = line
        self.col = col

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@node(frozen=True)
class IntConst(Expr):
    __slots__ = ('value', 'line', 'col')
    value: int
    line: Optional[int]
    col: Optional[int]

    def __init__(self, value, line=None, col=None):
        self.value = value
        self.line = line
        self.col = col


@node(frozen=True)
class FloatConst(Expr):
    """A float literal, kept as written (``%.17g`` text, ``nan``, ``inf``)."""
    __slots__ = ('text', 'line', 'col')
    text: str
    line: Optional[int]
    col: Optional[int]

    def __init__(self, text, line=None, col=None):
        self.text = text
        self.line = line
        self.col = col


@node(frozen=True)
class BoolConst(Expr):
    __slots__ = ('value', 'line', 'col')
    value: bool
    line: Optional[int]
    col: Optional[int]

    def __init__(self, value, line=None, col=None):
        self.value = value
        self.line = line
        self.col = col


@node(frozen=True)
class NoneConst(Expr):
    __slots__ = ('line', 'col')
    line: Optional[int]
    col: Optional[int]

    def __init__(self, line=None, col=None):
        self.line = line
        self.col = col


@node(frozen=True)
class StrConst(Expr):
    """A string literal; ``quote`` is the delimiter it was written with (``'`` or ``"``)."""
    __slots__ = ('value', 'quote', 'line', 'col')
    value: str
    quote: str
    line: Optional[int]
    col: Optional[int]

    def __init__(self, value, quote="'", line=None, col=None):
        self.value = value
        self.quote = quote
        self.line = line
        self.col = col


@node(frozen=True)
class ListExpr(Expr):
    __slots__ = ('items', 'line', 'col')
    items: tuple[Expr, ...]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, items, line=None, col=None):
        self.items = items
        self.line = line
        self.col = col


@node(frozen=True)
class TupleExpr(Expr):
    """A parenthesised tuple ``(a, b)``; one element prints as ``(a,)``."""
    __slots__ = ('items', 'line', 'col')
    items: tuple[Expr, ...]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, items, line=None, col=None):
        self.items = items
        self.line = line
        self.col = col


@node(frozen=True)
class DictExpr(Expr):
    __slots__ = ('items', 'line', 'col')
    items: tuple[tuple[Expr, Expr], ...]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, items, line=None, col=None):
        self.items = items
        self.line = line
        self.col = col


@node(frozen=True)
class Subscript(Expr):
    """``value[i]`` or ``value[i, j]`` (several indices print comma-separated)."""
    __slots__ = ('value', 'index', 'line', 'col')
    value: Expr
    index: tuple[Expr, ...]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, value, index, line=None, col=None):
        self.value = value
        self.index = index
        self.line = line
        self.col = col


@node(frozen=True)
class Call(Expr):
    """A call ``func(args..., key=value..., attrs={...})``.

    ``func`` is the dotted callee as written (``pl.tile.load``, ``self.helper``,
    ``pl.range``, ``abs``); ``kwargs`` keep their written order, ``attrs`` included.
    """
    __slots__ = ('func', 'args', 'kwargs', 'line', 'col')
    func: str
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, func, args=(), kwargs=(), line=None, col=None):
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.line = line
        self.col = col

    @property
    def op(self) -> Optional[str]:
        """The registered op name (``tile.load``) for ``pl.<ns>.<name>`` calls, else None.

        Keyword-named ops are printed with a trailing underscore (``pl.tile.and_``).
        """
        if self.func.startswith("pl.") and self.func.count(".") >= 2:
            name = self.func[3:]
        elif self.func.startswith("pld.") and self.func.count(".") >= 2:
            name = self.func
        else:
            return None
        if name.endswith("_") and name.rsplit(".", 1)[1] in ("and_", "or_", "not_", "xor_", "in_", "is_"):
            name = name[:-1]
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
    __slots__ = ('op', 'left', 'right', 'line', 'col')
    op: str
    left: Expr
    right: Expr
    line: Optional[int]
    col: Optional[int]

    def __init__(self, op, left, right, line=None, col=None):
        self.op = op
        self.left = left
        self.right = right
        self.line = line
        self.col = col


@node(frozen=True)
class UnaryOp(Expr):
    """Prefix operator: ``-``, ``~``, ``not``."""
    __slots__ = ('op', 'operand', 'line', 'col')
    op: str
    operand: Expr
    line: Optional[int]
    col: Optional[int]

    def __init__(self, op, operand, line=None, col=None):
        self.op = op
        self.operand = operand
        self.line = line
        self.col = col


@node(frozen=True)
class Opaque(Expr):
    """Text the model does not understand, printed back verbatim."""
    __slots__ = ('text', 'line', 'col')
    text: str
    line: Optional[int]
    col: Optional[int]

    def __init__(self, text, line=None, col=None):
        self.text = text
        self.line = line
        self.col = col


# ----------------------------------------------------------------------------- types


@node(frozen=True)
class Type(_Node):
    __slots__ = ()


@node(frozen=True, uncompared=(), hidden=())
class TileView(_Node):
    """The fields of a printed ``pl.TileView(...)``.

    Only fields written in the text are set; ``None`` means "the implicit value
    for the tile's shape and memory space" (see ``tilemem.ir.views``).
    """
    __slots__ = ('valid_shape', 'stride', 'start_offset', 'blayout', 'slayout', 'fractal', 'pad',
                 'compact')
    valid_shape: Optional[tuple[Expr, ...]]
    stride: Optional[tuple[Expr, ...]]
    start_offset: Optional[Expr]
    blayout: Optional[str]
    slayout: Optional[str]
    fractal: Optional[int]
    pad: Optional[str]
    compact: Optional[str]

    def __init__(self, valid_shape=None, stride=None, start_offset=None, blayout=None,
            slayout=None, fractal=None, pad=None, compact=None):
        self.valid_shape = valid_shape
        self.stride = stride
        self.start_offset = start_offset
        self.blayout = blayout
        self.slayout = slayout
        self.fractal = fractal
        self.pad = pad
        self.compact = compact


@node(frozen=True)
class TileType(Type):
    """``pl.Tile[[dims], pl.DTYPE(, memref)?(, pl.Mem.S)?(, pl.TileView(...))?]``."""
    __slots__ = ('shape', 'dtype', 'memref', 'space', 'view', 'line', 'col')
    shape: tuple[Expr, ...]
    dtype: str
    memref: Optional[Expr]
    space: Optional[str]
    view: Optional[TileView]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, shape, dtype, memref=None, space=None, view=None, line=None, col=None):
        self.shape = shape
        self.dtype = dtype
        self.memref = memref
        self.space = space
        self.view = view
        self.line = line
        self.col = col


@node(frozen=True)
class TensorType(Type):
    """``pl.Tensor[[dims], pl.DTYPE(, pl.TensorView(...))?(, memref)?]`` (``pld.DistributedTensor`` too)."""
    __slots__ = ('shape', 'dtype', 'view', 'memref', 'kind', 'line', 'col')
    shape: tuple[Expr, ...]
    dtype: str
    view: Optional[Expr]
    memref: Optional[Expr]
    kind: str
    line: Optional[int]
    col: Optional[int]

    def __init__(self, shape, dtype, view=None, memref=None, kind='pl.Tensor', line=None,
            col=None):
        self.shape = shape
        self.dtype = dtype
        self.view = view
        self.memref = memref
        self.kind = kind
        self.line = line
        self.col = col


@node(frozen=True)
class ScalarType(Type):
    __slots__ = ('dtype', 'line', 'col')
    dtype: str
    line: Optional[int]
    col: Optional[int]

    def __init__(self, dtype, line=None, col=None):
        self.dtype = dtype
        self.line = line
        self.col = col


@node(frozen=True)
class TupleType(Type):
    __slots__ = ('items', 'line', 'col')
    items: tuple[Type, ...]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, items, line=None, col=None):
        self.items = items
        self.line = line
        self.col = col


@node(frozen=True)
class OpaqueType(Type):
    """Any other annotation (``pl.Array[...]``, ``pl.Ptr``, ...), kept as its expression."""
    __slots__ = ('expr', 'line', 'col')
    expr: Expr
    line: Optional[int]
    col: Optional[int]

    def __init__(self, expr, line=None, col=None):
        self.expr = expr
        self.line = line
        self.col = col


_TYPE_KINDS = ((TileType, "tile"), (TensorType, "tensor"), (ScalarType, "scalar"),
               (TupleType, "tuple"))


def type_kind(t: Optional[Type]) -> Optional[str]:
    """What a type is: "tile", "tensor", "scalar", "tuple" or "other"; None for no type."""
    if t is None:
        return None
    return next((kind for cls, kind in _TYPE_KINDS if isinstance(t, cls)), "other")


# ----------------------------------------------------------------------------- statements


@node
class Stmt(_Node):
    __slots__ = ()


@node(uncompared=('line', 'col', 'annotation'), hidden=('line', 'col', 'annotation'))
class Assign(Stmt):
    """``a: T = value`` (one annotated target) or ``a, b = value`` (tuple unpacking).

    ``annotation``: the annotation expression as written (read by the DSL reading; not
    compared)."""
    __slots__ = ('targets', 'type', 'value', 'comments', 'line', 'col', 'annotation')
    targets: list[str]
    type: Optional[Type]
    value: Expr
    comments: list[str]
    line: Optional[int]
    col: Optional[int]
    annotation: Optional[Expr]

    def __init__(self, targets, type, value, comments=_LIST, line=None, col=None,
            annotation=None):
        self.targets = targets
        self.type = type
        self.value = value
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col
        self.annotation = annotation


@node
class EvalStmt(Stmt):
    """A bare expression statement, e.g. ``pl.system.bar_v()``."""
    __slots__ = ('expr', 'comments', 'line', 'col')
    expr: Expr
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, expr, comments=_LIST, line=None, col=None):
        self.expr = expr
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node
class Return(Stmt):
    __slots__ = ('values', 'comments', 'line', 'col')
    values: list[Expr]
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, values, comments=_LIST, line=None, col=None):
        self.values = values
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node(uncompared=('line', 'col', 'annotation'), hidden=('line', 'col', 'annotation'))
class Yield(Stmt):
    """``pl.yield_(v...)``; with targets it binds the enclosing loop/branch return vars.

    One target prints ``rv: T = pl.yield_(v)``; several print ``a, b = pl.yield_(x, y)``
    (unannotated, so their types live in ``target_types`` as None).
    """
    __slots__ = ('values', 'targets', 'target_types', 'comments', 'line', 'col', 'annotation')
    values: list[Expr]
    targets: list[str]
    target_types: list[Optional[Type]]
    comments: list[str]
    line: Optional[int]
    col: Optional[int]
    annotation: Optional[Expr]

    def __init__(self, values, targets=_LIST, target_types=_LIST, comments=_LIST, line=None,
            col=None, annotation=None):
        self.values = values
        self.targets = [] if targets is _LIST else targets
        self.target_types = [] if target_types is _LIST else target_types
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col
        self.annotation = annotation


@node
class For(Stmt):
    """``for i[, (a, b)] in pl.<kind>(...):`` — ``iter`` is the header call as written.

    ``kind`` is the callee's last component (range, parallel, unroll, pipeline,
    while_, spmd, split_aiv); ``loop_var`` may be None (``pl.while_``).
    """
    __slots__ = ('loop_var', 'iter_args', 'iter', 'body', 'comments', 'line', 'col')
    loop_var: Optional[str]
    iter_args: Optional[list[str]]
    iter: Call
    body: list[Stmt]
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, loop_var, iter_args, iter, body, comments=_LIST, line=None, col=None):
        self.loop_var = loop_var
        self.iter_args = iter_args
        self.iter = iter
        self.body = body
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col

    @property
    def kind(self) -> str:
        return self.iter.func.rsplit(".", 1)[-1]

    @property
    def init_values(self) -> list[Expr]:
        init = self.iter.kwarg("init_values")
        return list(init.items) if isinstance(init, (TupleExpr, ListExpr)) else []


@node
class While(Stmt):
    __slots__ = ('cond', 'body', 'comments', 'line', 'col')
    cond: Expr
    body: list[Stmt]
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, cond, body, comments=_LIST, line=None, col=None):
        self.cond = cond
        self.body = body
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node
class If(Stmt):
    __slots__ = ('cond', 'then_body', 'else_body', 'comments', 'line', 'col')
    cond: Expr
    then_body: list[Stmt]
    else_body: Optional[list[Stmt]]
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, cond, then_body, else_body=None, comments=_LIST, line=None, col=None):
        self.cond = cond
        self.then_body = then_body
        self.else_body = else_body
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node
class With(Stmt):
    """``with <call>[ as name]:`` — pl.scope / pl.at / pl.cluster / pl.spmd."""
    __slots__ = ('item', 'as_name', 'body', 'comments', 'line', 'col')
    item: Expr
    as_name: Optional[str]
    body: list[Stmt]
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, item, as_name, body, comments=_LIST, line=None, col=None):
        self.item = item
        self.as_name = as_name
        self.body = body
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node
class Break(Stmt):
    __slots__ = ('comments', 'line', 'col')
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, comments=_LIST, line=None, col=None):
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node
class Continue(Stmt):
    __slots__ = ('comments', 'line', 'col')
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, comments=_LIST, line=None, col=None):
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node
class Pass(Stmt):
    __slots__ = ('comments', 'line', 'col')
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, comments=_LIST, line=None, col=None):
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


@node
class OpaqueStmt(Stmt):
    """A statement line the model does not understand, printed back verbatim."""
    __slots__ = ('text', 'comments', 'line', 'col')
    text: str
    comments: list[str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, text, comments=_LIST, line=None, col=None):
        self.text = text
        self.comments = [] if comments is _LIST else comments
        self.line = line
        self.col = col


# ----------------------------------------------------------------------------- functions


@node
class Param(_Node):
    __slots__ = ('name', 'type', 'direction', 'line', 'col')
    name: str
    type: Type
    direction: str          # In | Out | InOut
    line: Optional[int]
    col: Optional[int]

    def __init__(self, name, type, direction='In', line=None, col=None):
        self.name = name
        self.type = type
        self.direction = direction
        self.line = line
        self.col = col


@node(uncompared=('name_hints', 'line', 'col'), hidden=('name_hints', 'line', 'col'))
class Function(_Node):
    """A ``@pl.function`` method of the program class.

    ``func_type`` is the FunctionType name (Opaque when the decorator has none);
    ``level``/``role`` are as written or derived the way PyPTO derives them.
    ``extra`` holds further decorator kwargs (auto_scope, external_source) in order.
    """
    __slots__ = ('name', 'func_type', 'level', 'role', 'params', 'return_types', 'body', 'extra',
                 'returns_tuple', 'comments', 'decorator', 'name_hints', 'line', 'col')
    name: str
    func_type: str
    level: Optional[str]
    role: Optional[str]
    params: list[Param]
    return_types: list[Type]
    body: list[Stmt]
    extra: list[tuple[str, Expr]]
    returns_tuple: bool     # ``-> tuple[...]`` even with one element
    comments: list[str]
    decorator: str
    # The name hint PyPTO gave each var, by printed name, when the reader knows it (the
    # DSL reading: ``x`` assigned twice is two vars with hint ``x``, printed ``x``,
    # ``x_1``).  Printed text does not carry hints; the rules then infer them
    # (rules/p3_rewrite.dl, name_hint).  Used to name inserted moves (printer.md §6).
    name_hints: dict[str, str]
    line: Optional[int]
    col: Optional[int]

    def __init__(self, name, func_type, level, role, params, return_types, body, extra=_LIST,
            returns_tuple=False, comments=_LIST, decorator='pl.function', name_hints=_DICT,
            line=None, col=None):
        self.name = name
        self.func_type = func_type
        self.level = level
        self.role = role
        self.params = params
        self.return_types = return_types
        self.body = body
        self.extra = [] if extra is _LIST else extra
        self.returns_tuple = returns_tuple
        self.comments = [] if comments is _LIST else comments
        self.decorator = decorator
        self.name_hints = {} if name_hints is _DICT else name_hints
        self.line = line
        self.col = col

    @property
    def is_incore(self) -> bool:
        return self.func_type == "InCore"


@node(uncompared=('line', 'col', 'reading'))
class Program(_Node):
    __slots__ = ('name', 'functions', 'dynamic', 'prefix', 'header', 'class_name', 'line', 'col',
                 'reading')
    name: str
    functions: list[Function]
    dynamic: list[tuple[str, Expr]]   # NAME = pl.dynamic("NAME")
    prefix: str
    header: Optional[str]     # the ``# pypto.program: X`` line as written
    class_name: Optional[str]
    line: Optional[int]
    col: Optional[int]
    # how the text was read: "ir" (PyPTO's printed IR) or "dsl" (hand-written DSL,
    # through PyPTO's front end); see tilemem.frontend.reading
    reading: str

    def __init__(self, name, functions, dynamic=_LIST, prefix='pl', header=None,
            class_name=None, line=None, col=None, reading='ir'):
        self.name = name
        self.functions = functions
        self.dynamic = [] if dynamic is _LIST else dynamic
        self.prefix = prefix
        self.header = header
        self.class_name = class_name
        self.line = line
        self.col = col
        self.reading = reading

    def function(self, name: str) -> Optional[Function]:
        for f in self.functions:
            if f.name == name:
                return f
        return None


Stmts = list[Stmt]
AnyNode = Union[Expr, Type, Stmt, Function, Program]


def subexpressions(e, operands_only: bool = False):
    """Every expression node inside ``e`` (``e`` included), in pre-order, left to right;
    iterative, since inputs may nest deeply.  ``operands_only``: skip what PyPTO's IR
    keeps as attributes rather than operands (a call's keyword arguments, dict literals)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        yield x
        if isinstance(x, Call):
            if not operands_only:
                stack.extend(v for _, v in reversed(x.kwargs))
            stack.extend(reversed(x.args))
        elif isinstance(x, (ListExpr, TupleExpr)):
            stack.extend(reversed(x.items))
        elif isinstance(x, DictExpr):
            if not operands_only:
                for k, v in reversed(x.items):
                    stack.extend((v, k))
        elif isinstance(x, Subscript):
            stack.extend(reversed(x.index))
            stack.append(x.value)
        elif isinstance(x, BinOp):
            stack.extend((x.right, x.left))
        elif isinstance(x, UnaryOp):
            stack.append(x.operand)
