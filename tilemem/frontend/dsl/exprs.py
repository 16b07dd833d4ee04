"""Expressions of a hand-written body, as PyPTO's front end builds them (spec: dsl.md
§4; source: ast_parser.py:5740-6023, include/pypto/ir/scalar_expr.h:330-560).

* Literals: an int is an INDEX constant, a float an FP32 constant, ``None`` the
  TaskId sentinel ``pl.system.task_invalid()``.
* A tree of literals and module constants is folded with Python's semantics
  (``64 * 2`` is ``128``); anything naming a DSL var stays as written.
* Scalar arithmetic promotes: both operands in one category (int or float), the
  result has the wider dtype (the left one on a tie), the other operand is wrapped in
  ``pl.cast`` (never between INDEX and INT64).
* ``pl.Mem.X`` alone is the space's code (an INDEX constant).
"""
from __future__ import annotations

import math
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.frontend.dsl.values import (
    FLOAT_DTYPES, INT_DTYPES, CoreError, DslError, Val, const_bool, const_float, const_int, dotted,
    dtype_bits, scalar,
)
from tilemem.frontend.pyconstants import Dynamic

__all__ = ["ExprReader", "MEMORY_SPACE_CODES", "const_value", "is_const", "DT_NAME", "promote",
           "make_binop", "cast_to"]

# MemorySpace enum values (include/pypto/ir/memory_space.h)
MEMORY_SPACE_CODES = {"DDR": 0, "Vec": 1, "Mat": 2, "Left": 3, "Right": 4, "Acc": 5, "Bias": 6,
                      "ScalarLocal": 7, "LeftScale": 8, "RightScale": 9}

# DataType::ToString, for messages
DT_NAME = {"BOOL": "bool", "INT4": "int4", "INT8": "int8", "INT16": "int16", "INT32": "int32",
           "INT64": "int64", "UINT4": "uint4", "UINT8": "uint8", "UINT16": "uint16", "UINT32": "uint32",
           "UINT64": "uint64", "FP4": "fp4", "FP8E4M3FN": "fp8e4m3fn", "FP8E5M2": "fp8e5m2",
           "FP8E8M0": "fp8e8m0", "FP16": "fp16", "FP32": "fp32", "BF16": "bfloat16", "HF4": "hf4",
           "HF8": "hf8", "INDEX": "index", "TASK_ID": "task_id"}

# tilemem's operator spelling -> PyPTO's operator name (in messages)
_OP_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
             "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
             "<<": "bit_shift_left", ">>": "bit_shift_right"}
_COMPARE = frozenset(("==", "!=", "<", "<=", ">", ">="))
_SHIFTS = frozenset(("<<", ">>"))
# Python operator names PyPTO reports for what it rejects
_UNSUPPORTED_BINOPS = {"**": "Pow", "&": "BitAnd", "|": "BitOr", "^": "BitXor", "xor": "BitXor", "@": "MatMult"}


def const_value(e) -> Optional[tuple]:
    """``(dtype, value)`` of a constant expression (IntConst, FloatConst, BoolConst,
    ``pl.const(v, pl.T)``), else None."""
    t = type(e)
    if t is ir.IntConst:
        return ("INDEX", e.value)
    if t is ir.FloatConst:
        return ("FP32", float(e.text))
    if t is ir.BoolConst:
        return ("BOOL", e.value)
    if t is ir.Call and e.func == "pl.const" and len(e.args) == 2 and type(e.args[1]) is ir.Dotted:
        inner = const_value(e.args[0])
        if inner is not None:
            return (e.args[1].parts[-1], inner[1])
    return None


def is_const(e) -> bool:
    return const_value(e) is not None


def _category(dt: str, op: str) -> str:
    if dt in FLOAT_DTYPES:
        return "float"
    if dt in INT_DTYPES:
        return "int"
    raise CoreError(f"Operator '{op}' requires numeric scalar dtype, got {DT_NAME.get(dt, dt)}")


