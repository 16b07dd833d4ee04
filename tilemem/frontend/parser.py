"""Read PyPTO's printed program text (``@pl.program`` classes) into tilemem's IR.

    prog = parse(text, path="x.pto")

The grammar is ``grammar/pto.lark`` (installed as ``tilemem.grammar``), read by an LALR
driver over the tables lark computes from it (:mod:`tilemem.frontend.tables`: analysed
once, then loaded from the cache as plain data, so reading does not import lark); the IR
is built during parsing by an embedded transformer (no parse tree is materialised).
Python-style indentation, bracket line-joining and comment handling are done by
:class:`PtoIndenter`, the postlexer.

Every failure is reported as :class:`tilemem.errors.TilememError` with a position;
no other exception escapes :func:`parse`.
"""
from __future__ import annotations

import re
from itertools import chain
from sys import intern as _intern
from typing import Iterator, Optional


from tilemem import ir
from tilemem.errors import TilememError
from tilemem.limits import check_text
from tilemem.recursion import deep_recursion
from tilemem.ir.printer import BINARY_PRECEDENCE, print_expr
from tilemem.resources import resource_dir

__all__ = ["parse", "to_type", "PtoIndenter", "Token", "DERIVED_LEVEL_ROLE"]

# FunctionType -> (level, role) that PyPTO's Function constructor derives when absent
# (printer.md section 2).
DERIVED_LEVEL_ROLE = {
    "InCore": ("CHIP_DIE", "SubWorker"),
    "AIC": ("AIC", "SubWorker"),
    "AIV": ("AIV", "SubWorker"),
    "Group": ("CORE_GROUP", "SubWorker"),
    "Orchestration": ("CHIP", "Orchestrator"),
    "Graph": ("CHIP", "Orchestrator"),
}


# Deepest bracket / block / operator nesting accepted.  Deeper input is rejected with a
# positioned error, so that the recursive printer and IR walkers never overflow.
MAX_NESTING = 1000


class Token:
    """A token: its text (``value``), its terminal's name (``type``) and where it starts
    (``start_pos``: the offset in the text; ``line``, ``column``: 1-based); the attributes
    of lark's Token that the reader uses, which no longer imports lark.  A plain slotted
    class, not a str subclass: the reader makes one per token (~37 a line), and a str
    subclass with an attribute dict costs ~4x as much to make (and each field more costs
    another ~5%: lark's end positions are not kept, the reader does not read them)."""
    __slots__ = ("type", "value", "start_pos", "line", "column")
    end_line = end_column = end_pos = None      # lark's (its parser borrows them from ours)

    def __init__(self, type, value, start_pos=None, line=None, column=None):
        self.type = type
        self.value = value
        self.start_pos = start_pos
        self.line = line
        self.column = column

    @classmethod
    def new_borrow_pos(cls, type_, value, borrow):
        return cls(type_, value, borrow.start_pos, borrow.line, borrow.column)

    def __str__(self):
        return self.value

    def __repr__(self):
        return f"Token({self.type!r}, {self.value!r})"


class _UnexpectedToken(Exception):
    """The LALR table has no action for ``token``; ``expected``: the terminals it has."""

    def __init__(self, token, expected):
        super().__init__(f"unexpected {token.type} {token.value!r}")
        self.token = token
        self.expected = expected


class _Tree:
    """A rule with no transformer method (lark's default: a tree of its children); only
    the ``_rules`` inlined into their parent are, and the parent takes their children."""
    __slots__ = ("data", "children")

    def __init__(self, data, children):
        self.data = data
        self.children = children


class _Reread(Exception):
    """A compound token (DOTTED, INTLIST) where the grammar takes none: the parser reads
    ``tokens`` (its parts, see :meth:`_Driver.parts`) in its place.  A compound stands
    where its first part can (a NAME, a ``[``), so the LALR reductions done on it as the
    lookahead are the ones done on that part: the parse goes on as if the parts had been
    read from the start."""

    def __init__(self, tokens):
        super().__init__("reread")
        self.tokens = tokens


class _SyntaxProblem(Exception):
    """Raised inside the lexer/transformer; :func:`parse` turns it into a TilememError."""

    def __init__(self, message: str, line: Optional[int], col: Optional[int]):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


# ----------------------------------------------------------------------------- postlexer

_OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
_CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
_CLOSE_CHAR = {"(": ")", "[": "]", "{": "}"}
# Comments in front of these tokens cannot be leading comments of a statement: dropped.
_NO_COMMENT_BEFORE = frozenset(("ELSE", "ELIF", "DEF", "CLASS"))
# Operator tokens of the lexer and what the parser sees them as (None: depends on context).
_OPERATOR_TYPES = {"OP": "BINOP", "AND": "BINOP", "OR": "BINOP", "XOR": "BINOP",
                   "TILDE": "PREFIX", "NOT": "PREFIX", "PLUS": None, "MINUS": None}
# What the postlexer does to a token of each type other than the plain ones: one lookup a token.
_OPERATOR, _OPENING, _CLOSING, _COMMENT, _NEWLINE = "operator", "opening", "closing", "comment", "newline"
_BRACKETED = "bracketed"    # a token that opens and closes a bracket (INTLIST)
_SEMI = "semicolon"         # `;`: ends a simple statement (outside brackets)
_COLON = "colon"            # `:`: may end a compound statement's header
_SPECIAL = {**dict.fromkeys(_OPERATOR_TYPES, _OPERATOR), **dict.fromkeys(_OPEN, _OPENING),
            **dict.fromkeys(_CLOSE, _CLOSING), "COMMENT": _COMMENT, "_NL": _NEWLINE,
            "INTLIST": _BRACKETED, "SEMICOLON": _SEMI, "COLON": _COLON}
# Tokens that start a compound statement's header: its first `:` outside brackets ends the
# header, and a statement written after it on the line (`if c: x = f(a); y = g(x)`) starts there.
_HEADS = frozenset(("IF", "ELIF", "ELSE", "FOR", "WHILE", "WITH", "DEF"))
# Tokens that end an operand: a `-`/`+` after one of these is binary, otherwise unary.
_OPERAND_END = frozenset(("NAME", "DOTTED", "INTLIST", "INT", "FLOAT", "STRING", "RPAR", "RSQB", "RBRACE",
                          "TRUE", "FALSE", "NONE", "ELLIPSIS"))


