"""Print tilemem's IR back as PyPTO's printer would (spec/printer.md).

    text = print_program(prog)          # no trailing newline, like PyPTO

Helpers for code that builds new nodes: :func:`print_expr`, :func:`print_type`,
:func:`print_tileview`, :func:`print_stmt`, :func:`print_function`.

One line per statement, 4-space indentation, no line wrapping; parentheses are derived
from PyPTO's operator precedence (printer.md section 5), so text that was printed by
PyPTO round-trips byte for byte.
"""
from __future__ import annotations

from itertools import islice
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.recursion import deep_recursion

__all__ = ["print_program", "print_program_head", "print_function", "print_stmt", "print_stmts", "print_expr", "print_type",
           "print_tileview", "precedence", "BINARY_PRECEDENCE"]

INDENT = "    "

# printer.md section 5 (include/pypto/ir/transforms/printer.h:32-48)
BINARY_PRECEDENCE = {
    "or": 1, "xor": 2, "and": 3,
    "==": 5, "!=": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
    "|": 6, "^": 7, "&": 8, "<<": 9, ">>": 9,
    "+": 10, "-": 10, "*": 11, "/": 11, "//": 11, "%": 11,
    "**": 13,
}
_NOT_PREC = 4
_UNARY_PREC = 12
_CALL_PREC = 14
_ATOM_PREC = 15

_BinOp, _UnaryOp, _Call = ir.BinOp, ir.UnaryOp, ir.Call
_IntConst, _Name = ir.IntConst, ir.Name


def precedence(e: ir.Expr) -> int:
    """PyPTO's precedence of an expression node (higher binds tighter)."""
    t = type(e)
    if t is _BinOp:
        return BINARY_PRECEDENCE.get(e.op, 0)
    if t is _UnaryOp:
        return _NOT_PREC if e.op == "not" else _UNARY_PREC
    if t is _Call:
        return _CALL_PREC
    return _ATOM_PREC


# ----------------------------------------------------------------------------- expressions

def print_expr(e: ir.Expr) -> str:
    """The text of an expression."""
    f = _EXPR.get(type(e))
    if f is None:
        return _print_expr_slow(e)
    return f(e)


def _print_expr_slow(e) -> str:
    for cls, f in _EXPR.items():
        if isinstance(e, cls):
            return f(e)
    if isinstance(e, ir.Type):
        return print_type(e)
    raise TypeError(f"cannot print {type(e).__name__} as an expression")


def _p_name(e):
    return e.id


def _p_dotted(e):
    return ".".join(e.parts)


def _p_int(e):
    return str(e.value)


def _p_float(e):
    return e.text


def _p_bool(e):
    return "True" if e.value else "False"


def _p_none(e):
    return "None"


def _p_str(e):
    q = e.quote
    return f"{q}{e.value}{q}"


def _join(items) -> str:
    if type(items) is ir.IntItems:
        return _join_ints(items.values)
    if type(items) is ir.FloatItems or type(items) is ir.NameItems:
        return _join_texts(items.texts())
    pe = print_expr
    # (a shape's or an index's items are mostly numbers and names: printed in place)
    return ", ".join([str(x.value) if x.__class__ is _IntConst else
                      x.id if x.__class__ is _Name else pe(x) for x in items])


def _join_ints(values, chunk: int = 4096) -> str:
    """``", ".join`` of integers a chunk at a time: the text of a long list without a
    string object per element at once."""
    if len(values) <= chunk:
        return ", ".join(map(str, values))
    return ", ".join([", ".join(map(str, values[i:i + chunk])) for i in range(0, len(values), chunk)])


def _item_texts(types, prefix: str) -> list:
    """The printed type of each item of a tuple type, one text per distinct item object:
    a tuple as long as a list literal (one FP32 scalar type a float) refers to one text
    instead of a string per element (~66 bytes each)."""
    seen = {}
    out = []
    for t in types:
        s = seen.get(id(t))
        if s is None:
            s = seen[id(t)] = print_type(t, prefix)
        out.append(s)
    return out


