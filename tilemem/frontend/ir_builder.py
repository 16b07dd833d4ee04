"""The printed-form reader's embedded transformer: the IR built during parsing, one
method a grammar rule (no parse tree is materialised), annotations read as types
(:func:`to_type`), a program's functions and their derived level and role."""
from __future__ import annotations

from sys import intern as _intern
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.frontend.indenter import MAX_NESTING
from tilemem.frontend.lalr import KINDS_MAX
from tilemem.frontend.tokens import SyntaxProblem, Token, as_token
from tilemem.ir.printer import BINARY_PRECEDENCE, print_expr



# ----------------------------------------------------------------------------- helpers

def _func_name(e: ir.Expr) -> str:
    if type(e) is ir.Dotted:
        return ".".join(e.parts)
    if type(e) is ir.Name:
        return e.id
    return print_expr(e)


def _enum_value(e, enum: str) -> Optional[str]:
    """``X`` for ``<prefix>.<enum>.X``."""
    if type(e) is ir.Dotted and len(e.parts) == 3 and e.parts[1] == enum:
        return e.parts[2]
    return None


def _dtype(e) -> Optional[str]:
    if type(e) is ir.Dotted and len(e.parts) == 2:
        return e.parts[1]
    return None


_TILEVIEW_ENUMS = {"blayout": "TileLayout", "slayout": "TileLayout", "pad": "PadValue", "compact": "CompactMode"}


def _tile_view(call: ir.Call) -> Optional[ir.TileView]:
    if call.args:
        return None
    fields: dict = {}
    for key, val in call.kwargs:
        if key in fields:
            return None
        if key in ("valid_shape", "stride"):
            if type(val) is not ir.ListExpr:
                return None
            fields[key] = tuple(val.items)
        elif key == "start_offset":
            fields[key] = val
        elif key in _TILEVIEW_ENUMS:
            v = _enum_value(val, _TILEVIEW_ENUMS[key])
            if v is None:
                return None
            fields[key] = v
        elif key == "fractal":
            if type(val) is not ir.IntConst:
                return None
            fields[key] = val.value
        else:
            return None
    return ir.TileView(**fields)


def _item_kind(e, view: str, spaces: bool) -> Optional[str]:
    """What an item after ``[dims], dtype`` of a Tile or Tensor annotation is: ``"space"``
    (``pl.Mem.Vec``; where ``spaces``), ``"view"`` (a call of ``view``: ``TileView``,
    ``TensorView``), ``"memref"`` (a call of ``MemRef``, or one subscripted); None: none
    of these."""
    t = type(e)
    if t is ir.Dotted:
        parts = e.parts
        return "space" if spaces and len(parts) == 3 and parts[1] == "Mem" else None
    if t is ir.Subscript:       # only a memref is subscripted
        e = e.value
        t = type(e)
        view = None
    if t is not ir.Call:
        return None
    name = e.func.rsplit(".", 1)[-1]
    return "memref" if name == "MemRef" else "view" if name == view else None


def _shaped(e: ir.Subscript, view: str, spaces: bool) -> Optional[tuple]:
    """``(dims, dtype, {kind: item})`` of a ``[dims], dtype, item...`` annotation (the
    items' kinds: :func:`_item_kind`): the items may come in any order (they print in the
    canonical one), each kind at most once; None when the annotation is not of that form."""
    idx = e.index
    if len(idx) < 2 or type(idx[0]) is not ir.ListExpr:
        return None
    dtype = _dtype(idx[1])
    if dtype is None:
        return None
    items = {}
    for item in idx[2:]:
        kind = _item_kind(item, view, spaces)
        if kind is None or kind in items:
            return None
        items[kind] = item
    return tuple(idx[0].items), dtype, items


def _tile_type(e: ir.Subscript) -> Optional[ir.Type]:
    shaped = _shaped(e, "TileView", True)
    if shaped is None:
        return None
    dims, dtype, items = shaped
    view = space = None
    if "view" in items:
        view = _tile_view(items["view"])
        if view is None:
            return None
    if "space" in items:
        space = items["space"].parts[2]
    return ir.TileType(dims, dtype, items.get("memref"), space, view, e.line, e.col)