def promote(ldt: str, rdt: str, op: str, ints_only: bool = False) -> str:
    """PromoteSameCategoryDtype (scalar_expr.h:350-372)."""
    if ints_only and (ldt not in INT_DTYPES or rdt not in INT_DTYPES):
        raise CoreError(f"Operator '{op}' requires integer dtype, got {DT_NAME.get(ldt, ldt)} and "
                       f"{DT_NAME.get(rdt, rdt)}")
    if ldt == "BOOL" or rdt == "BOOL":
        raise CoreError(f"Operator '{op}' does not accept bool dtype")
    if _category(ldt, op) != _category(rdt, op):
        raise CoreError(f"Operator '{op}' requires same numeric dtype category, got {DT_NAME.get(ldt, ldt)} and "
                       f"{DT_NAME.get(rdt, rdt)}")
    lb, rb = dtype_bits(ldt), dtype_bits(rdt)
    return rdt if rb > lb else ldt


def cast_to(v: Val, dt: str) -> ir.Expr:
    """MaybeCast: ``v`` as ``dt`` (no cast between INDEX and INT64)."""
    src = v.type.dtype
    if src == dt or {src, dt} == {"INDEX", "INT64"}:
        return v.expr
    return ir.Call("pl.cast", (v.expr, dotted("pl", dt)), (), getattr(v.expr, "line", None),
                   getattr(v.expr, "col", None))


def _pure_const_int_tree(e) -> bool:
    if type(e) is ir.IntConst:
        return True
    if type(e) is ir.Call and e.func == "pl.const" and type(e.args[0]) is ir.IntConst:
        return True
    if type(e) is ir.BinOp:
        return _pure_const_int_tree(e.left) and _pure_const_int_tree(e.right)
    return False


def _typed_leaves(e):
    """Every bare INDEX constant of a pure-constant tree printed as ``pl.const(v, pl.INDEX)``
    (pp:1552-1576: such a tree must not fold on re-reading)."""
    if type(e) is ir.IntConst:
        return ir.Call("pl.const", (e, dotted("pl", "INDEX")), (), e.line, e.col)
    if type(e) is ir.BinOp:
        return ir.BinOp(e.op, _typed_leaves(e.left), _typed_leaves(e.right), e.line, e.col)
    return e


def make_binop(op: str, left: Val, right: Val, node=None) -> Val:
    """A scalar binary operator with PyPTO's promotion."""
    name = _OP_NAMES.get(op, op)
    for side in (left, right):
        if not isinstance(side.type, ir.ScalarType):
            raise DslError(f"Operator '{name}' requires scalar operands, got {_type_text(side.type)}", node)
    line, col = (getattr(node, "line", None), getattr(node, "col", None)) if node is not None else (None, None)
    if op in ("and", "or"):
        e = ir.BinOp(op, left.expr, right.expr, line, col)
        return Val(e, scalar("BOOL"))
    dt = promote(left.type.dtype, right.type.dtype, name, ints_only=op in _SHIFTS)
    e = ir.BinOp(op, cast_to(left, dt), cast_to(right, dt), line, col)
    if _pure_const_int_tree(e):
        e = _typed_leaves(e)
    return Val(e, scalar("BOOL" if op in _COMPARE else dt))


def _type_text(t) -> str:
    from tilemem.ir.printer import print_type
    try:
        return print_type(t)
    except TypeError:
        return str(t)


_INDEX = scalar("INDEX")
_FP32 = scalar("FP32")


def _fp32_text(text: str) -> str:
    """The text of the FP32 constant a float literal reads as (``_float``)."""
    return const_float(float(text), "FP32").expr.text


class _NoFold(Exception):
    pass


_NOT_FOLDED = object()


_READ = "\x00"      # marks a name that is already a var's key (no source text holds it)


def read_back(e):
    """An expression of read vars (a type's dim: its names are keys) in a form the reader
    takes back as it is: each name marked as read, not looked up again by its spelling
    (a dim ``world_size`` of ``NR = pl.dynamic("world_size")`` is no name of the source)."""
    from tilemem.ir.names import rename_expr
    names = {x.id for x in ir.subexpressions(e) if type(x) is ir.Name}
    return rename_expr(e, {n: _READ + n for n in names}) if names else e