def _join_texts(texts, chunk: int = 4096) -> str:
    """``", ".join`` of texts a chunk at a time (as :func:`_join_ints`)."""
    parts, texts = [], iter(texts)
    while True:
        part = ", ".join(islice(texts, chunk))
        if not part:
            return ", ".join(parts)
        parts.append(part)


def _p_list(e):
    return f"[{_join(e.items)}]"


def _p_tuple(e):
    items = e.items
    if len(items) == 1:
        return f"({print_expr(items[0])},)"
    return f"({_join(items)})"


def _p_dict(e):
    pe = print_expr
    return "{" + ", ".join([f"{pe(k)}: {pe(v)}" for k, v in e.items]) + "}"


def _p_subscript(e):
    v = e.value
    vs = print_expr(v)
    if precedence(v) < _CALL_PREC:
        vs = f"({vs})"
    return f"{vs}[{_join(e.index)}]"


# Forms whose predicate= is printed in parentheses (printer.md §4-5: submit and spmd).
_PAREN_PREDICATE = ("pl.submit", "pl.spmd_submit", "pl.spmd")


def _p_call(e):
    pe = print_expr
    parts = [a.id if a.__class__ is _Name else pe(a) for a in e.args]
    if e.kwargs:
        paren = e.func in _PAREN_PREDICATE
        parts.extend([f"{k}=({pe(v)})" if paren and k == "predicate" else f"{k}={pe(v)}"
                      for k, v in e.kwargs])
    return f"{e.func}({', '.join(parts)})"


def _p_binop(e):
    # The left spine (``1 + 1 + ... + 1`` nests to the left, as deep as the chain is
    # long) is walked iteratively; the text grows at the end, and a parenthesised left
    # operand only adds one "(" in front of all that came before.
    spine = []
    while type(e) is _BinOp:
        spine.append(e)
        e = e.left
    out = [print_expr(e)]
    opened = 0
    for node in reversed(spine):
        op = node.op
        p = BINARY_PRECEDENCE.get(op, 0)
        lp = precedence(node.left)
        if lp < p or (lp == p and op == "**"):
            opened += 1
            out.append(")")
        right = node.right
        rs = print_expr(right)
        rp = precedence(right)
        if rp < p or (rp == p and op != "**"):
            rs = f"({rs})"
        out.append(f" {op} {rs}")
    return "(" * opened + "".join(out)


def _p_unary(e):
    op = e.op
    operand = e.operand
    s = print_expr(operand)
    if op == "not":
        if precedence(operand) < _NOT_PREC:
            s = f"({s})"
        return f"not {s}"
    if precedence(operand) < _UNARY_PREC:
        s = f"({s})"
    return f"{op}{s}"


def _p_opaque(e):
    return e.text


_EXPR = {
    ir.Name: _p_name,
    ir.Dotted: _p_dotted,
    ir.IntConst: _p_int,
    ir.FloatConst: _p_float,
    ir.BoolConst: _p_bool,
    ir.NoneConst: _p_none,
    ir.StrConst: _p_str,
    ir.ListExpr: _p_list,
    ir.TupleExpr: _p_tuple,
    ir.DictExpr: _p_dict,
    ir.Subscript: _p_subscript,
    ir.Call: _p_call,
    ir.BinOp: _p_binop,
    ir.UnaryOp: _p_unary,
    ir.Opaque: _p_opaque,
}


# ----------------------------------------------------------------------------- types