def _tensor_type(e: ir.Subscript, kind: str) -> Optional[ir.Type]:
    shaped = _shaped(e, "TensorView", False)
    if shaped is None:
        return None
    dims, dtype, items = shaped
    return ir.TensorType(dims, dtype, items.get("view"), items.get("memref"), kind, e.line,
                         e.col)


def to_type(e: ir.Expr) -> ir.Type:
    """Interpret an annotation expression as an IR type (``OpaqueType`` when not modelled)."""
    if type(e) is ir.Subscript and type(e.value) is ir.Dotted and len(e.value.parts) == 2:
        head, kind = e.value.parts
        t = None
        if kind == "Tile":
            t = _tile_type(e)
        elif kind == "Tensor" or (head == "pld" and kind == "DistributedTensor"):
            t = _tensor_type(e, f"{head}.{kind}")
        elif kind == "Scalar":
            if len(e.index) == 1:
                d = _dtype(e.index[0])
                if d is not None:
                    t = ir.ScalarType(d, e.line, e.col)
        elif kind == "Tuple":
            if len(e.index) == 1 and type(e.index[0]) is ir.TupleExpr and not e.index[0].items:
                t = ir.TupleType((), e.line, e.col)
            else:
                t = ir.TupleType(tuple(to_type(i) for i in e.index), e.line, e.col)
        if t is not None:
            return t
    return ir.OpaqueType(e, getattr(e, "line", None), getattr(e, "col", None))


def _is_yield(e) -> bool:
    return type(e) is ir.Call and e.func.endswith(".yield_") and e.func.count(".") == 1


def _pos(x):
    """(line, col) of a token (a tuple or a :class:`Token`) or IR node."""
    if type(x) is tuple:
        return x[3], x[4]
    if isinstance(x, Token):
        return x.line, x.column
    return getattr(x, "line", None), getattr(x, "col", None)


# ----------------------------------------------------------------------------- operator precedence

# printer.md section 5: or < xor < and < not < comparisons < | < ^ < & < shifts < + - <
# * / // % < unary - ~ < ** (all binary operators left-associative except **).
# One table for reading and printing:
_BIN_PREC = BINARY_PRECEDENCE
_NOT_PREC = 4
_UNARY_PREC = 12


def _climb(items: list, i: int, min_prec: int):
    """Precedence climbing over ``items`` (IR operands, prefix operator tokens and binary
    operators' texts) from ``i``.

    Returns (node, next index).  Prefix operators bind their operand at their own
    precedence, so ``-a ** b`` is ``-(a ** b)`` and ``not a == b`` is ``not (a == b)``.
    """
    first = items[i]
    if type(first) is tuple:
        op = first[1]
        operand, i = _climb(items, i + 1, _NOT_PREC if op == "not" else _UNARY_PREC)
        left = _prefix(first, op, operand)
    else:
        left = first
        i += 1
    n = len(items)
    while i < n:
        op = items[i]               # a binary operator's text (Builder.seq_new)
        if type(op) is not str:
            op = op[1]
        p = _BIN_PREC[op]
        if p < min_prec:
            break
        right, i = _climb(items, i + 1, p if op == "**" else p + 1)
        left = ir.BinOp(op, left, right, left.line, left.col)
    return left, i


def _prefix(tok: tuple, op: str, e):
    line, col = tok[3], tok[4]
    if op == "-":
        te = type(e)
        # `-3` / `-1.5` / `-inf` written as one literal: a negative constant (an atom).
        if e.line == line and e.col == col + 1:
            if te is ir.IntConst and e.value >= 0:
                return ir.IntConst(-e.value, line, col)
            if te is ir.FloatConst and not e.text.startswith("-"):
                return ir.FloatConst("-" + e.text, line, col)
        return ir.UnaryOp("-", e, line, col)
    if op == "+":
        return e
    return ir.UnaryOp(op, e, line, col)