class PtoIndenter:
    """Indentation postlexer (lark's Indenter, reworked).

    It turns newlines into ``_NL``/``_INDENT``/``_DEDENT`` tokens, and
    * drops newlines (and comments) inside brackets and reports unbalanced brackets;
    * merges runs of blank and comment lines into one newline;
    * collects whole-line comments into a ``COMMENTS`` token (lines joined by ``\\n``,
      each kept exactly as written after its indentation) emitted just before the
      first token of the next statement; comments that trail code are dropped;
    * reports inconsistent dedents / unexpected indentation with a position.
    """

    NL_type = "_NL"
    OPEN_PAREN_types = list(_OPEN)
    CLOSE_PAREN_types = list(_CLOSE)
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def __init__(self, indented: bool = False):
        self.indented = indented     # the text may start indented (a nested class)
        self.comments: list = []     # every comment: (line, 0-based column, text)
        self.line_ends: dict = {}    # first line of a logical line -> its last line
        # the simple statements of logical lines with a `;`: their first token's line ->
        # [(its column, the statement's last line)], in column order (see SourceLayout)
        self.stmt_ends: dict = {}

    @property
    def always_accept(self):
        # terminals only the postlexer consumes (so lark must keep them in the lexer)
        return (self.NL_type, "COMMENT") + tuple(_OPERATOR_TYPES)

    def process(self, stream):
        self.paren_level = 0
        self.indent_level = [0]
        self.last_token = None
        self.brackets = []
        self.line_first = None      # first code token of the current logical line
        self.stmt_first = None      # first code token of the current simple statement: the
        #                             line's, or the one after a `;` (the parser's recovery
        #                             point for a statement it does not model)
        self.comments = []
        self.line_ends = {}
        self.stmt_ends = {}
        return self._process(stream)

    def passed_on(self, parts) -> Iterator[Token]:
        """The parts of a compound token the parser reads in its place (see _Reread), with
        the bookkeeping this postlexer does for each token it passes on (the open brackets
        and the last token, which error messages read)."""
        brackets = self.brackets
        for tok in parts:
            t = tok.type
            if t == "LSQB":
                brackets.append(tok)        # (the compound's own depth was checked)
            elif t == "RSQB":
                brackets.pop()
            self.last_token = tok
            yield tok

    def _stmt_end(self, first: Token, end: int) -> None:
        """Record that the simple statement starting at ``first`` (on a `;` line) ends on
        line ``end``."""
        self.stmt_ends.setdefault(first.line, []).append((first.column, end))

    def _indent_tokens(self, nl: Token, nxt: Token) -> Iterator[Token]:
        """``_NL`` then INDENT/DEDENT tokens for the line that starts with ``nxt``."""
        yield nl
        indent_str = nl.value.rsplit("\n", 1)[1]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        levels = self.indent_level
        if indent > levels[-1]:
            levels.append(indent)
            if len(levels) > MAX_NESTING:
                raise _SyntaxProblem(f"blocks nested too deeply (more than {MAX_NESTING} levels)",
                                     nxt.line, nxt.column)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, nxt)
        elif indent < levels[-1]:
            while indent < levels[-1]:
                levels.pop()
                yield Token.new_borrow_pos(self.DEDENT_type, indent_str, nxt)
            if indent != levels[-1]:
                raise _SyntaxProblem("unindent does not match any outer indentation level",
                                     nxt.line, nxt.column)

    def _process(self, stream):
        pending_nl = None          # newline waiting for the next real token
        comments: list = []        # whole-line comment tokens waiting for their statement
        line_start = True          # no code token yet on the current line
        fresh = True               # no code token yet in the current simple statement
        semis = False              # the current logical line has a `;` (outside brackets)
        header = False             # in a compound statement's header (no `:` outside brackets yet)
        started = False            # any code token seen yet
        brackets: list = self.brackets   # open bracket tokens (read by error reporting)
        last = None
        for tok in stream:
            t = tok.type
            special = _SPECIAL.get(t)
            if special is None:
                if not fresh:               # most tokens: passed on as they are
                    last = tok
                    self.last_token = tok
                    yield tok
                    continue
            elif special is _COMMENT:
                self.comments.append((tok.line, tok.column - 1, tok.value))
                if line_start and not brackets:
                    comments.append(tok)
                continue
            elif special is _NEWLINE:
                if brackets:
                    continue
                if started:
                    pending_nl = tok
                    first = self.line_first
                    if first is not None and last is not None:
                        end = last.line
                        if last.type == "STRING":
                            end += last.value.count("\n")
                        self.line_ends[first.line] = end
                        if semis:
                            if not fresh:       # the line's last statement (none after a trailing `;`)
                                self._stmt_end(self.stmt_first, end)
                            semis = False
                line_start = fresh = True
                continue
            elif special is _SEMI and not line_start:
                if not brackets:            # the end of a simple statement
                    if not fresh:
                        end = last.line
                        if last.type == "STRING":
                            end += last.value.count("\n")
                        self._stmt_end(self.stmt_first, end)
                    else:                   # none (`;;`): no statement to recover either
                        self.stmt_first = None
                    semis = fresh = True
                last = tok
                self.last_token = tok
                yield tok
                continue
            elif special is _COLON and not line_start:
                if header and not brackets:     # the header's end: a body statement may follow
                    header = False
                    fresh = True
                last = tok
                self.last_token = tok
                yield tok
                continue
            # a real token
            if fresh:
                if line_start:
                    # (a pending newline and waiting comments both come after a line start)
                    if pending_nl is not None:
                        yield from self._indent_tokens(pending_nl, tok)
                        pending_nl = None
                    elif not started and tok.column != 1:
                        if not self.indented:
                            raise _SyntaxProblem("unexpected indent", tok.line, tok.column)
                        self.indent_level = [tok.column - 1]
                    if comments:
                        if t not in _NO_COMMENT_BEFORE:
                            first = comments[0]
                            yield Token("COMMENTS", "\n".join(c.value for c in comments), first.start_pos,
                                        first.line, first.column)
                        comments = []
                    self.line_first = tok
                    header = t in _HEADS
                    line_start = False
                    started = True
                self.stmt_first = tok
                fresh = False
            if special is not None:
                if special is _OPERATOR:
                    if t == "XOR" and last is not None and last.type == "DOT":
                        # `xor` is no Python keyword: after a dot it is an attribute (`pl.tile.xor`)
                        tok.type = t = "NAME"
                    else:
                        kind = _OPERATOR_TYPES[t]
                        if kind is None:
                            kind = "BINOP" if last is not None and last.type in _OPERAND_END else "PREFIX"
                        tok.type = kind
                elif special is _OPENING:
                    brackets.append(tok)
                    if len(brackets) > MAX_NESTING:
                        raise _SyntaxProblem(f"brackets nested too deeply (more than {MAX_NESTING} levels)",
                                             tok.line, tok.column)
                elif special is _BRACKETED:
                    if len(brackets) >= MAX_NESTING:      # its `[` one level deeper
                        raise _SyntaxProblem(f"brackets nested too deeply (more than {MAX_NESTING} levels)",
                                             tok.line, tok.column)
                elif special is _CLOSING:
                    if not brackets:
                        raise _SyntaxProblem(f"unmatched closing bracket '{tok.value}'", tok.line, tok.column)
                    opener = brackets.pop()
                    if opener.value != _CLOSE[t]:
                        raise _SyntaxProblem(
                            f"closing bracket '{tok.value}' does not match opening '{opener.value}' "
                            f"on line {opener.line}, column {opener.column}", tok.line, tok.column)
            last = tok
            self.last_token = tok
            yield tok
        if brackets:
            opener = brackets[-1]
            raise _SyntaxProblem(f"unclosed bracket '{opener.value}' (expected '{_CLOSE_CHAR[opener.value]}' "
                                 f"before the end of the input)", opener.line, opener.column)
        if started:
            end = pending_nl if pending_nl is not None else last
            if pending_nl is None and self.line_first is not None:
                e = last.line + (last.value.count("\n") if last.type == "STRING" else 0)
                self.line_ends[self.line_first.line] = e
                if semis and not fresh:
                    self._stmt_end(self.stmt_first, e)
            yield Token.new_borrow_pos(self.NL_type, "\n", end)
            while len(self.indent_level) > 1:
                self.indent_level.pop()
                yield Token.new_borrow_pos(self.DEDENT_type, "", end)


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