class ExprReader:
    """Mixin of the function reader: ``expr(e) -> Val``."""

    # -- entry ------------------------------------------------------------------
    def expr(self, e) -> Val:
        t = type(e)
        f = _DISPATCH.get(t)
        if f is None:
            raise DslError(f"Unsupported expression: {self.source_of(e)}", e)
        v = f(self, e)
        if t is ir.Call or type(v.expr) is ir.Call:
            # nested calls as op arguments (a subscript read or slice, `t[0]`, is one too)
            # keyed by identity, the expression kept with its type: an id is only unique
            # while its object lives (a reading thrown away would hand its id on)
            self.expr_types[id(v.expr)] = (v.expr, v.type)
        return v

    def expr_list(self, items) -> list[Val]:
        return [self.expr(x) for x in items]

    # -- atoms ------------------------------------------------------------------
    def _name(self, e: ir.Name) -> Val:
        if e.id[:1] == _READ:                # a var already read (read_back)
            key = e.id[1:]
            return Val(ir.Name(key, e.line, e.col), self.key_types.get(key) or scalar("INDEX"))
        v = self.lookup(e.id)
        if v is not None:
            return v.ref(e)
        comp = self.ctx.comprehensions.get(e.id) if self.ctx.comprehensions else None
        if comp is not None:                 # a with header's comprehension outside deps= (AP:5773)
            raise DslError("Unsupported expression type: ListComp", comp)
        c = self.closure(e.id)
        if c is not None:
            return self.closure_val(c, e)
        raise DslError(f"Undefined variable '{e.id}'", e)

    def closure_val(self, c, node) -> Val:
        if isinstance(c, Dynamic):
            return self.dynamic_var(c.name).ref(node)
        v = _python_const(c, node)
        if v is not None:
            return v
        if isinstance(c, list):
            vals = [self.closure_val(x, node) for x in c]
            return self.make_tuple(vals, node)
        raise DslError(f"Unsupported closure value for '{getattr(node, 'id', '?')}'", node)

    def _int(self, e: ir.IntConst) -> Val:
        return const_int(e.value, "INDEX", e)

    def _float(self, e: ir.FloatConst) -> Val:
        if e.text in ("nan", "inf"):
            return const_float(float(e.text), "FP32", e)
        return const_float(float(e.text), "FP32", e)

    def _bool(self, e: ir.BoolConst) -> Val:
        return const_bool(e.value, e)

    def _none(self, e) -> Val:
        from tilemem.frontend.dsl.wrappers import syntax_op
        return Val(ir.Call(syntax_op("no_task"), (), (), e.line, e.col), scalar("TASK_ID"))

    def _str(self, e: ir.StrConst) -> Val:
        raise DslError("Unsupported constant type: <class 'str'>", e)

    def make_tuple(self, vals: list[Val], node=None) -> Val:
        line, col = (getattr(node, "line", None), getattr(node, "col", None)) if node is not None else (None, None)
        return Val(ir.ListExpr(tuple(v.expr for v in vals), line, col), ir.TupleType(tuple(v.type for v in vals)))

    def _list(self, e) -> Val:
        items = e.items
        if type(items) is ir.IntItems:
            # int64 literals, which read as the INDEX constants they are: the items kept
            # as they are held (no node per element; a list is as long as its line)
            return Val(ir.ListExpr(items, e.line, e.col), ir.TupleType((_INDEX,) * len(items)))
        if type(items) is ir.FloatItems:
            # float literals read as the FP32 constants they are (``_float``), the texts
            # as PyPTO prints their values, held the same way, positions kept
            held = ir.FloatItems(map(_fp32_text, items.texts()), items.lines, items.cols)
            return Val(ir.ListExpr(held, e.line, e.col), ir.TupleType((_FP32,) * len(held)))
        return self.make_tuple(self.expr_list(items), e)

    def _dotted(self, e: ir.Dotted) -> Val:
        parts = e.parts
        if len(parts) >= 3 and parts[-2] in ("Mem", "MemorySpace") and parts[-1] in MEMORY_SPACE_CODES:
            return const_int(MEMORY_SPACE_CODES[parts[-1]], "INDEX", e)
        raise DslError(f"Standalone attribute access not supported: {e.text}", e)

    def _opaque(self, e: ir.Opaque) -> Val:
        if e.text == "...":
            raise DslError("Unsupported constant type: <class 'ellipsis'>", e)
        raise DslError(f"Unsupported expression: {e.text}", e)

    # -- folding ------------------------------------------------------------------
    def foldable(self, e) -> bool:
        """Only literals, operators and names that are not DSL vars (ast_parser:5840)."""
        stack = [e]
        while stack:
            x = stack.pop()
            t = type(x)
            if t is ir.Name:
                if self.lookup(x.id) is not None:
                    return False
            elif t is ir.BinOp:
                if x.op in _COMPARE or x.op in ("and", "or"):
                    return False
                stack.extend((x.left, x.right))
            elif t is ir.UnaryOp:
                if x.op in ("not", "~"):
                    return False
                stack.append(x.operand)
            elif t not in (ir.IntConst, ir.FloatConst, ir.BoolConst):
                return False
        return True

    def fold(self, e):
        """Python's value of a foldable tree (raises _NoFold).  Post-order over a stack:
        an operator chain is as long as its line (``1 + 1 + ...``), not as deep as the
        parser's nesting limit."""
        out: list = []
        stack = [(e, False)]
        while stack:
            x, ready = stack.pop()
            t = type(x)
            if t is ir.BinOp:
                if not ready:
                    stack += ((x, True), (x.right, False), (x.left, False))
                    continue
                b = out.pop()
                a = out.pop()
                try:
                    out.append(_PY_OPS[x.op](a, b))
                except (ZeroDivisionError, OverflowError, KeyError, TypeError, ValueError):
                    raise _NoFold from None
            elif t is ir.UnaryOp:
                if x.op != "-":
                    raise _NoFold
                if not ready:
                    stack += ((x, True), (x.operand, False))
                    continue
                out.append(-out.pop())
            else:
                out.append(self._fold_leaf(x))
        return out[0]

    def _fold_leaf(self, e):
        t = type(e)
        if t is ir.IntConst:
            return e.value
        if t is ir.FloatConst:
            return float(e.text)
        if t is ir.BoolConst:
            return e.value
        if t is ir.Name:
            c = self.closure(e.id)
            if isinstance(c, (int, float)) and not isinstance(c, Dynamic):
                return c
        raise _NoFold

    def _fold_value(self, e):
        """fold(e), or _NOT_FOLDED when ``e`` is not foldable or does not fold."""
        if not self.foldable(e):
            return _NOT_FOLDED
        try:
            return self.fold(e)
        except _NoFold:
            return _NOT_FOLDED

    def folded(self, e) -> Optional[Val]:
        if not self.foldable(e):
            return None
        try:
            v = self.fold(e)
        except _NoFold:
            return None
        return _python_const(v, e)

    # -- operators -------------------------------------------------------------------
    def _binop(self, e: ir.BinOp) -> Val:
        """Each operator folded when its operands fold, else built with PyPTO's promotion.
        The left operands of a chain (``a + b + c + ...``: as long as the line) are walked
        in a loop; each level folds when its left and right operands do, which is what
        folding the level's whole tree decides."""
        spine = [e]                  # e, e.left, e.left.left, ... while operators
        while type(spine[-1].left) is ir.BinOp:
            spine.append(spine[-1].left)
        base = spine[-1].left
        values = [_NOT_FOLDED] * len(spine)
        v = self._fold_value(base)
        for i in range(len(spine) - 1, -1, -1):
            x = spine[i]
            if v is not _NOT_FOLDED:
                r = _NOT_FOLDED if x.op in _COMPARE or x.op in ("and", "or") else self._fold_value(x.right)
                try:
                    v = _NOT_FOLDED if r is _NOT_FOLDED else _PY_OPS[x.op](v, r)
                except (ZeroDivisionError, OverflowError, KeyError, TypeError, ValueError):
                    v = _NOT_FOLDED
            values[i] = v
        k = 0                        # the first level from the top that folds
        val = None
        while k < len(spine):
            if values[k] is not _NOT_FOLDED:
                val = _python_const(values[k], spine[k])
                if val is not None:
                    break
            if spine[k].op in _UNSUPPORTED_BINOPS:
                raise DslError(f"Unsupported binary operator: {_UNSUPPORTED_BINOPS[spine[k].op]}", spine[k])
            k += 1
        if val is None:
            val = self.expr(base)
        for x in reversed(spine[:k]):
            val = make_binop(x.op, val, self.expr(x.right), x)
        return val

    def _unary(self, e: ir.UnaryOp) -> Val:
        if e.op == "-":
            f = self.folded(e)
            if f is not None:
                return f
        v = self.expr(e.operand)
        if not isinstance(v.type, ir.ScalarType):
            raise DslError(f"Unary operator requires a scalar operand, got {_type_text(v.type)}", e)
        if e.op == "-":
            cv = const_value(v.expr)
            if cv is not None and cv[0] != "BOOL" and type(v.expr) in (ir.IntConst, ir.FloatConst):
                if type(v.expr) is ir.IntConst:
                    return const_int(-cv[1], cv[0], e)
                return const_float(-cv[1], cv[0], e)
            return Val(ir.UnaryOp("-", v.expr, e.line, e.col), v.type)
        if e.op == "not":
            return Val(ir.UnaryOp("not", v.expr, e.line, e.col), scalar("BOOL"))
        if e.op == "~":
            if v.type.dtype not in INT_DTYPES:
                raise DslError(f"Operator 'bit_not' requires integer dtype, got {DT_NAME.get(v.type.dtype)}", e)
            return Val(ir.UnaryOp("~", v.expr, e.line, e.col), v.type)
        raise DslError(f"Unsupported unary operator: {e.op}", e)

    # -- subscripts ------------------------------------------------------------------
    def _subscript(self, e: ir.Subscript) -> Val:
        base = self.expr(e.value)
        t = base.type
        if isinstance(t, ir.TupleType):
            if len(e.index) != 1 or type(e.index[0]) is not ir.IntConst:
                raise DslError("Tuple index must be a constant integer", e)
            i = e.index[0].value
            if not 0 <= i < len(t.items):
                raise DslError(f"Tuple index {i} out of range for a tuple of {len(t.items)} elements", e)
            return Val(ir.Subscript(base.expr, (ir.IntConst(i),), e.line, e.col), t.items[i])
        if isinstance(t, (ir.TileType, ir.TensorType)):
            return self.read_or_slice(base, e)
        from tilemem.frontend.dsl.types import array_dtype
        if array_dtype(t) is not None:
            return self.array_read(base, e)
        raise DslError(f"Subscript on a value of type {_type_text(t)} is not supported", e)

    def _call(self, e: ir.Call) -> Val:
        return self.call(e)


