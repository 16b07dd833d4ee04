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

from dataclasses import dataclass, field, replace
from typing import Optional, Union

__all__ = [
    "Expr", "Name", "Dotted", "IntConst", "FloatConst", "BoolConst", "NoneConst", "StrConst",
    "ListExpr", "TupleExpr", "DictExpr", "Subscript", "Call", "BinOp", "UnaryOp", "Opaque",
    "Type", "TileView", "TileType", "TensorType", "ScalarType", "TupleType", "OpaqueType",
    "Stmt", "Assign", "EvalStmt", "Return", "Yield", "For", "While", "If", "With", "Break",
    "Continue", "Pass", "OpaqueStmt", "Param", "Function", "Program", "replace", "pos", "subexpressions",
]


def pos():
    """A source-position field: excluded from equality and repr."""
    return field(default=None, compare=False, repr=False)


# ----------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    pass


@dataclass(frozen=True)
class Name(Expr):
    """A bare identifier: a variable, or a free name such as a dynamic dim."""
    id: str
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class Dotted(Expr):
    """A dotted reference that is not called: ``pl.FP32``, ``pl.Mem.Vec``, ``self.f``."""
    parts: tuple[str, ...]
    line: Optional[int] = pos()
    col: Optional[int] = pos()

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True)
class IntConst(Expr):
    value: int
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class FloatConst(Expr):
    """A float literal, kept as written (``%.17g`` text, ``nan``, ``inf``)."""
    text: str
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class BoolConst(Expr):
    value: bool
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class NoneConst(Expr):
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class StrConst(Expr):
    """A string literal; ``quote`` is the delimiter it was written with (``'`` or ``"``)."""
    value: str
    quote: str = "'"
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class ListExpr(Expr):
    items: tuple[Expr, ...]
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class TupleExpr(Expr):
    """A parenthesised tuple ``(a, b)``; one element prints as ``(a,)``."""
    items: tuple[Expr, ...]
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class DictExpr(Expr):
    items: tuple[tuple[Expr, Expr], ...]
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class Subscript(Expr):
    """``value[i]`` or ``value[i, j]`` (several indices print comma-separated)."""
    value: Expr
    index: tuple[Expr, ...]
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class Call(Expr):
    """A call ``func(args..., key=value..., attrs={...})``.

    ``func`` is the dotted callee as written (``pl.tile.load``, ``self.helper``,
    ``pl.range``, ``abs``); ``kwargs`` keep their written order, ``attrs`` included.
    """
    func: str
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()
    line: Optional[int] = pos()
    col: Optional[int] = pos()

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


@dataclass(frozen=True)
class BinOp(Expr):
    """Infix operator: ``+ - * / // % ** == != < <= > >= and or xor & | ^ << >>``."""
    op: str
    left: Expr
    right: Expr
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class UnaryOp(Expr):
    """Prefix operator: ``-``, ``~``, ``not``."""
    op: str
    operand: Expr
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class Opaque(Expr):
    """Text the model does not understand, printed back verbatim."""
    text: str
    line: Optional[int] = pos()
    col: Optional[int] = pos()


# ----------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Type:
    pass


@dataclass(frozen=True)
class TileView:
    """The fields of a printed ``pl.TileView(...)``.

    Only fields written in the text are set; ``None`` means "the implicit value
    for the tile's shape and memory space" (see ``tilemem.ir.views``).
    """
    valid_shape: Optional[tuple[Expr, ...]] = None
    stride: Optional[tuple[Expr, ...]] = None
    start_offset: Optional[Expr] = None
    blayout: Optional[str] = None
    slayout: Optional[str] = None
    fractal: Optional[int] = None
    pad: Optional[str] = None
    compact: Optional[str] = None


@dataclass(frozen=True)
class TileType(Type):
    """``pl.Tile[[dims], pl.DTYPE(, memref)?(, pl.Mem.S)?(, pl.TileView(...))?]``."""
    shape: tuple[Expr, ...]
    dtype: str
    memref: Optional[Expr] = None
    space: Optional[str] = None
    view: Optional[TileView] = None
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class TensorType(Type):
    """``pl.Tensor[[dims], pl.DTYPE(, pl.TensorView(...))?(, memref)?]`` (``pld.DistributedTensor`` too)."""
    shape: tuple[Expr, ...]
    dtype: str
    view: Optional[Expr] = None
    memref: Optional[Expr] = None
    kind: str = "pl.Tensor"
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class ScalarType(Type):
    dtype: str
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class TupleType(Type):
    items: tuple[Type, ...]
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass(frozen=True)
class OpaqueType(Type):
    """Any other annotation (``pl.Array[...]``, ``pl.Ptr``, ...), kept as its expression."""
    expr: Expr
    line: Optional[int] = pos()
    col: Optional[int] = pos()