def _is_memref(e) -> bool:
    if type(e) is ir.Subscript:
        e = e.value
    return type(e) is ir.Call and e.func.rsplit(".", 1)[-1] == "MemRef"


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


def _is_space(e) -> bool:
    return type(e) is ir.Dotted and len(e.parts) == 3 and e.parts[1] == "Mem"


def _is_call_of(name: str):
    return lambda e: type(e) is ir.Call and e.func.rsplit(".", 1)[-1] == name


# what may follow ``[dims], dtype`` in a Tile and a Tensor annotation, by kind
_TILE_ITEMS = (("space", _is_space), ("view", _is_call_of("TileView")), ("memref", _is_memref))
_TENSOR_ITEMS = (("view", _is_call_of("TensorView")), ("memref", _is_memref))


def _shaped(e: ir.Subscript, kinds) -> Optional[tuple]:
    """``(dims, dtype, {kind: item})`` of a ``[dims], dtype, item...`` annotation: the items
    may come in any order (they print in the canonical one), each kind at most once; None
    when the annotation is not of that form."""
    idx = e.index
    if len(idx) < 2 or type(idx[0]) is not ir.ListExpr:
        return None
    dtype = _dtype(idx[1])
    if dtype is None:
        return None
    items = {}
    for item in idx[2:]:
        kind = next((k for k, is_kind in kinds if is_kind(item)), None)
        if kind is None or kind in items:
            return None
        items[kind] = item
    return tuple(idx[0].items), dtype, items


def _tile_type(e: ir.Subscript) -> Optional[ir.Type]:
    shaped = _shaped(e, _TILE_ITEMS)
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
    shaped = _shaped(e, _TENSOR_ITEMS)
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
    """(line, col) of a token or IR node."""
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
    """Precedence climbing over ``items`` (IR operands, prefix operator Tokens and binary
    operators' texts) from ``i``.

    Returns (node, next index).  Prefix operators bind their operand at their own
    precedence, so ``-a ** b`` is ``-(a ** b)`` and ``not a == b`` is ``not (a == b)``.
    """
    first = items[i]
    if isinstance(first, Token):
        op = first.value
        operand, i = _climb(items, i + 1, _NOT_PREC if op == "not" else _UNARY_PREC)
        left = _prefix(first, op, operand)
    else:
        left = first
        i += 1
    n = len(items)
    while i < n:
        op = items[i]               # a binary operator's text (Builder.seq_new)
        if type(op) is not str:
            op = op.value
        p = _BIN_PREC[op]
        if p < min_prec:
            break
        right, i = _climb(items, i + 1, p if op == "**" else p + 1)
        left = ir.BinOp(op, left, right, left.line, left.col)
    return left, i


def _prefix(tok: Token, op: str, e):
    if op == "-":
        te = type(e)
        # `-3` / `-1.5` / `-inf` written as one literal: a negative constant (an atom).
        if e.line == tok.line and e.col == tok.column + 1:
            if te is ir.IntConst and e.value >= 0:
                return ir.IntConst(-e.value, tok.line, tok.column)
            if te is ir.FloatConst and not e.text.startswith("-"):
                return ir.FloatConst("-" + e.text, tok.line, tok.column)
        return ir.UnaryOp("-", e, tok.line, tok.column)
    if op == "+":
        return e
    return ir.UnaryOp(op, e, tok.line, tok.column)


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
    if type(last) is Token and last.type == "BINOP":
        seq[-1] = _intern(last.value)


#: a DOTTED token's text -> its node's parts (one tuple per distinct name, shared)
_dotted_parts: dict = {}