# ----------------------------------------------------------------------------- transformer

_Name, _Dotted, _Call, _HELD, _IntConst = ir.Name, ir.Dotted, ir.Call, ir.HELD_ITEMS, ir.IntConst
_COMPACT_AT = ir.IntItems.COMPACT_AT
#: the node type whose long runs a list holds as arrays, and the class that holds them
_HOLDER = {h.NODE: h for h in _HELD}



def _operator_text(seq: list) -> None:
    """A binary operator that ends ``seq`` (the flat operand/operator sequence of an
    operator chain, ``ophead``) as its text, interned: the sequence is as long as its
    line, and a token with its positions cost ~150 bytes where the text costs none
    (only prefix operators need their position)."""
    last = seq[-1]
    if type(last) is tuple and last[0] == "BINOP":
        seq[-1] = _intern(last[1])


#: a DOTTED token's text -> its node's parts (one tuple per distinct name, shared)
_dotted_parts: dict = {}


class Builder:
    """Builds IR nodes bottom-up while the LALR parser reduces (no tree is built); a token
    is a tuple ``(type, value, start_pos, line, column)`` (:mod:`tilemem.frontend.tokens`)."""

    # ---- atoms
    def name(self, c):
        _, v, _, line, col = c[0]
        if v == "nan" or v == "inf":
            return ir.FloatConst(v, line, col)
        return _Name(_intern(v), line, col)

    def int_const(self, c):
        _, v, _, line, col = c[0]
        try:
            return ir.IntConst(int(v, 0) if not v.isdigit() else int(v), line, col)
        except ValueError:      # Python's int/str conversion limit (4300 digits by default)
            raise SyntaxProblem(f"integer literal too long ({len(v)} digits)", line, col) from None

    def int_list(self, c):
        """``[8, 128]`` written as one token: the ListExpr ``"[" exprlist "]"`` builds from
        its INT tokens (the same nodes and positions; a run past COMPACT_AT held as seq_add
        holds it)."""
        _, text, _, line, col = c[0]
        if len(text) < 64:      # (most: a few items, no run held)
            items = []
            i = 1
            for digits in text[1:-1].split(", "):
                items.append(_IntConst(int(digits), line, col + i))
                i += len(digits) + 2
            return ir.ListExpr(tuple(items), line, col + 1)
        # one item at a time, as seq_add holds them (a list literal may be megabytes long:
        # no string or node per item is kept past COMPACT_AT)
        end = len(text) - 1
        i = 1
        items = []
        seq_add = self.seq_add
        while i < end:
            j = text.find(", ", i, end)
            if j < 0:
                j = end
            x = _IntConst(int(text[i:j]), line, col + i)
            if len(items) < _COMPACT_AT:
                items.append(x)
            else:
                items = seq_add([items, x])
            i = j + 2
        return self.list_expr([items])

    def float_const(self, c):
        _, v, _, line, col = c[0]
        return ir.FloatConst(v, line, col)

    def str_const(self, c):
        _, v, _, line, col = c[0]
        q = v[:3] if v[:3] in ('"""', "'''") else v[0]
        return ir.StrConst(v[len(q):-len(q)], q, line, col)

    def true_const(self, c):
        return ir.BoolConst(True)

    def false_const(self, c):
        return ir.BoolConst(False)

    def none_const(self, c):
        return ir.NoneConst()

    def ellipsis(self, c):
        return ir.Opaque("...", *_pos(c[0])) if c else ir.Opaque("...")

    def empty_tuple(self, c):
        return ir.TupleExpr(())

    def tuple_expr(self, c):
        first, rest = c
        items = (first,) if rest is None else (first, *rest)
        return ir.TupleExpr(items, first.line, first.col)

    def list_expr(self, c):
        items = c[0]
        if items is None:
            return ir.ListExpr(())
        return ir.ListExpr(items if type(items) in _HELD else tuple(items), items[0].line, items[0].col)

    def dict_item(self, c):
        return (c[0], c[1])

    def dict_expr(self, c):
        items = c[0]
        return ir.DictExpr(() if items is None else tuple(items))

    # ---- trailers
    def dotted(self, c):
        """``a.b.c`` written as one token: the node the ``getattr`` chain from the name
        ``a`` builds (``X.MemorySpace.Y`` is ``X.Mem.Y`` there too)."""
        _, v, _, line, col = c[0]
        parts = _dotted_parts.get(v)
        if parts is None:
            parts = tuple(v.split("."))
            if len(parts) > 2 and parts[1] == "MemorySpace":
                parts = (parts[0], "Mem") + parts[2:]
            if len(_dotted_parts) >= KINDS_MAX:
                _dotted_parts.clear()
            _dotted_parts[v] = parts
        return _Dotted(parts, line, col)

    def getattr(self, c):
        base, attr = c
        a = attr[1]
        tb = type(base)
        if tb is _Name:
            return _Dotted((base.id, a), base.line, base.col)
        if tb is _Dotted:
            parts = base.parts
            if len(parts) == 2 and parts[1] == "MemorySpace":
                parts = (parts[0], "Mem")
            return _Dotted(parts + (a,), base.line, base.col)
        return ir.Opaque(f"{print_expr(base)}.{a}", base.line, base.col)

    def call(self, c):
        fn, args = c
        pos = []
        kws = []
        if args is not None:
            for a in args:
                if type(a) is tuple:
                    kws.append(a)
                else:
                    pos.append(a)
        t = type(fn)
        if t is _Dotted:
            func = ".".join(fn.parts)
        elif t is _Name:
            func = fn.id
        else:
            func = _func_name(fn)
        return _Call(func, tuple(pos), tuple(kws), fn.line, fn.col)

    def kwarg(self, c):
        return (_intern(c[0][1]), c[1])

    def getitem(self, c):
        base, idx = c
        return ir.Subscript(base, tuple(idx), base.line, base.col)

    # ---- lists (left-recursive rules)
    def seq_new(self, c):
        if len(c) == 2:
            _operator_text(c)
        return c

    def seq_add(self, c):
        """The sequence with one more item.  A run of integer constants, float constants or names (a
        list literal, as long as its line) is held as :class:`ir.IntItems`, :class:`ir.NameItems` or
        :class:`ir.FloatItems` from its ``COMPACT_AT``-th item on, not as one node per
        item; another item turns it back into a list."""
        lst = c[0]
        if len(c) == 2:
            x = c[1]
            if type(lst) in _HELD:
                if lst.append(x):
                    return lst
                lst = list(lst)
            elif len(lst) == _COMPACT_AT and type(x) in _HOLDER:
                run = _HOLDER[type(x)].of(lst)
                if run is not None and run.append(x):
                    return run
            lst.append(x)
        else:
            if type(lst) in _HELD:
                lst = list(lst)
            lst.extend(c[1:])
            _operator_text(lst)
        return lst

    # ---- operators
    def opseq(self, c):
        """Fold a flat operand/operator sequence into a tree by PyPTO's precedence."""
        items = c[0]
        items.append(c[1])
        depth = 0
        for it in items:
            if type(it) is str:
                depth += it == "**"
            elif type(it) is tuple and it[0] == "PREFIX":
                depth += 1
        if depth > MAX_NESTING:
            raise SyntaxProblem(f"expression nested too deeply (more than {MAX_NESTING} unary or '**' operators)",
                                 *_pos(items[0]))
        node, i = _climb(items, 0, 0)
        if i != len(items):  # pragma: no cover - the grammar guarantees a full sequence
            raise SyntaxProblem("malformed operator expression", *_pos(items[i]))
        return node

    # ---- statements
    # (statements built with positional arguments: ~1,000 instructions fewer than keywords;
    # a new list is what a statement's default comments are)
    def annotation(self, e):
        """An annotated assignment's annotation and its type, as :meth:`ann_assign` takes
        them from the LALR driver where it reads a repeated annotation once
        (:class:`~tilemem.frontend.repeats.Template`)."""
        return (e, to_type(e))

    def ann_assign(self, c):
        (_, name, _, line, col), ann, value = c
        if type(ann) is tuple:      # (annotation, its type): see annotation()
            ann, ty = ann
        else:
            ty = to_type(ann)
        if _is_yield(value) and not value.kwargs:
            return ir.Yield(list(value.args), [name], [ty], [], line, col, ann)
        return ir.Assign([name], ty, value, [], line, col, ann)

    def assign(self, c):
        (_, name, _, line, col), value = c
        if _is_yield(value) and not value.kwargs:
            return ir.Yield(list(value.args), [name], [None], [], line, col)
        return ir.Assign([name], None, value, [], line, col)

    def tuple_assign(self, c):
        value = c[-1]
        names = [t[1] for t in c[:-1]]
        _, _, _, line, col = c[0]
        if _is_yield(value) and not value.kwargs:
            return ir.Yield(list(value.args), names, [None] * len(names), line=line, col=col)
        return ir.Assign(names, None, value, line=line, col=col)

    def expr_stmt(self, c):
        e = c[0]
        if _is_yield(e) and not e.kwargs:
            return ir.Yield(list(e.args), line=e.line, col=e.col)
        return ir.EvalStmt(e, line=e.line, col=e.col)

    def return_stmt(self, c):
        tok, vals = c
        return ir.Return(list(vals) if vals is not None else [], line=tok[3], col=tok[4])

    def pass_stmt(self, c):
        return ir.Pass(line=c[0][3], col=c[0][4])

    def break_stmt(self, c):
        return ir.Break(line=c[0][3], col=c[0][4])

    def continue_stmt(self, c):
        return ir.Continue(line=c[0][3], col=c[0][4])

    def opaque_stmt(self, c):
        _, v, _, line, col = c[0]
        return ir.OpaqueStmt(v, line=line, col=col)

    def stmt(self, c):
        if len(c) == 2:
            s = c[1]
            s.comments = c[0][1].split("\n")
            return s
        return c[0]

    def suite(self, c):
        return c[0]

    def inline_suite(self, c):
        return [c[0]]

    # `a = 1; b = 2`: each simple statement of a `;` line is a statement of the block
    def semi_new(self, c):
        return [c[0]]

    def semi_add(self, c):
        c[0].append(c[1])
        return c[0]

    def semi_done(self, c):
        return c[0]

    def semi_last(self, c):
        c[0].append(c[1])
        return c[0]

    def semi_line(self, c):
        if len(c) == 2:         # COMMENTS: the first statement's, as a `stmt`'s
            c[1][0].comments = c[0][1].split("\n")
            return c[1]
        return c[0]

    def semi_suite(self, c):
        return c[0]

    def semi_block(self, c):
        return c[0]

    def semi_block_add(self, c):
        c[0].extend(c[1])
        return c[0]

    def elif_clause(self, c):
        return c

    def if_stmt(self, c):
        tok, cond, body = c[0], c[1], c[2]
        rest = c[3:]
        else_body = rest[-1]
        elifs = rest[:-1]
        for etok, econd, ebody in reversed(elifs):
            else_body = [ir.If(econd, ebody, else_body, line=etok[3], col=etok[4])]
        return ir.If(cond, body, else_body, line=tok[3], col=tok[4])

    def ft_var(self, c):
        return (c[0][1], None)

    def ft_var_iter(self, c):
        return (c[0][1], [t[1] for t in c[1]])

    def ft_iter(self, c):
        return (None, [t[1] for t in c[0]])

    def ft_flat(self, c):
        # `for a, b in pl.while_(...)`: iter args without parentheses
        return (None, [c[0][1]] + [t[1] for t in c[1]], "flat")

    def for_stmt(self, c):
        tok, target, it, body = c
        if type(it) is not _Call:
            raise SyntaxProblem("a for loop must iterate over a call such as pl.range(...)", *_pos(it))
        loop = ir.For(target[0], target[1], it, body, line=tok[3], col=tok[4])
        if len(target) == 3:
            if it.func.rsplit(".", 1)[-1] != "while_":
                raise SyntaxProblem("For loop target must be a simple name or: (loop_var, (iter_args...))",
                                     tok[3], tok[4])
        return loop

    def while_stmt(self, c):
        tok, cond, body = c
        return ir.While(cond, body, line=tok[3], col=tok[4])

    def with_stmt(self, c):
        tok, item, as_name, body = c
        return ir.With(item, as_name[1] if as_name is not None else None, body, line=tok[3], col=tok[4])

    # ---- functions (their tokens leave the reader: Token objects)
    def param(self, c):
        return [as_token(c[0]), c[1]]

    def decorator(self, c):
        return c[0]

    def funcdef(self, c):
        comments = None
        if type(c[0]) is tuple and c[0][0] == "COMMENTS":
            comments = c[0][1].split("\n")
            c = c[1:]
        i = 0
        decorators = []
        while not (type(c[i]) is tuple and c[i][0] == "DEF"):
            decorators.append(c[i])
            i += 1
        deftok, name, params, ret, body = c[i:]
        return RawFunction(decorators, as_token(deftok), as_token(name), params or [], ret, body, comments)

    def classdef(self, c):
        comments = None
        if type(c[0]) is tuple and c[0][0] == "COMMENTS":
            comments = c[0][1]
            c = c[1:]
        i = 0
        decorators = []
        while type(c[i]) is not tuple:
            decorators.append(c[i])
            i += 1
        name_tok = as_token(c[i])
        funcs = [f for f in c[i + 1:] if isinstance(f, RawFunction)]
        return ("class", name_tok, decorators, funcs, comments)

    # ---- top level
    def dotted_name(self, c):
        return ".".join(t[1] for t in c)

    def import_stmt(self, c):
        return ("import", c[0], c[1][1] if c[1] is not None else None)

    def from_import(self, c):
        return ("from", c[0], c[1][1], c[2][1] if c[2] is not None else None)

    def top_assign(self, c):
        return ("assign", as_token(c[0]), c[1])

    def top_item(self, c):
        # COMMENTS top_stmt
        item = c[1]
        return ("commented", c[0][1], item)

    def top_semi(self, c):
        # top-level statements of one `;` line (COMMENTS: the first one's)
        if type(c[0]) is tuple:
            c = [("commented", c[0][1], c[1])] + c[2:]
        return ("semis", c)

    def start(self, c):
        if any(item[0] == "semis" for item in c):
            c = [x for item in c for x in (item[1] if item[0] == "semis" else (item,))]
        return c