# ----------------------------------------------------------------------------- statements


@dataclass
class Stmt:
    pass


@dataclass
class Assign(Stmt):
    """``a: T = value`` (one annotated target) or ``a, b = value`` (tuple unpacking)."""
    targets: list[str]
    type: Optional[Type]
    value: Expr
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class EvalStmt(Stmt):
    """A bare expression statement, e.g. ``pl.system.bar_v()``."""
    expr: Expr
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class Return(Stmt):
    values: list[Expr]
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class Yield(Stmt):
    """``pl.yield_(v...)``; with targets it binds the enclosing loop/branch return vars.

    One target prints ``rv: T = pl.yield_(v)``; several print ``a, b = pl.yield_(x, y)``
    (unannotated, so their types live in ``target_types`` as None).
    """
    values: list[Expr]
    targets: list[str] = field(default_factory=list)
    target_types: list[Optional[Type]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class For(Stmt):
    """``for i[, (a, b)] in pl.<kind>(...):`` — ``iter`` is the header call as written.

    ``kind`` is the callee's last component (range, parallel, unroll, pipeline,
    while_, spmd, split_aiv); ``loop_var`` may be None (``pl.while_``).
    """
    loop_var: Optional[str]
    iter_args: Optional[list[str]]
    iter: Call
    body: list[Stmt]
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()

    @property
    def kind(self) -> str:
        return self.iter.func.rsplit(".", 1)[-1]

    @property
    def init_values(self) -> list[Expr]:
        init = self.iter.kwarg("init_values")
        return list(init.items) if isinstance(init, (TupleExpr, ListExpr)) else []


@dataclass
class While(Stmt):
    cond: Expr
    body: list[Stmt]
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class If(Stmt):
    cond: Expr
    then_body: list[Stmt]
    else_body: Optional[list[Stmt]] = None
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class With(Stmt):
    """``with <call>[ as name]:`` — pl.scope / pl.at / pl.cluster / pl.spmd."""
    item: Expr
    as_name: Optional[str]
    body: list[Stmt]
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class Break(Stmt):
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class Continue(Stmt):
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class Pass(Stmt):
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class OpaqueStmt(Stmt):
    """A statement line the model does not understand, printed back verbatim."""
    text: str
    comments: list[str] = field(default_factory=list)
    line: Optional[int] = pos()
    col: Optional[int] = pos()


# ----------------------------------------------------------------------------- functions


@dataclass
class Param:
    name: str
    type: Type
    direction: str = "In"          # In | Out | InOut
    line: Optional[int] = pos()
    col: Optional[int] = pos()


@dataclass
class Function:
    """A ``@pl.function`` method of the program class.

    ``func_type`` is the FunctionType name (Opaque when the decorator has none);
    ``level``/``role`` are as written or derived the way PyPTO derives them.
    ``extra`` holds further decorator kwargs (auto_scope, external_source) in order.
    """
    name: str
    func_type: str
    level: Optional[str]
    role: Optional[str]
    params: list[Param]
    return_types: list[Type]
    body: list[Stmt]
    extra: list[tuple[str, Expr]] = field(default_factory=list)
    returns_tuple: bool = False     # ``-> tuple[...]`` even with one element
    comments: list[str] = field(default_factory=list)
    decorator: str = "pl.function"
    # The name hint PyPTO gave each var, by printed name, when the reader knows it (the
    # DSL reading: ``x`` assigned twice is two vars with hint ``x``, printed ``x``,
    # ``x_1``).  Printed text does not carry hints; the rules then infer them
    # (rules/p3_rewrite.dl, name_hint).  Used to name inserted moves (printer.md §6).
    name_hints: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    line: Optional[int] = pos()
    col: Optional[int] = pos()

    @property
    def is_incore(self) -> bool:
        return self.func_type == "InCore"


@dataclass
class Program:
    name: str
    functions: list[Function]
    dynamic: list[tuple[str, Expr]] = field(default_factory=list)   # NAME = pl.dynamic("NAME")
    prefix: str = "pl"
    header: Optional[str] = None     # the ``# pypto.program: X`` line as written
    class_name: Optional[str] = None
    line: Optional[int] = pos()
    col: Optional[int] = pos()

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