class _Builder:
    """Builds IR nodes bottom-up while the LALR parser reduces (no tree is built)."""

    # ---- atoms
    def name(self, c):
        tok = c[0]
        v = tok.value
        if v == "nan" or v == "inf":
            return ir.FloatConst(v, tok.line, tok.column)
        return _Name(v, tok.line, tok.column)

    def int_const(self, c):
        tok = c[0]
        try:
            v = tok.value
            return ir.IntConst(int(v, 0) if not v.isdigit() else int(v), tok.line, tok.column)
        except ValueError:      # Python's int/str conversion limit (4300 digits by default)
            raise _SyntaxProblem(f"integer literal too long ({len(tok.value)} digits)",
                                 tok.line, tok.column) from None

    def int_list(self, c):
        """``[8, 128]`` written as one token: the ListExpr ``"[" exprlist "]"`` builds from
        its INT tokens (the same nodes and positions; a run past COMPACT_AT held as seq_add
        holds it)."""
        tok = c[0]
        text = tok.value
        line, col = tok.line, tok.column
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
        tok = c[0]
        return ir.FloatConst(tok.value, tok.line, tok.column)

    def str_const(self, c):
        tok = c[0]
        v = tok.value
        q = v[:3] if v[:3] in ('"""', "'''") else v[0]
        return ir.StrConst(v[len(q):-len(q)], q, tok.line, tok.column)

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
        tok = c[0]
        parts = _dotted_parts.get(tok.value)
        if parts is None:
            parts = tuple(tok.value.split("."))
            if len(parts) > 2 and parts[1] == "MemorySpace":
                parts = (parts[0], "Mem") + parts[2:]
            if len(_dotted_parts) >= _KINDS_MAX:
                _dotted_parts.clear()
            _dotted_parts[tok.value] = parts
        return _Dotted(parts, tok.line, tok.column)

    def getattr(self, c):
        base, attr = c
        a = attr.value
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
        return (c[0].value, c[1])

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
            elif type(it) is Token and it.type == "PREFIX":
                depth += 1
        if depth > MAX_NESTING:
            raise _SyntaxProblem(f"expression nested too deeply (more than {MAX_NESTING} unary or '**' operators)",
                                 *_pos(items[0]))
        node, i = _climb(items, 0, 0)
        if i != len(items):  # pragma: no cover - the grammar guarantees a full sequence
            raise _SyntaxProblem("malformed operator expression", *_pos(items[i]))
        return node

    # ---- statements
    def ann_assign(self, c):
        tok, ann, value = c
        ty = to_type(ann)
        if _is_yield(value) and not value.kwargs:
            return ir.Yield(list(value.args), [tok.value], [ty], annotation=ann, line=tok.line, col=tok.column)
        return ir.Assign([tok.value], ty, value, annotation=ann, line=tok.line, col=tok.column)

    def assign(self, c):
        tok, value = c
        if _is_yield(value) and not value.kwargs:
            return ir.Yield(list(value.args), [tok.value], [None], line=tok.line, col=tok.column)
        return ir.Assign([tok.value], None, value, line=tok.line, col=tok.column)

    def tuple_assign(self, c):
        value = c[-1]
        names = [t.value for t in c[:-1]]
        first = c[0]
        if _is_yield(value) and not value.kwargs:
            return ir.Yield(list(value.args), names, [None] * len(names), line=first.line, col=first.column)
        return ir.Assign(names, None, value, line=first.line, col=first.column)

    def expr_stmt(self, c):
        e = c[0]
        if _is_yield(e) and not e.kwargs:
            return ir.Yield(list(e.args), line=e.line, col=e.col)
        return ir.EvalStmt(e, line=e.line, col=e.col)

    def return_stmt(self, c):
        tok, vals = c
        return ir.Return(list(vals) if vals is not None else [], line=tok.line, col=tok.column)

    def pass_stmt(self, c):
        return ir.Pass(line=c[0].line, col=c[0].column)

    def break_stmt(self, c):
        return ir.Break(line=c[0].line, col=c[0].column)

    def continue_stmt(self, c):
        return ir.Continue(line=c[0].line, col=c[0].column)

    def opaque_stmt(self, c):
        tok = c[0]
        return ir.OpaqueStmt(tok.value, line=tok.line, col=tok.column)

    def stmt(self, c):
        if len(c) == 2:
            s = c[1]
            s.comments = c[0].value.split("\n")
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
            c[1][0].comments = c[0].value.split("\n")
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
            else_body = [ir.If(econd, ebody, else_body, line=etok.line, col=etok.column)]
        return ir.If(cond, body, else_body, line=tok.line, col=tok.column)

    def ft_var(self, c):
        return (c[0].value, None)

    def ft_var_iter(self, c):
        return (c[0].value, [t.value for t in c[1]])

    def ft_iter(self, c):
        return (None, [t.value for t in c[0]])

    def ft_flat(self, c):
        # `for a, b in pl.while_(...)`: iter args without parentheses
        return (None, [c[0].value] + [t.value for t in c[1]], "flat")

    def for_stmt(self, c):
        tok, target, it, body = c
        if type(it) is not _Call:
            raise _SyntaxProblem("a for loop must iterate over a call such as pl.range(...)", *_pos(it))
        loop = ir.For(target[0], target[1], it, body, line=tok.line, col=tok.column)
        if len(target) == 3:
            if it.func.rsplit(".", 1)[-1] != "while_":
                raise _SyntaxProblem("For loop target must be a simple name or: (loop_var, (iter_args...))",
                                     tok.line, tok.column)
        return loop

    def while_stmt(self, c):
        tok, cond, body = c
        return ir.While(cond, body, line=tok.line, col=tok.column)

    def with_stmt(self, c):
        tok, item, as_name, body = c
        return ir.With(item, as_name.value if as_name is not None else None, body, line=tok.line, col=tok.column)

    # ---- functions
    def param(self, c):
        return c

    def decorator(self, c):
        return c[0]

    def funcdef(self, c):
        comments = None
        if isinstance(c[0], Token) and c[0].type == "COMMENTS":
            comments = c[0].value.split("\n")
            c = c[1:]
        i = 0
        decorators = []
        while not (isinstance(c[i], Token) and c[i].type == "DEF"):
            decorators.append(c[i])
            i += 1
        deftok, name, params, ret, body = c[i:]
        return RawFunction(decorators, deftok, name, params or [], ret, body, comments)

    def classdef(self, c):
        comments = None
        if isinstance(c[0], Token) and c[0].type == "COMMENTS":
            comments = c[0].value
            c = c[1:]
        i = 0
        decorators = []
        while not isinstance(c[i], Token):
            decorators.append(c[i])
            i += 1
        name_tok = c[i]
        funcs = [f for f in c[i + 1:] if isinstance(f, RawFunction)]
        return ("class", name_tok, decorators, funcs, comments)

    # ---- top level
    def dotted_name(self, c):
        return ".".join(t.value for t in c)

    def import_stmt(self, c):
        return ("import", c[0], c[1].value if c[1] is not None else None)

    def from_import(self, c):
        return ("from", c[0], c[1].value, c[2].value if c[2] is not None else None)

    def top_assign(self, c):
        return ("assign", c[0], c[1])

    def top_item(self, c):
        # COMMENTS top_stmt
        item = c[1]
        return ("commented", c[0].value, item)

    def top_semi(self, c):
        # top-level statements of one `;` line (COMMENTS: the first one's)
        if type(c[0]) is Token:
            c = [("commented", c[0].value, c[1])] + c[2:]
        return ("semis", c)

    def start(self, c):
        if any(item[0] == "semis" for item in c):
            c = [x for item in c for x in (item[1] if item[0] == "semis" else (item,))]
        return c