def program_from_items(items) -> ir.Program:
    """The printed reading of a parsed file: header, prefix, dynamic dims and the class."""
    header = None
    prefix = "pl"
    dynamic = []
    cls = None
    for item in items:
        comments = None
        if item[0] == "commented":
            comments = item[1]
            item = item[2]
        elif item[0] == "class":
            comments = item[4]
        if comments and header is None and cls is None:
            for line in comments.split("\n"):
                if line.startswith("# pypto.program:"):
                    header = line
                    break
        kind = item[0]
        if kind == "import":
            if item[1] == "pypto.language" and item[2]:
                prefix = item[2]
        elif kind == "from":
            if item[1] == "pypto" and item[2] == "language":
                prefix = item[3] or "language"
        elif kind == "assign":
            dynamic.append((item[1].value, item[2]))
        elif kind == "class":
            cls = item
    name_tok, raw_funcs = cls[1], cls[3]
    funcs = []
    for rf in raw_funcs:
        if len(rf.decorators) != 1:
            raise SyntaxProblem(f"function '{rf.name}' must have exactly one decorator (@pl.function)",
                                 *_pos(rf.decorators[1] if rf.decorators else rf.deftok))
        fn = _make_function(rf.decorators[0], rf.name, rf.params, rf.ret, rf.body)
        fn.line, fn.col = rf.name.line, rf.name.column
        if rf.comments:
            fn.comments = rf.comments
        funcs.append(fn)
    return ir.Program(name_tok.value, funcs, dynamic, prefix, header, name_tok.value,
                      line=name_tok.line, col=name_tok.column)


