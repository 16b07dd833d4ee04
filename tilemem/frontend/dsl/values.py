"""The values the DSL reader works with, and its errors.

While a hand-written body is read, every expression becomes a :class:`Val`: the IR
expression PyPTO's front end builds (in tilemem's IR, vars named by their *key*, see
:mod:`tilemem.ir.names`) and its IR type.  Arguments that PyPTO passes to its op
wrappers as Python values rather than IR expressions (``pl.FP32``,
``pl.MemorySpace.Mat``, ``mode="rint"``, ``[0, 0]`` as a keyword) are :class:`Enum`
and :class:`Py`.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Any, Optional

from tilemem import ir
from tilemem.records import Record, record

__all__ = ["DslError", "int64_const", "int64_overflow", "INT64_RANGE", "Var", "Val", "Enum", "Py", "UNKNOWN", "DTYPES", "SPACES", "INT_DTYPES",
           "FLOAT_DTYPES", "is_unknown", "dtype_of", "scalar", "const_int", "const_float",
           "const_bool", "dotted", "float_text", "dtype_bits", "DTYPE_BITS", "pos_of"]

# TR:163-186: every dtype name an annotation may use (printer order in dtype.h)
DTYPES = ("BOOL", "INT4", "INT8", "INT16", "INT32", "INT64", "UINT4", "UINT8", "UINT16", "UINT32",
          "UINT64", "FP4", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "FP16", "FP32", "BF16", "HF4", "HF8",
          "INDEX", "TASK_ID")
INT_DTYPES = frozenset(("INT4", "INT8", "INT16", "INT32", "INT64", "UINT4", "UINT8", "UINT16",
                        "UINT32", "UINT64", "INDEX"))
FLOAT_DTYPES = frozenset(("FP4", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "FP16", "FP32", "BF16", "HF4", "HF8"))
# include/pypto/core/dtype.h: bit widths (INDEX is 64-bit)
DTYPE_BITS = {"BOOL": 1, "INT4": 4, "INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64, "UINT4": 4,
              "UINT8": 8, "UINT16": 16, "UINT32": 32, "UINT64": 64, "FP4": 4, "FP8E4M3FN": 8,
              "FP8E5M2": 8, "FP8E8M0": 8, "FP16": 16, "FP32": 32, "BF16": 16, "HF4": 4, "HF8": 8,
              "INDEX": 64, "TASK_ID": 64}
# spaces an annotation may name (TR:201-211; not ScalarLocal)
SPACES = ("DDR", "Vec", "Mat", "Left", "Right", "Acc", "Bias", "LeftScale", "RightScale")

UNKNOWN = ir.OpaqueType(ir.Dotted(("pl", "UnknownType")))


class DslError(Exception):
    """PyPTO's front end rejects the program: ``message`` at ``node``'s position."""

    def __init__(self, message: str, node: Any = None, line: Optional[int] = None, col: Optional[int] = None):
        super().__init__(message)
        self.message = message
        if node is not None and line is None:
            line, col = pos_of(node)
        self.line = line
        self.col = col


class WrapperCrash(DslError):
    """A Python exception other than ValueError / TypeError inside an op wrapper (the
    AttributeError of an operand it unwraps): PyPTO's parser reports it as
    ``Error in MODULE operation 'NAME': ...`` (ast_parser.py:8312-8320)."""


class CoreError(DslError):
    """An error PyPTO's C++ raises while the parser itself builds the IR (no pl wrapper in
    between): it leaves parse_function as ``Failed to parse function 'f': <message>``."""


def pos_of(node) -> tuple[Optional[int], Optional[int]]:
    if node is None:
        return None, None
    line = getattr(node, "line", None)
    col = getattr(node, "col", None)
    if line is None:                      # a lark Token
        line = getattr(node, "line", None)
        col = getattr(node, "column", None)
    return line, col


class Var:
    """A DSL variable: one PyPTO Var object (identity matters: the printer numbers
    distinct Vars that share a hint)."""
    __slots__ = ("key", "hint", "type", "iter_arg", "dyn")

    def __init__(self, key: str, hint: str, type: ir.Type, iter_arg: bool = False, dyn: bool = False):
        self.key = key
        self.hint = hint
        self.type = type
        self.iter_arg = iter_arg
        self.dyn = dyn           # a program-level pl.dynamic symbol

    def ref(self, node=None) -> "Val":
        line, col = pos_of(node)
        return Val(ir.Name(self.key, line, col), self.type, self)

    def __repr__(self):
        return f"Var({self.hint!r})"


@record
class Val(Record):
    """An IR expression and its type (``var``: the Var when the expression is one)."""

    def __init__(self, expr: ir.Expr, type: ir.Type, var: Optional[Var] = None):
        self.expr, self.type, self.var = expr, type, var


@record(frozen=True)
class Enum(Record):
    """An enum value passed to an op wrapper: ``kind`` is DataType, MemorySpace,
    TileLayout, TensorLayout, PadValue, ..."""

    def __init__(self, kind: str, name: str):
        self.kind, self.name = kind, name


@record(frozen=True)
class Py(Record):
    """A plain Python value passed to an op wrapper (keyword literals, literal lists)."""

    def __init__(self, value: Any):
        self.value = value


def is_unknown(t) -> bool:
    return isinstance(t, ir.OpaqueType) and isinstance(t.expr, ir.Dotted) and t.expr.parts[-1] == "UnknownType"


def dtype_of(v: Val) -> Optional[str]:
    t = v.type
    if isinstance(t, (ir.ScalarType, ir.TileType, ir.TensorType)):
        return t.dtype
    return None


def dtype_bits(d: str) -> int:
    return DTYPE_BITS.get(d, 0)


def scalar(dtype: str) -> ir.ScalarType:
    return ir.ScalarType(dtype)


def dotted(*parts: str) -> ir.Dotted:
    return ir.Dotted(tuple(parts))


def float_text(v: float) -> str:
    """PyPTO's float literal: C's ``%.17g``, ``.0`` appended when it has no '.', 'e'
    (printer.md §5)."""
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    s = "%.17g" % v
    if "." not in s and "e" not in s and "E" not in s:
        s += ".0"
    return s


from tilemem.ir.nodes import INT64_RANGE, int64_overflow  # noqa: E402  (PyPTO's ConstInt: int64)


def int64_const(v: int, node=None) -> ir.IntConst:
    """An IntConst PyPTO can build: a Python int outside int64 is rejected where it is written
    (a constant, a shape or view dimension)."""
    line, col = pos_of(node)
    if v not in INT64_RANGE:
        raise DslError(int64_overflow(v), node, line, col)
    return ir.IntConst(v, line, col)



def const_int(v: int, dtype: str = "INDEX", node=None) -> Val:
    line, col = pos_of(node)
    int64_const(v, node)
    if dtype == "INDEX":
        return Val(ir.IntConst(v, line, col), scalar("INDEX"))
    return Val(ir.Call("pl.const", (ir.IntConst(v), dotted("pl", dtype)), (), line, col), scalar(dtype))


def const_float(v: float, dtype: str = "FP32", node=None) -> Val:
    line, col = pos_of(node)
    lit = ir.FloatConst(float_text(v), line, col)
    if dtype == "FP32":
        return Val(lit, scalar("FP32"))
    return Val(ir.Call("pl.const", (lit, dotted("pl", dtype)), (), line, col), scalar(dtype))


def const_bool(v: bool, node=None) -> Val:
    line, col = pos_of(node)
    return Val(ir.BoolConst(v, line, col), scalar("BOOL"))