def print_tileview(v: ir.TileView, prefix: str = "pl") -> str:
    """``pl.TileView(...)`` with the set fields in PyPTO's fixed order (tileview.md section 10).

    Written out, not a loop over a field table: types print on every annotation, and the
    table form (getattr and a formatter call per field) was twice as slow (2.5 -> 5 us)."""
    parts = []
    if v.valid_shape is not None:
        parts.append(f"valid_shape=[{_join(v.valid_shape)}]")
    if v.stride is not None:
        parts.append(f"stride=[{_join(v.stride)}]")
    if v.start_offset is not None:
        parts.append(f"start_offset={print_expr(v.start_offset)}")
    if v.blayout is not None:
        parts.append(f"blayout={prefix}.TileLayout.{v.blayout}")
    if v.slayout is not None:
        parts.append(f"slayout={prefix}.TileLayout.{v.slayout}")
    if v.fractal is not None:
        parts.append(f"fractal={v.fractal}")
    if v.pad is not None:
        parts.append(f"pad={prefix}.PadValue.{v.pad}")
    if v.compact is not None:
        parts.append(f"compact={prefix}.CompactMode.{v.compact}")
    return f"{prefix}.TileView({', '.join(parts)})"


def print_type(t: ir.Type, prefix: str = "pl") -> str:
    """The text of a type annotation."""
    tt = type(t)
    if tt is ir.TileType:
        s = f"{prefix}.Tile[[{_join(t.shape)}], {prefix}.{t.dtype}"
        if t.memref is not None:
            s += ", " + print_expr(t.memref)
        if t.space is not None:
            s += f", {prefix}.Mem.{t.space}"
        if t.view is not None:
            s += ", " + print_tileview(t.view, prefix)
        return s + "]"
    if tt is ir.TensorType:
        s = f"{t.kind}[[{_join(t.shape)}], {prefix}.{t.dtype}"
        if t.view is not None:
            s += ", " + print_expr(t.view)
        if t.memref is not None:
            s += ", " + print_expr(t.memref)
        return s + "]"
    if tt is ir.ScalarType:
        return f"{prefix}.Scalar[{prefix}.{t.dtype}]"
    if tt is ir.OpaqueType:
        return print_expr(t.expr)
    if tt is ir.TupleType:
        if not t.items:
            return f"{prefix}.Tuple[()]"
        return f"{prefix}.Tuple[{', '.join(_item_texts(t.items, prefix))}]"
    for cls in (ir.TileType, ir.TensorType, ir.ScalarType, ir.OpaqueType, ir.TupleType):
        if isinstance(t, cls):
            return _print_type_sub(t, cls, prefix)
    raise TypeError(f"cannot print {type(t).__name__} as a type")


def _print_type_sub(t, cls, prefix):
    # a subclass of a known type: print it as its base class
    base = cls(*[getattr(t, f) for f in cls._fields])
    return print_type(base, prefix)


# ----------------------------------------------------------------------------- statements

def _body(stmts, ind: str, out: list, pfx: str) -> None:
    if not stmts:
        out.append(ind + "pass")
        return
    for s in stmts:
        if s.comments:
            for c in s.comments:
                out.append(ind + c)
        f = _STMT.get(type(s))
        if f is None:
            f = _stmt_slow(s)
        f(s, ind, out, pfx)


def _stmt_slow(s):
    for cls, f in _STMT.items():
        if isinstance(s, cls):
            return f
    raise TypeError(f"cannot print {type(s).__name__} as a statement")


def _binding(ind, targets, ty, rhs: str, pfx) -> str:
    """``targets = rhs``; a single target with a type ``ty`` is annotated."""
    if len(targets) == 1 and ty is not None:
        return f"{ind}{targets[0]}: {print_type(ty, pfx)} = {rhs}"
    return f"{ind}{', '.join(targets)} = {rhs}"


def _s_assign(s, ind, out, pfx):
    out.append(_binding(ind, s.targets, s.type, print_expr(s.value), pfx))


def _s_eval(s, ind, out, pfx):
    out.append(ind + print_expr(s.expr))


def _s_return(s, ind, out, pfx):
    if s.values:
        out.append(f"{ind}return {_join(s.values)}")
    else:
        out.append(ind + "return")