def _floordiv(a, b):
    return a // b


def _truediv(a, b):
    return a / b


_PY_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _truediv,
    "//": _floordiv, "%": lambda a, b: a % b, "**": lambda a, b: a ** b if abs(b) < 4096 else math.nan,
    "<<": lambda a, b: a << b if 0 <= b < 4096 else None, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}

_DISPATCH = {
    ir.Name: ExprReader._name,
    ir.IntConst: ExprReader._int,
    ir.FloatConst: ExprReader._float,
    ir.BoolConst: ExprReader._bool,
    ir.NoneConst: ExprReader._none,
    ir.StrConst: ExprReader._str,
    ir.ListExpr: ExprReader._list,
    ir.TupleExpr: ExprReader._list,
    ir.Dotted: ExprReader._dotted,
    ir.BinOp: ExprReader._binop,
    ir.UnaryOp: ExprReader._unary,
    ir.Subscript: ExprReader._subscript,
    ir.Call: ExprReader._call,
    ir.Opaque: ExprReader._opaque,
}


def _python_const(v, node) -> Optional[Val]:
    """A Python constant as PyPTO's front end makes it (a bool, an INDEX int, an FP32
    float); None for any other value."""
    if isinstance(v, bool):
        return const_bool(v, node)
    if isinstance(v, int):
        return const_int(v, "INDEX", node)
    if isinstance(v, float):
        return const_float(v, "FP32", node)
    return None