class RawFunction:
    """A ``def`` as written (the DSL reading interprets decorators and annotations itself)."""
    __slots__ = ("decorators", "deftok", "name", "params", "ret", "body", "comments")

    def __init__(self, decorators, deftok, name, params, ret, body, comments):
        self.decorators = decorators     # decorator expressions
        self.deftok = deftok             # the `def` token
        self.name = name                 # the NAME token
        self.params = params             # [(NAME token, annotation expr or None)]
        self.ret = ret                   # return annotation expr or None
        self.body = body                 # statements
        self.comments = comments         # whole-line comments above (printed reading)


def _make_function(dec: ir.Expr, name_tok: Token, params, ret, body) -> ir.Function:
    name = name_tok.value
    # decorator
    func_type = "Opaque"
    level = role = None
    extra: list = []
    if type(dec) is _Call:
        decorator = dec.func
        if dec.args:
            raise SyntaxProblem(f"unexpected positional argument in the decorator of '{name}'", *_pos(dec.args[0]))
        for key, val in dec.kwargs:
            if key == "type":
                v = _enum_value(val, "FunctionType")
                if v is None:
                    raise SyntaxProblem("expected type=pl.FunctionType.<Name>", *_pos(val))
                func_type = v
            elif key == "level":
                v = _enum_value(val, "Level")
                if v is None:
                    raise SyntaxProblem("expected level=pl.Level.<Name>", *_pos(val))
                level = v
            elif key == "role":
                v = _enum_value(val, "Role")
                if v is None:
                    raise SyntaxProblem("expected role=pl.Role.<Name>", *_pos(val))
                role = v
            else:
                extra.append((key, val))
    elif type(dec) in (_Dotted, _Name):
        decorator = _func_name(dec)
    else:
        raise SyntaxProblem("expected a decorator such as @pl.function(...)", *_pos(dec))
    derived = ir.DERIVED_LEVEL_ROLE.get(func_type)
    if derived is not None:
        if level is None:
            level = derived[0]
        if role is None:
            role = derived[1]
    # parameters
    plist = []
    for i, (ptok, ann) in enumerate(params):
        if ann is None:
            if i == 0 and ptok.value == "self":
                continue
            raise SyntaxProblem(f"parameter '{ptok.value}' needs a type annotation", ptok.line, ptok.column)
        direction = "In"
        if (type(ann) is ir.Subscript and type(ann.value) is _Dotted and len(ann.value.parts) == 2
                and ann.value.parts[1] in ("Out", "InOut") and len(ann.index) == 1):
            direction = ann.value.parts[1]
            ann = ann.index[0]
        plist.append(ir.Param(ptok.value, to_type(ann), direction, ptok.line, ptok.column))
    # return annotation
    return_types: list = []
    returns_tuple = False
    if ret is not None and type(ret) is not ir.NoneConst:      # `-> None`: no return value
        if type(ret) is ir.Subscript and type(ret.value) is _Name and ret.value.id == "tuple":
            returns_tuple = True
            idx = ret.index
            if len(idx) == 1 and type(idx[0]) is ir.TupleExpr and not idx[0].items:
                idx = ()
            return_types = [to_type(t) for t in idx]
        else:
            return_types = [to_type(ret)]
    # a docstring is not part of the IR
    if body and type(body[0]) is ir.EvalStmt and type(body[0].expr) is ir.StrConst and not body[0].comments:
        body = body[1:] or [ir.Pass(line=body[0].line, col=body[0].col)]
    return ir.Function(name, func_type, level, role, plist, return_types, body, extra, returns_tuple,
                       decorator=decorator)