def _s_yield(s, ind, out, pfx):
    call = f"{pfx}.yield_({_join(s.values)})"
    # A yield of no values prints bare even where it binds return vars (`out = pl.yield_()`
    # in a carried loop): PyPTO's printer writes the binding only for a yield of some values.
    if not s.targets or not s.values:
        out.append(ind + call)
    else:
        ty = s.target_types[0] if s.target_types else None
        out.append(_binding(ind, s.targets, ty, call, pfx))


def _s_for(s, ind, out, pfx):
    head = s.loop_var
    ia = s.iter_args
    if ia:
        t = f"({ia[0]},)" if len(ia) == 1 else f"({', '.join(ia)})"
        head = t if head is None else f"{head}, {t}"
    elif head is None:
        head = "()"
    out.append(f"{ind}for {head} in {print_expr(s.iter)}:")
    _body(s.body, ind + INDENT, out, pfx)


def _s_while(s, ind, out, pfx):
    out.append(f"{ind}while {print_expr(s.cond)}:")
    _body(s.body, ind + INDENT, out, pfx)


def _s_if(s, ind, out, pfx):
    out.append(f"{ind}if {print_expr(s.cond)}:")
    inner = ind + INDENT
    _body(s.then_body, inner, out, pfx)
    if s.else_body is not None:
        out.append(ind + "else:")
        _body(s.else_body, inner, out, pfx)


def _s_with(s, ind, out, pfx):
    if s.as_name is not None:
        out.append(f"{ind}with {print_expr(s.item)} as {s.as_name}:")
    else:
        out.append(f"{ind}with {print_expr(s.item)}:")
    _body(s.body, ind + INDENT, out, pfx)


def _s_break(s, ind, out, pfx):
    out.append(ind + "break")


def _s_continue(s, ind, out, pfx):
    out.append(ind + "continue")


def _s_pass(s, ind, out, pfx):
    out.append(ind + "pass")


def _s_opaque(s, ind, out, pfx):
    out.append(ind + s.text)


_STMT = {
    ir.Assign: _s_assign,
    ir.EvalStmt: _s_eval,
    ir.Return: _s_return,
    ir.Yield: _s_yield,
    ir.For: _s_for,
    ir.While: _s_while,
    ir.If: _s_if,
    ir.With: _s_with,
    ir.Break: _s_break,
    ir.Continue: _s_continue,
    ir.Pass: _s_pass,
    ir.OpaqueStmt: _s_opaque,
}


class _DeepRecursion:
    """Temporarily raise the recursion limit so deeply nested programs print (shared with
    concurrent callers, see ``tilemem.recursion``)."""

    def __enter__(self):
        self._deep = deep_recursion().__enter__()

    def __exit__(self, exc_type, exc, tb):
        self._deep.__exit__(exc_type, exc, tb)
        if exc_type is RecursionError:
            from tilemem.errors import TilememError
            raise TilememError("<output>", None, None, "program is nested too deeply to print") from None
        return False


def print_stmt(s: ir.Stmt, indent: int = 0, prefix: str = "pl") -> str:
    """One statement (with its leading comments and nested body) at ``indent`` levels."""
    out: list = []
    with _DeepRecursion():
        _body([s], INDENT * indent, out, prefix)
    return "\n".join(out)


def print_stmts(stmts: list, indent: int = 0, prefix: str = "pl") -> str:
    """A statement list as a body (``pass`` when empty)."""
    out: list = []
    with _DeepRecursion():
        _body(stmts, INDENT * indent, out, prefix)
    return "\n".join(out)


# ----------------------------------------------------------------------------- functions / program