def _program_from_items(items) -> ir.Program:
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
            raise _SyntaxProblem(f"function '{rf.name}' must have exactly one decorator (@pl.function)",
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
            raise _SyntaxProblem(f"unexpected positional argument in the decorator of '{name}'", *_pos(dec.args[0]))
        for key, val in dec.kwargs:
            if key == "type":
                v = _enum_value(val, "FunctionType")
                if v is None:
                    raise _SyntaxProblem("expected type=pl.FunctionType.<Name>", *_pos(val))
                func_type = v
            elif key == "level":
                v = _enum_value(val, "Level")
                if v is None:
                    raise _SyntaxProblem("expected level=pl.Level.<Name>", *_pos(val))
                level = v
            elif key == "role":
                v = _enum_value(val, "Role")
                if v is None:
                    raise _SyntaxProblem("expected role=pl.Role.<Name>", *_pos(val))
                role = v
            else:
                extra.append((key, val))
    elif type(dec) in (_Dotted, _Name):
        decorator = _func_name(dec)
    else:
        raise _SyntaxProblem("expected a decorator such as @pl.function(...)", *_pos(dec))
    derived = DERIVED_LEVEL_ROLE.get(func_type)
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
            raise _SyntaxProblem(f"parameter '{ptok.value}' needs a type annotation", ptok.line, ptok.column)
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


# ----------------------------------------------------------------------------- parser construction

_DRIVER: Optional["_Driver"] = None


def _driver() -> "_Driver":
    """The process-wide LALR driver (built on first use, from the cached tables)."""
    global _DRIVER
    if _DRIVER is None:
        from tilemem.frontend.tables import load_tables
        grammar = (resource_dir("grammar") / "pto.lark").read_text(encoding="utf-8")
        _DRIVER = _Driver(load_tables(grammar, PtoIndenter().always_accept), _Builder())
    return _DRIVER


def _rule_callback(method, expand1: bool, include, append_none: int):
    """What a reduction by one rule builds from the values it pops: lark's child shaping
    (filtered tokens dropped, inlined ``_rules`` spliced in, ``[x]`` absent -> None, a
    ``?rule``'s single child passed through), then the transformer's method."""
    if include is None and not append_none:
        if not expand1:
            return method
        return lambda children: children[0] if len(children) == 1 else method(children)
    if not append_none and not any(inline or nones for _, inline, nones in include):
        # only tokens filtered out (the common case: `primary "." NAME`, `args "," argument`)
        keep = [i for i, _, _ in include]
        if len(keep) == 1:
            (a,) = keep
            if expand1:
                return lambda children: children[a]
            return lambda children: method([children[a]])
        if len(keep) == 2 and not expand1:
            a, b = keep
            return lambda children: method([children[a], children[b]])

    def shaped(children):
        kept = []
        for i, inline, nones in include:
            if nones:
                kept += [None] * nones
            if inline:
                kept += children[i].children
            else:
                kept.append(children[i])
        if append_none:
            kept += [None] * append_none
        if expand1 and len(kept) == 1:
            return kept[0]
        return method(kept)
    return shaped


def _lines_after(value: str, pos: int, line: int, line_start: int) -> tuple[int, int]:
    """(line, offset of that line's start) after a token that may hold newlines, at ``pos``."""
    k = value.count("\n")
    if k:
        return line + k, pos + value.rindex("\n") + 1
    return line, line_start


#: terminals that stand for several of the grammar's tokens (see grammar/pto.lark): read
#: as one token where the grammar takes them, else as their parts (_Driver.parts)
_COMPOUND = ("DOTTED", "INTLIST")
#: the "terminal" of a compound text the tokenizer yields as its parts (_Driver._as_parts)
_PARTS = {f"({name} parts)": name for name in _COMPOUND}

#: distinct token texts whose terminal a driver remembers (then it starts over; MTP's
#: 767,614 tokens are 15,684 texts)
_KINDS_MAX = 1 << 16


def _uncaptured(regexp: str) -> Optional[str]:
    """``regexp`` with its capturing groups made non-capturing (the same language), or
    None when whether it matches may depend on the text around the match (anchors,
    ``\\b``, lookaround) or it refers to a group (backreferences, conditionals): then
    a token's terminal is not a function of its text alone (see :meth:`_Driver._kind`)."""
    out = []
    i, n = 0, len(regexp)
    in_class = False
    while i < n:
        c = regexp[i]
        if c == "\\":
            if regexp[i + 1:i + 2] in ("b", "B", "A", "Z") or regexp[i + 1:i + 2].isdigit():
                return None
            out.append(regexp[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            if regexp.startswith("^", i):
                out.append("^")
                i += 1
            if regexp.startswith("]", i):      # a leading `]` is a member
                out.append("]")
                i += 1
            continue
        elif c in "^$":
            return None
        elif c == "(":
            if not regexp.startswith("?", i + 1):
                c = "(?:"
            elif regexp[i + 2:i + 3] in ("=", "!", "<", "(") or regexp.startswith("P=", i + 2):
                return None
        out.append(c)
        i += 1
    return "".join(out)


def _punctuation_first(regexp: str) -> bool:
    """Whether every match of ``regexp`` starts with one escaped punctuation character
    (``\\[...``: no alternation at its top, nothing before the character)."""
    return (len(regexp) > 1 and regexp[0] == "\\" and not (regexp[1].isalnum() or regexp[1] == "_")
            and regexp[2:3] not in ("*", "?", "{") and "|" not in regexp)


def _scanner(lexed):
    """The scanner of :meth:`_Driver.tokens` (``([ \\t\\f]*)(TERMINAL|...|ANY CHARACTER)``:
    the blanks and the text of each token, in the tokenizer's match order) and each terminal's
    whole-text matcher; (None, ()) when a terminal's regexp cannot be made
    group-free (then every text is lexed the exact way)."""
    plain = [(name, _uncaptured(r)) for name, r in lexed]
    try:
        if any(r is None or re.compile(r).groups for _, r in plain):
            return None, ()
        alts = [r for _, r in plain]
        for i, d in enumerate(alts):
            # `N(?:\.N)++` before `N` (DOTTED, NAME): one alternative `N(?:\.N)*+` in the
            # first one's place matches what the two match (N holds no dot), in one pass
            # over a name -- when what stands between them starts with punctuation (an
            # INTLIST's `\[`), never where a name does
            n = next((n for n in alts[i + 1:] if d == rf"{n}(?:\.{n})++"), None)
            if n is not None and "." not in n and "\\" not in n:
                j = alts.index(n)
                if all(_punctuation_first(r) for r in alts[i + 1:j]):
                    alts[i] = rf"{n}(?:\.{n})*+"
                    del alts[j]
                break
        scanner = re.compile(r"([ \t\f]*)(" + "|".join(f"(?:{r})" for r in alts) + r"|[\s\S])")
        return scanner, tuple((name, re.compile(r).fullmatch) for name, r in plain)
    except re.error:        # pragma: no cover - lark's own regexps compile
        return None, ()


class _Driver:
    """An LALR driver over the grammar's tables (:mod:`tilemem.frontend.tables`).

    It runs the rule callbacks (the embedded transformer) as it reduces and takes its
    tokens from the postlexer, which takes them from a tokenizer compiled from the
    grammar's terminals (one regex match per token, leading blanks included).
    """

    def __init__(self, data: dict, builder: "_Builder"):
        self.literals = data["literals"]
        name_re = re.compile(next(r for n, r in data["terminals"] if n == "NAME") + r"\Z")
        self.keywords = {}
        lexed = []      # (name, regexp) of the terminals the tokenizer matches, in lark's order
        for name, regexp in data["terminals"]:
            lit = self.literals.get(name)
            if lit is not None and name_re.match(lit):
                self.keywords[lit] = name       # lexed as NAME, then re-typed
                continue
            lexed.append((name, regexp))
        # Leading blanks are skipped inside the same match (one regex call per token).
        self.master = re.compile(r"[ \t\f]*(?:" + "|".join(f"(?P<{n}>{r})" for n, r in lexed) + ")")
        self.scanner, self.terminals = _scanner(lexed)
        self.kinds: dict = {}       # token text -> terminal (see _kind)
        self.ignore = frozenset(data["ignore"])
        self.newline_types = frozenset(data["newline"])
        self.rare = self.ignore | self.newline_types | set(_PARTS)
        start, end = data["start"], data["end"]
        reductions = []
        for origin, size, callback, expand1, include, append_none in data["rules"]:
            if size == 1 and expand1 and include is None and not append_none:
                cb = None       # `?rule: x` passes its only child through unchanged
            else:
                method = getattr(builder, callback, None)
                if method is None:
                    method = (lambda name: lambda children: _Tree(name, children))(callback)
                cb = _rule_callback(method, expand1, include, append_none)
            reductions.append((size, cb, origin))
        symbols = data["symbols"]
        # a state is its row: {symbol: (True, next state's row) | (False, reduction)}, so
        # the parser's stack holds rows (one index a step instead of two)
        table = [{} for _ in data["states"]]
        for row, flat in zip(table, data["states"]):
            for k in range(0, len(flat), 2):
                action = flat[k + 1]
                row[symbols[flat[k]]] = ((True, table[action >> 1]) if action & 1
                                         else (False, reductions[action >> 1]))
        self.start_state, self.end_state = table[start], table[end]

    def tokens(self, text: str):
        """The tokens of ``text``, with their positions.

        The scanner's two groups are the blanks before a token and its text (no group
        per terminal: a regex with one named group per terminal matches at half the
        speed); which terminal a text is does not depend on where it stands (see
        :meth:`_kind`), so it is looked up once per distinct text.  The scanner's last
        alternative takes any one character, so its matches follow each other without a
        gap: where no terminal matches, the rest of the text is lexed by
        :meth:`_tokens_exact`, which reports the error where the parser reaches it.
        (``finditer``, not ``findall``: the matches of a 1 MB line held at once cost
        ~50 bytes a byte.)"""
        if self.scanner is None:
            return self._tokens_exact(text)
        return self._scanned(text)

    def _scanned(self, text: str):
        kinds = self.kinds
        kind = self._kind
        ignore = self.ignore
        nl_types = self.newline_types
        T = Token
        pos = 0
        line = 1
        line_start = 0
        rare = self.rare
        for m in self.scanner.finditer(text):
            blank, value = m.groups()
            ttype = kinds.get(value)
            if ttype is None:
                ttype = kind(value)
                if ttype is None:
                    # the any-character alternative: up to here the scanner matched what
                    # the exact tokenizer matches (the same alternatives, first), and
                    # from here the exact tokenizer decides
                    yield from self._tokens_exact(text, pos, line, line_start)
                    return
                if len(kinds) >= _KINDS_MAX:
                    kinds.clear()
                kinds[value] = ttype
            if blank:
                pos += len(blank)
            if ttype in rare:       # ignored, may hold newlines, or a compound read as its parts
                if ttype in _PARTS:
                    yield from self.parts(_PARTS[ttype], value, pos, line, pos - line_start + 1)
                elif ttype not in ignore:
                    yield T(ttype, value, pos, line, pos - line_start + 1)
                if ttype in nl_types:
                    line, line_start = _lines_after(value, pos, line, line_start)
            else:
                yield T(ttype, value, pos, line, pos - line_start + 1)
            pos += len(value)

    def _kind(self, value: str) -> Optional[str]:
        """The terminal of a token's text: the first in match order whose whole language
        holds it (None: none does).  The same as the tokenizer's named group: the first
        alternative that matches at a position wins, and (no anchors or lookaround) one
        that matches ``value`` whole matches at any position where ``value`` starts, so
        no alternative before the one that matched there holds ``value``."""
        for name, whole in self.terminals:
            if whole(value):
                if name == "NAME":
                    return self.keywords.get(value, name)
                if name in _COMPOUND and self._as_parts(name, value):
                    return f"({name} parts)"
                return name
        return None

    def _as_parts(self, ttype: str, value: str) -> bool:
        """Whether a compound text is always read as its parts: a DOTTED that holds a
        keyword (``True.x``, ``a.if``) or starts with a name the reader takes as a float
        (``inf.x``); the parser reads (or rejects) those tokens as before."""
        if ttype != "DOTTED":
            return False
        parts = value.split(".")
        return parts[0] in ("nan", "inf") or any(p in self.keywords for p in parts)

    def parts(self, ttype: str, value: str, pos: int, line: int, col: int) -> list:
        """The grammar's tokens a compound text stands for: a DOTTED's NAME (or keyword)
        and DOT tokens, an INTLIST's ``[``, INT, ``,`` and ``]``."""
        out = []
        if ttype == "INTLIST":
            out.append(Token("LSQB", "[", pos, line, col))
            for i, digits in enumerate(value[1:-1].split(", ")):
                if i:
                    out.append(Token("COMMA", ",", pos + 1, line, col + 1))
                    pos += 2
                    col += 2
                out.append(Token("INT", digits, pos + 1, line, col + 1))
                pos += len(digits)
                col += len(digits)
            out.append(Token("RSQB", "]", pos + 1, line, col + 1))
            return out
        keywords = self.keywords
        for i, part in enumerate(value.split(".")):
            if i:
                out.append(Token("DOT", ".", pos, line, col))
                pos += 1
                col += 1
            out.append(Token(keywords.get(part, "NAME"), part, pos, line, col))
            pos += len(part)
            col += len(part)
        return out

    def _tokens_exact(self, text: str, pos: int = 0, line: int = 1, line_start: int = 0):
        """One regex match per token, its terminal the named group that matched: the
        tokenizer from where the scanner meets a character no terminal matches (its
        error is raised lazily, where the parser reaches it, as lark's lexer does)."""
        match = self.master.match
        keywords = self.keywords
        ignore = self.ignore
        nl_types = self.newline_types
        T = Token
        n = len(text)
        while pos < n:
            m = match(text, pos)
            if m is None:
                ch = text[pos]
                col = pos - line_start + 1
                if ch in "\"'":
                    raise _SyntaxProblem("unterminated string literal", line, col)
                shown = repr(ch) if not ch.isprintable() else f"'{ch}'"
                raise _SyntaxProblem(f"unexpected character {shown}", line, col)
            ttype = m.lastgroup
            value = m.group(ttype)
            end = m.end()
            pos = end - len(value)
            if ttype not in ignore:
                if ttype == "NAME":
                    ttype = keywords.get(value, "NAME")
                elif ttype in _COMPOUND and self._as_parts(ttype, value):
                    yield from self.parts(ttype, value, pos, line, pos - line_start + 1)
                    pos = end
                    continue
                yield T(ttype, value, pos, line, pos - line_start + 1)
            if ttype in nl_types:
                line, line_start = _lines_after(value, pos, line, line_start)
            pos = end

    def parse(self, text: str, postlexer: PtoIndenter):
        states = [self.start_state]
        values: list = []
        tok = None
        checkpoint = None       # (len(states), len(values), token) at the start of the current statement
        stream = tokens = postlexer.process(self.tokens(text))
        push_state, push_value = states.append, values.append
        pop_state, pop_value = states.pop, values.pop
        while True:
            try:
                for tok in stream:
                    ttype = tok.type
                    while True:
                        row = states[-1]
                        try:
                            shift, arg = row[ttype]
                        except KeyError:
                            if ttype in _COMPOUND:      # where the grammar takes none: as its parts
                                parts = self.parts(ttype, tok.value, tok.start_pos, tok.line, tok.column)
                                if tok is postlexer.line_first:
                                    postlexer.line_first = parts[0]
                                if tok is postlexer.stmt_first:
                                    postlexer.stmt_first = parts[0]
                                raise _Reread(parts) from None
                            if tok is postlexer.stmt_first:     # the statement's first token is already unexpected
                                checkpoint = (len(states), len(values), tok)    # (e.g. `import` in a host body)
                            if not self._recover(tok, stream, checkpoint, states, values, text, postlexer):
                                raise _UnexpectedToken(tok, {k for k in row if k.isupper()}) from None
                            break
                        if shift:
                            if tok is postlexer.stmt_first:
                                checkpoint = (len(states), len(values), tok)
                            push_state(arg)
                            push_value(tok)
                            break
                        size, callback, origin = arg
                        if callback is None:            # a single child passed through: only the state changes
                            states[-1] = states[-2][origin][1]
                            continue
                        if size == 1:
                            children = [pop_value()]
                            pop_state()
                        elif size:
                            children = values[-size:]
                            del states[-size:]
                            del values[-size:]
                        else:
                            children = []
                        push_value(callback(children))
                        push_state(states[-1][origin][1])
            except _Reread as reread:     # (a compound comes from `tokens`: no earlier parts are left)
                stream = chain(postlexer.passed_on(reread.tokens), tokens)
                continue
            break
        end_tok = Token.new_borrow_pos("$END", "", tok) if tok is not None else Token("$END", "", 0, 1, 1)
        return self._feed(end_tok, states, values)

    def _feed(self, tok: Token, states: list, values: list):
        """Feed one token (the slow path: recovery and end of input); returns the result at $END."""
        end_state = self.end_state
        is_end = tok.type == "$END"
        while True:
            row = states[-1]
            try:
                shift, arg = row[tok.type]
            except KeyError:
                raise _UnexpectedToken(tok, {k for k in row if k.isupper()}) from None
            if shift:
                states.append(arg)
                values.append(tok)
                return None
            size, callback, origin = arg
            if size:
                children = values[-size:]
                del states[-size:]
                del values[-size:]
            else:
                children = []
            values.append(children[0] if callback is None else callback(children))
            states.append(states[-1][origin][1])
            if is_end and states[-1] is end_state:
                return values[-1]

    def _recover(self, bad: Token, stream, checkpoint, states, values, text, postlexer) -> bool:
        """Turn an unparsable but valid-Python simple statement into an OPAQUE_LINE.

        Only for a statement where the grammar accepts a simple statement (function
        bodies), and only if Python itself accepts the statement's text: real syntax
        errors are still reported.
        """
        if checkpoint is None or bad.type in ("_INDENT", "_DEDENT", "$END"):
            return False
        depth, vdepth, first = checkpoint
        # states[depth - 1] is the state in which `first` was shifted: the statement start
        if first is not postlexer.stmt_first or "OPAQUE_LINE" not in states[depth - 1]:
            return False
        nl = bad
        while True:
            # the statement ends at the end of the line or at a `;` (`x += 1; y = 2`) -- but
            # not at a `;` after a compound statement's header: `if c: x += 1; y = 2` is one
            # `if` whose body holds both
            while nl.type != "_NL" and nl.type != "SEMICOLON":
                nl = next(stream, None)
                if nl is None or nl.type in ("_INDENT", "_DEDENT"):
                    return False
            src = text[first.start_pos:nl.start_pos].rstrip()
            if nl.type == "_NL" or _python_statement_kind(src) != "compound":
                break
            nl = next(stream, None)
            if nl is None:
                return False
        if not _python_simple_statement(src):
            return False
        del states[depth:]
        del values[vdepth:]
        opaque = Token("OPAQUE_LINE", src, first.start_pos, first.line, first.column)
        self._feed(opaque, states, values)
        self._feed(nl, states, values)
        return True


def _python_simple_statement(src: str) -> bool:
    """Whether ``src`` is one complete Python statement (a construct tilemem does not model)."""
    return _python_statement_kind(src) is not None


def _python_statement_kind(src: str) -> Optional[str]:
    """``"simple"`` or ``"compound"`` (one with a body: ``if c: x += 1``) when ``src`` is one
    complete Python statement, else None."""
    if not src or src.endswith(":"):
        return None
    try:
        import ast          # only for a line the grammar does not model
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # e.g. invalid escape sequences
            mod = ast.parse(src)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None
    if len(mod.body) != 1:
        return None
    return "compound" if hasattr(mod.body[0], "body") else "simple"


# ----------------------------------------------------------------------------- error messages

_FRIENDLY = {
    "NAME": "a name",
    "INT": "an integer",
    "FLOAT": "a number",
    "STRING": "a string",
    "BINOP": "an operator",
    "PREFIX": "a unary operator",
    "ELLIPSIS": "'...'",
    "_NL": "end of line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the indented block",
    "COMMENTS": "a comment",
    "$END": "end of input",
}


def _describe_terminal(name: str, literals: dict) -> str:
    if name in _FRIENDLY:
        return _FRIENDLY[name]
    if name in literals:
        return f"'{literals[name]}'"
    return name


def _expected_words(expected, literals: dict) -> str:
    # a compound token is expected only where its first part is (a NAME, a `[`)
    expected = set(expected).difference(_COMPOUND)
    names = sorted(expected - {"COMMENTS"}) or sorted(expected)   # comments fit anywhere
    if not names:
        return ""
    exprish = {"NAME", "INT", "FLOAT", "STRING", "LPAR", "LSQB", "LBRACE", "PREFIX"}
    if exprish <= set(names):
        rest = [n for n in names if n not in exprish and n not in ("TRUE", "FALSE", "NONE", "ELLIPSIS")]
        words = ["an expression"] + [_describe_terminal(n, literals) for n in rest]
    else:
        words = [_describe_terminal(n, literals) for n in names]
    words = sorted(set(words), key=lambda w: (w != "an expression", w))
    if len(words) > 10:
        words = words[:10] + ["..."]
    if len(words) == 1:
        return words[0]
    return "one of " + ", ".join(words)


def _describe_token(tok: Token) -> str:
    t = tok.type
    if t == "_NL":
        return "end of line"
    if t == "_INDENT":
        return "indent"
    if t == "_DEDENT":
        return "dedent"
    if t == "$END":
        return "end of input"
    if t == "COMMENTS":
        return "comment"
    v = str(tok.value)
    if len(v) > 40:
        v = v[:37] + "..."
    return f"'{v}'"


def _error_message(exc: _UnexpectedToken, literals: dict, text: str) -> tuple[str, int, int]:
    tok = exc.token
    what = _describe_token(tok)
    expected = _expected_words(exc.expected, literals) if exc.expected else ""
    if tok.type == "_INDENT":
        msg = "unexpected indent"
    elif tok.type == "_DEDENT" and "_DEDENT" not in exc.expected:
        msg = "unexpected dedent (the indented block is incomplete)"
        if expected:
            msg += f"; expected {expected}"
    elif tok.type == "$END":
        msg = "unexpected end of input"
        if expected:
            msg += f"; expected {expected}"
    else:
        msg = f"unexpected {what}"
        if expected:
            msg += f"; expected {expected}"
    line, col = tok.line, tok.column
    if tok.type == "$END" or line is None or line < 0:
        line, col = _end_position(text)
    return msg, line, col


def _end_position(text: str) -> tuple[int, int]:
    body = text.rstrip()
    if not body:
        return 1, 1
    line = body.count("\n") + 1
    col = len(body) - (body.rfind("\n") + 1) + 1
    return line, col


# ----------------------------------------------------------------------------- entry point

def _blank_or_comments(text: str) -> bool:
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            return False
    return True


def parse(text: str, path: str = "<input>", limits=None) -> ir.Program:
    """Parse PyPTO's printed program text into an :class:`ir.Program` (the printed reading).

    Raises TilememError (never anything else) for malformed input, and for input over
    the caps of ``limits`` (a :class:`tilemem.limits.Limits`; default: the defaults).
    """
    prog, layout = _parse(text, path, _program_from_items, limits=limits)
    if layout.comments:
        from tilemem.frontend.comments import attach_comments
        attach_comments(prog, layout, text)
    return prog


def parse_syntax(text: str, path: str = "<input>", indented: bool = False, limits=None):
    """The file as written, for the DSL reading: ``(items, source)``.

    ``items`` are the top-level items (``("class", name, decorators, [RawFunction], ...)``
    and friends); ``source`` is a :class:`SourceLayout` (every comment, the extent of
    every logical line).  ``indented``: the text may start indented (a class nested in a
    Python function); positions stay those of ``text``.
    """
    return _parse(text, path, lambda items: items, indented, limits)


def _parse(text: str, path: str, finish, indented: bool = False, limits=None):
    if not isinstance(text, str):
        raise TilememError(path, None, None, f"expected program text (str), got {type(text).__name__}")
    check_text(text, path, limits)
    if _blank_or_comments(text):
        raise TilememError(path, 1, 1, "empty input: expected a `@pl.program` class", source=text)
    if "\x00" in text:
        off = text.index("\x00")
        line = text.count("\n", 0, off) + 1
        col = off - (text.rfind("\n", 0, off) + 1) + 1
        raise TilememError(path, line, col, "binary input: NUL character in the text", source=text.replace("\x00", "\\0"))
    src = text if text.endswith("\n") else text + "\n"
    try:
        driver = _driver()
    except Exception as exc:  # pragma: no cover - a broken installation
        raise TilememError(path, None, None, f"internal error: cannot build the parser: {exc}") from None
    indenter = PtoIndenter(indented)      # per call: parse() is re-entrant
    deep = deep_recursion().__enter__()     # process-wide: shared with concurrent parses
    try:
        items = driver.parse(src, indenter)
        result = finish(items)
    except _SyntaxProblem as exc:
        raise TilememError(path, exc.line, exc.col, exc.message, source=text) from None
    except _UnexpectedToken as exc:
        opener = _unclosed_bracket(exc, indenter)
        if opener is not None:
            raise TilememError(path, opener.line, opener.column,
                               f"unclosed bracket '{opener.value}' (no matching '{_CLOSE_CHAR[opener.value]}')",
                               source=text) from None
        msg, line, col = _error_message(exc, driver.literals, src)
        raise TilememError(path, line, col, msg, source=text) from None
    except TilememError:
        raise
    except RecursionError:
        line, col = _last_position(indenter)
        raise TilememError(path, line, col, "program is nested too deeply", source=text) from None
    except Exception as exc:
        inner = exc
        while inner is not None and not isinstance(inner, _SyntaxProblem):
            inner = inner.__context__
        if inner is not None:
            raise TilememError(path, inner.line, inner.col, inner.message, source=text) from None
        line, col = _last_position(indenter)
        raise TilememError(path, line, col, f"internal error while parsing: {type(exc).__name__}: {exc}",
                           source=text) from None
    finally:
        deep.__exit__(None, None, None)
    return result, SourceLayout(indenter.comments, indenter.line_ends, indenter.stmt_ends)


class SourceLayout:
    """What the statement tree does not keep: every ``#`` comment as
    ``(line, column (0-based), text)``; for every logical line, its last physical
    line (``line_ends[first line]``); and for the simple statements of a line with a
    ``;`` (``a = f(x); b = g(  # c`` newline ``a)``), each one's last line, which is not
    its line's (``stmt_ends[line] = [(column, last line), ...]``, keyed by where the
    statement starts)."""
    __slots__ = ("comments", "line_ends", "stmt_ends")

    def __init__(self, comments, line_ends, stmt_ends=None):
        self.comments = comments
        self.line_ends = line_ends
        self.stmt_ends = stmt_ends or {}


def _unclosed_bracket(exc, indenter) -> Optional[Token]:
    """The innermost open bracket, when a syntax error comes on a later line than it.

    Newlines inside brackets are ignored, so a forgotten closing bracket shows up as a
    confusing error somewhere below; pointing at the opener is more helpful.
    """
    brackets = getattr(indenter, "brackets", None)
    tok = getattr(exc, "token", None)
    if not brackets or tok is None or tok.line is None:
        return None
    opener = brackets[-1]
    if tok.type == "$END" or tok.line > opener.line:
        return opener
    return None


def _last_position(indenter) -> tuple[int, int]:
    tok = getattr(indenter, "last_token", None)
    if tok is not None and tok.line is not None:
        if tok.type in _COMPOUND:       # where its last part was
            last = _driver().parts(tok.type, tok.value, tok.start_pos, tok.line, tok.column)[-1]
            return last.line, last.column
        return tok.line, tok.column
    return 1, 1