def _decorator(f: ir.Function, pfx: str) -> str:
    args = []
    if f.func_type and f.func_type != "Opaque":
        args.append(f"type={pfx}.FunctionType.{f.func_type}")
    if f.level is not None:
        args.append(f"level={pfx}.Level.{f.level}")
    if f.role is not None:
        args.append(f"role={pfx}.Role.{f.role}")
    for k, v in f.extra:
        args.append(f"{k}={print_expr(v)}")
    name = f.decorator or f"{pfx}.function"
    if args:
        return f"@{name}({', '.join(args)})"
    return f"@{name}"


def _function(f: ir.Function, ind: str, out: list, pfx: str, in_program: bool = True) -> None:
    for c in f.comments:
        out.append(ind + c)
    out.append(ind + _decorator(f, pfx))
    params = ["self"] if in_program and f.role != "SubWorker" else []
    for p in f.params:
        t = print_type(p.type, pfx)
        d = p.direction
        if d == "Out" or d == "InOut":
            t = f"{pfx}.{d}[{t}]"
        params.append(f"{p.name}: {t}")
    rts = f.return_types
    if f.returns_tuple or len(rts) > 1:
        inner = ", ".join([print_type(t, pfx) for t in rts]) if rts else "()"
        ret = f" -> tuple[{inner}]"
    elif rts:
        ret = f" -> {print_type(rts[0], pfx)}"
    else:
        ret = ""
    out.append(f"{ind}def {f.name}({', '.join(params)}){ret}:")
    _body(f.body, ind + INDENT, out, pfx)


def print_function(f: ir.Function, indent: int = 1, prefix: str = "pl", in_program: bool = True) -> str:
    """A function with its decorator, at ``indent`` levels (1 = inside the program class)."""
    out: list = []
    with _DeepRecursion():
        _function(f, INDENT * indent, out, prefix, in_program)
    return "\n".join(out)


def _too_deep_at(prog: ir.Program) -> tuple:
    """(line, col) of the first statement too deeply nested to print, else (None, None)."""
    from tilemem.errors import TilememError
    for f in prog.functions:
        stack = [list(f.body)]
        while stack:
            body = stack.pop()
            for s in body:
                nested = [b for b in (getattr(s, "body", None), getattr(s, "then_body", None),
                                      getattr(s, "else_body", None)) if b]
                if nested:
                    stack.extend(nested)
                    continue
                try:
                    print_stmt(s)
                except TilememError:
                    return s.line, s.col
    return None, None


def print_program(prog: ir.Program, path: Optional[str] = None) -> str:
    """The whole program text, without a trailing newline.

    A program nested too deeply to print raises TilememError; with ``path`` (the file the
    program was read from) it points at the offending statement there.
    """
    if path is not None:
        from tilemem.errors import TilememError
        try:
            return print_program(prog)
        except TilememError as e:
            if e.path != "<output>":
                raise
            line, col = _too_deep_at(prog)
            raise TilememError(path, line, col, "statement nested too deeply to print") from None
    out = _head(prog)
    pfx = prog.prefix or "pl"
    with _DeepRecursion():
        for f in prog.functions:
            _function(f, INDENT, out, pfx)
    return "\n".join(out)


def print_program_head(prog: ir.Program) -> str:
    """The program's text before its first function: ``print_program(prog)`` is this
    and ``print_function(f, prefix=prog.prefix or "pl")`` of each function, joined by
    newlines (a workspace prints again only the functions an edit changed)."""
    return "\n".join(_head(prog))


def _head(prog: ir.Program) -> list:
    pfx = prog.prefix or "pl"
    out = [prog.header if prog.header else f"# pypto.program: {prog.name or 'Program'}"]
    if pfx == "pl":
        out.append("import pypto.language as pl")
    else:
        out.append(f"from pypto import language as {pfx}")
    out.append("")
    if prog.dynamic:
        for name, e in prog.dynamic:
            out.append(f"{name} = {print_expr(e)}")
        out.append("")
    out.append(f"@{pfx}.program")
    out.append(f"class {prog.class_name or prog.name or 'Program'}:")
    return out
