r"""AST of tilemem's rule language and its lark parser.

The grammar lives in ``grammar/datalog.lark`` (package data ``tilemem.grammar``,
LALR).  Every AST node is an immutable dataclass that carries its source location,
so later layers (error messages, proof trees, the UI) can point back at the text.

The language (a Soufflé-like subset)::

    // comment to end of line; a run of whole-line comments directly above a
    // .decl, fact or rule is that item's documentation (``doc``)
    .decl space(var, space)        // name and column names (fixes the arity)
    .decl assign(pos: number, var: symbol)   // ... optionally typed, as Soufflé types them
    .key space(var)                // one row per var: rows equal on var are equal
    .input assign                  // facts come from Python (Database.add_facts)
    .input op(IO="file", filename="ops/op.facts")   // ... or from a Soufflé .facts file
    fact_pred("Vec", 3).           // ground fact
    head(V, "Vec") :- call(S, Op), arg(S, 0, V), !iter_arg(V), K2 = K + 1, X != Y.

* predicate names ``[a-z][A-Za-z0-9_]*``; variables ``[A-Z][A-Za-z0-9_]*``; ``_`` is
  anonymous (fresh at each occurrence); strings ``"..."`` with escapes ``\" \\ \n
  \t \r`` (a raw newline inside quotes is data); integers, optionally negative.
* body literals: atom; ``!atom`` (stratified negation; ``_`` allowed inside);
  ``T op T`` with op in ``= != < <= > >=`` (integers numerically, strings
  lexicographically, every integer before every string; ``=`` binds a free variable
  to the other side); ``T = T op T`` with op in ``+ - * /`` (integers only; ``/``
  truncates toward zero, as Soufflé and clingo do, and has no value for a zero
  divisor: see :func:`arith_value`); aggregates
  ``R = count : { body }``, ``R = min T : { body }``, ``max``, ``sum`` (integers
  only), as Soufflé writes them (see :class:`Aggregate`).
* ``.key name(col, ...)`` names columns of a declared relation that determine the others
  (a functional dependency): two rows that agree on them and differ elsewhere, after an
  evaluation, are an error (``Database.key_conflicts``).
* ``.decl`` is optional; when present, every use must match its arity.  An
  ``.input`` relation without ``.decl`` takes its arity from its uses.
* zero-arity predicates are written ``p()``.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Optional, Union

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tilemem.resources import resource_dir
from tilemem.datalog.errors import Diagnostic
from tilemem.datalog.location import Loc, Located, value_key

__all__ = [
    "Loc", "Var", "Const", "Term", "Atom", "Negation", "Comparison", "Arith", "Aggregate",
    "Literal", "AGGREGATE_FUNCTIONS",
    "Rule", "Decl", "TypeDecl", "Key", "Input", "Item", "ParsedFile", "parse_program", "parse_query", "COLUMN_TYPES",
    "format_value", "COMPARISON_OPS", "value_key", "same_value", "COMPARE", "ARITH_OPS",
    "arith_value",
]

COMPARISON_OPS = ("=", "!=", "<", "<=", ">", ">=")
AGGREGATE_FUNCTIONS = ("count", "min", "max", "sum")


# ----------------------------------------------------------------------------- AST


@dataclass(frozen=True)
class Var:
    """A variable.  ``_`` is the anonymous variable (fresh at each occurrence)."""
    name: str
    loc: Optional[Loc] = None

    @property
    def is_anonymous(self) -> bool:
        return self.name == "_"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Const:
    """A constant: a Python ``int`` or ``str``."""
    value: Union[int, str]
    loc: Optional[Loc] = None

    def __str__(self) -> str:
        return format_value(self.value)


Term = Union[Var, Const]


class _Literal:
    """What every body literal can say about its variables (the planner, the engines and
    the explanations all read literals through this): ``names()`` the named variables it
    shares with the rule, ``needs()`` those that must be bound before it can run,
    ``binds()`` those it binds, ``atoms()`` the atoms it reads."""

    def ready(self, bound: set[str]) -> bool:
        return self.needs() <= bound

    def binds(self) -> set[str]:
        return set()

    def atoms(self) -> tuple["Atom", ...]:
        return ()


@dataclass(frozen=True)
class Atom(_Literal):
    pred: str
    args: tuple[Term, ...]
    loc: Optional[Loc] = None

    @property
    def arity(self) -> int:
        return len(self.args)

    def variables(self) -> list[Var]:
        """Named (non-anonymous) variables, in order of occurrence (with repeats)."""
        return [t for t in self.args if isinstance(t, Var) and not t.is_anonymous]

    def names(self) -> set[str]:
        return {v.name for v in self.variables()}

    def needs(self) -> set[str]:
        return set()

    def binds(self) -> set[str]:
        return self.names()

    def atoms(self) -> tuple["Atom", ...]:
        return (self,)

    def __str__(self) -> str:
        return f"{self.pred}({', '.join(str(a) for a in self.args)})"


@dataclass(frozen=True)
class Negation(_Literal):
    atom: Atom
    loc: Optional[Loc] = None

    def names(self) -> set[str]:
        return self.atom.names()

    def needs(self) -> set[str]:
        return self.atom.names()

    def atoms(self) -> tuple[Atom, ...]:
        return (self.atom,)

    def __str__(self) -> str:
        return f"!{self.atom}"


@dataclass(frozen=True)
class Comparison(_Literal):
    """``left op right`` with op in ``= != < <= > >=``.  ``=`` binds a free variable."""
    op: str
    left: Term
    right: Term
    loc: Optional[Loc] = None

    def names(self) -> set[str]:
        return _names(self.left, self.right)

    def needs(self) -> set[str]:
        """Both sides; an ``=`` also runs when only one side is bound (see :meth:`ready`)."""
        return self.names()

    def ready(self, bound: set[str]) -> bool:
        if self.op == "=":              # X = T binds X when T is bound (and vice versa)
            return _names(self.left) <= bound or _names(self.right) <= bound
        return self.names() <= bound

    def binds(self) -> set[str]:
        return self.names() if self.op == "=" else set()

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Arith(_Literal):
    """``target = left op right`` with op in ``+ - * /`` (integers only)."""
    target: Term
    left: Term
    op: str
    right: Term
    loc: Optional[Loc] = None

    def names(self) -> set[str]:
        return _names(self.target, self.left, self.right)

    def needs(self) -> set[str]:
        return _names(self.left, self.right)

    def binds(self) -> set[str]:
        return _names(self.target)

    def __str__(self) -> str:
        return f"{self.target} = {self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Aggregate(_Literal):
    """``R = count : { body }``, ``R = min T : { body }``, ``max``, ``sum`` (Soufflé's syntax).

    The aggregate ranges over every distinct match of ``body`` (atoms, negations and
    comparisons; an anonymous ``_`` is a variable of the match too, so
    ``count : { p(X, _) }`` counts the rows of p with first column X).  ``group`` are
    the body's variables that the rest of the rule also uses: they must be bound by the
    rule's other literals and select the matches (``count : { site(V, _) }`` counts the
    sites of the V at hand); every other body variable is local to the aggregate.
    ``count`` is the number of matches and ``sum`` the sum of ``target`` over them (0
    when there are none; integers only); ``min``/``max`` the least/greatest value of
    ``target`` in the rule language's order (no value, so the rule does not apply, when
    there are none).  ``result`` (a variable, bound by the aggregate, or a constant to
    compare with) receives the value.  Aggregation is stratified like negation: the
    body's predicates must not depend on the rule's head.
    """
    result: Term
    func: str
    target: Optional[Term]
    body: tuple[Literal, ...]
    group: tuple[str, ...] = ()
    loc: Optional[Loc] = None

    def body_names(self) -> set[str]:
        out: set[str] = set()
        for lit in self.body:
            out |= lit.names()
        return out

    def names(self) -> set[str]:
        return set(self.group) | _names(self.result)

    def needs(self) -> set[str]:
        return set(self.group)

    def binds(self) -> set[str]:
        return _names(self.result)

    def atoms(self) -> tuple[Atom, ...]:
        return tuple(a for lit in self.body for a in lit.atoms())

    def __str__(self) -> str:
        target = f" {self.target}" if self.target is not None else ""
        return f"{self.result} = {self.func}{target} : {{ {', '.join(str(b) for b in self.body)} }}"


Literal = Union[Atom, Negation, Comparison, Arith, Aggregate]


def _names(*terms) -> set[str]:
    return {t.name for t in terms if isinstance(t, Var) and not t.is_anonymous}


@dataclass(frozen=True)
class Rule(Located):
    """A rule ``head :- body.``, or a ground fact ``head.`` (empty body).

    ``doc`` is the comment block directly above the item (without the ``//``),
    ``text`` the exact source text of the item.
    """
    head: Atom
    body: tuple[Literal, ...]
    doc: str = ""
    loc: Optional[Loc] = None
    text: str = ""

    @property
    def is_fact(self) -> bool:
        return not self.body

    def body_atoms(self) -> tuple[Atom, ...]:
        """Every atom the body reads: positive, negated, inside aggregates."""
        return tuple(a for lit in self.body for a in lit.atoms())

    @property
    def col(self) -> Optional[int]:
        return self.loc.col if self.loc else None

    def __str__(self) -> str:
        if not self.body:
            return f"{self.head}."
        return f"{self.head} :- {', '.join(str(b) for b in self.body)}."


#: the column types of the language: Soufflé's number (an integer) and symbol (a string)
COLUMN_TYPES = ("number", "symbol")


@dataclass(frozen=True)
class Decl:
    """``.decl name(col: type, ...)``; ``types[i]`` is None for an untyped column.  Once
    checked, ``types`` are base types (number, symbol) and ``domains[i]`` names the
    ``.type`` domain a column was declared with (None: a base type or untyped)."""
    name: str
    columns: tuple[str, ...]
    doc: str = ""
    loc: Optional[Loc] = None
    types: tuple[Optional[str], ...] = ()
    domains: tuple[Optional[str], ...] = ()

    def column_type(self, i: int) -> Optional[str]:
        return self.types[i] if i < len(self.types) else None

    def column_domain(self, i: int) -> Optional[str]:
        """The column's domain, else its base type (None when untyped)."""
        d = self.domains[i] if i < len(self.domains) else None
        return d or self.column_type(i)

    def __str__(self) -> str:
        cols = [c if self.column_domain(i) is None else f"{c}: {self.column_domain(i)}"
                for i, c in enumerate(self.columns)]
        return f".decl {self.name}({', '.join(cols)})"


@dataclass(frozen=True)
class TypeDecl:
    """``.type Name <: base``: a domain of the base type (number or symbol)."""
    name: str
    base: str
    doc: str = ""
    loc: Optional[Loc] = None

    def __str__(self) -> str:
        return f".type {self.name} <: {self.base}"


@dataclass(frozen=True)
class Key:
    """``.key name(col, ...)``: the named columns of relation ``name`` determine the rest."""
    name: str
    columns: tuple[str, ...]
    doc: str = ""
    loc: Optional[Loc] = None

    def __str__(self) -> str:
        return f".key {self.name}({', '.join(self.columns)})"


@dataclass(frozen=True)
class Input:
    """``.input name`` (rows from Python) or ``.input name(filename="f.facts")`` (rows read
    from a Soufflé .facts file, relative to the rule file)."""
    name: str
    doc: str = ""
    loc: Optional[Loc] = None
    params: tuple[tuple[str, str], ...] = ()

    def param(self, key: str) -> Optional[str]:
        return dict(self.params).get(key)

    def __str__(self) -> str:
        if not self.params:
            return f".input {self.name}"
        return f".input {self.name}({', '.join(f'{k}={format_value(v)}' for k, v in self.params)})"


Item = Union[Decl, TypeDecl, Key, Input, Rule]


@dataclass(frozen=True)
class ParsedFile:
    """The items of one rule file, or the syntax errors that stopped its parse."""
    name: str
    items: tuple[Item, ...]
    errors: tuple[Diagnostic, ...] = ()
    #: the folder the file is in (a Path or Traversable), where the .facts files its
    #: ``.input name(filename=...)`` lines name are read from; None: unknown
    base: object = None


def same_value(a, b) -> bool:
    """Equality of constants: an integer never equals a string."""
    return type(a) is type(b) and a == b


def _less(a, b) -> bool:
    if type(a) is type(b):
        return a < b
    return value_key(a) < value_key(b)


#: the arithmetic operators of the language
ARITH_OPS = ("+", "-", "*", "/")


def arith_value(op: str, a: int, b: int) -> Optional[int]:
    """``a op b`` on integers; ``/`` truncates toward zero; None for a zero divisor."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


#: the comparison operators of the language on two constants
COMPARE = {
    "=": same_value,
    "!=": lambda a, b: not same_value(a, b),
    "<": _less,
    "<=": lambda a, b: not _less(b, a),
    ">": lambda a, b: _less(b, a),
    ">=": lambda a, b: not _less(a, b),
}


def format_value(value: Union[int, str]) -> str:
    """Render a constant the way the rule language writes it."""
    if isinstance(value, str):
        out = value.replace("\\", "\\\\").replace('"', '\\"')
        out = out.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
        return f'"{out}"'
    return str(value)


# ----------------------------------------------------------------------------- parser

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_parser_lock = threading.Lock()
_parser: Optional[Lark] = None

# readable names of the grammar's regex terminals for syntax error messages
# (terminals that are plain strings are shown as the string itself)
_TERMINAL_NAMES = {
    "NAME": "predicate name", "VAR": "variable", "STRING": "string", "INT": "integer",
    "CMP": "comparison operator", "$END": "end of input",
}


# The comments of the parse running in this thread (the shared parser keeps no state of
# its own, so every thread may parse at the same time).
_parse_state = threading.local()


def _comment(tok: Token) -> Token:
    found = getattr(_parse_state, "comments", None)
    if found is not None:
        found.append(tok)
    return tok


def _get_parser() -> Lark:
    global _parser
    with _parser_lock:
        if _parser is None:
            text = resource_dir("grammar").joinpath("datalog.lark").read_text(encoding="utf-8")
            # the lexer hands every comment to _comment (lark's lexer_callbacks): the
            # grammar ignores them, the documentation of rules is made of them
            _parser = Lark(text, parser="lalr", start=["program", "query"],
                           propagate_positions=True, maybe_placeholders=False,
                           lexer_callbacks={"COMMENT": _comment})
            for term in _parser.terminals:
                if term.name not in _TERMINAL_NAMES and term.pattern.type == "str":
                    _TERMINAL_NAMES[term.name] = repr(term.pattern.value)
        return _parser


def _decode_string(tok: Token) -> str:
    raw = tok.value[1:-1]
    if "\\" not in raw:
        return raw
    out = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            nxt = raw[i + 1]          # the lexer guarantees a following character
            if nxt not in _ESCAPES:
                # one line whatever follows the backslash (a line break, a control character)
                what = f"'\\{nxt}'" if nxt.isprintable() else f"'\\' followed by U+{ord(nxt):04X}"
                raise _LocatedError(tok, i + 1, f"unknown escape sequence {what} in string")
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _LocatedError(Exception):
    def __init__(self, tok: Token, offset: int, message: str):
        super().__init__(message)
        self.line = tok.line
        self.col = tok.column + offset
        self.message = message


@v_args(meta=True)
class _ToAst(Transformer):
    def __init__(self, name: str, text: str, docs: dict[int, str]):
        super().__init__()
        self.name = name
        self.text = text
        self.docs = docs

    def _loc(self, meta) -> Loc:
        return Loc(self.name, meta.line, meta.column)

    def _tloc(self, tok: Token) -> Loc:
        return Loc(self.name, tok.line, tok.column)

    # terms
    def var(self, meta, children):
        return Var(str(children[0]), self._tloc(children[0]))

    def anon(self, meta, children):
        return Var("_", self._tloc(children[0]))

    def string(self, meta, children):
        return Const(_decode_string(children[0]), self._tloc(children[0]))

    def integer(self, meta, children):
        return Const(int(children[0]), self._tloc(children[0]))

    def neg_integer(self, meta, children):
        return Const(-int(children[1]), self._tloc(children[0]))

    # literals
    def atom(self, meta, children):
        name = children[0]
        return Atom(str(name), tuple(children[1:]), self._tloc(name))

    def negation(self, meta, children):
        return Negation(children[0], self._loc(meta))

    def comparison(self, meta, children):
        left, op, right = children
        return Comparison(str(op), left, right, self._loc(meta))

    def arith(self, meta, children):
        target, eq, left, op, right = children
        return Arith(target, left, str(op), right, self._loc(meta))

    def aggregate(self, meta, children):
        result, eq, func, *rest = children
        target = rest.pop(0) if rest and isinstance(rest[0], (Var, Const)) else None
        return Aggregate(result, str(func), target, tuple(rest), (), self._loc(meta))

    # items
    def _doc(self, meta) -> str:
        return self.docs.get(meta.line, "")

    def fact(self, meta, children):
        return Rule(children[0], (), self._doc(meta), self._loc(meta),
                    self.text[meta.start_pos:meta.end_pos])

    def rule(self, meta, children):
        head, *body = children
        return Rule(head, _grouped(head, tuple(body)), self._doc(meta), self._loc(meta),
                    self.text[meta.start_pos:meta.end_pos])

    def column(self, meta, children):
        return (str(children[0]), str(children[1]) if len(children) > 1 else None)

    def decl(self, meta, children):
        name, *cols = children
        return Decl(str(name), tuple(c for c, _ in cols), self._doc(meta), self._loc(meta),
                    tuple(t for _, t in cols))

    def type_decl(self, meta, children):
        name, base = children
        return TypeDecl(str(name), str(base), self._doc(meta), self._loc(meta))

    def key(self, meta, children):
        name, *cols = children
        return Key(str(name), tuple(str(c) for c in cols), self._doc(meta), self._loc(meta))

    def io_param(self, meta, children):
        key, _eq, value = children
        return (str(key), _decode_string(value))

    def input(self, meta, children):
        name, *params = children
        return Input(str(name), self._doc(meta), self._loc(meta), tuple(params))

    def program(self, meta, children):
        return tuple(children)

    def query(self, meta, children):
        return children[0]


def _grouped(head: Atom, body: tuple) -> tuple:
    """The body with each aggregate's ``group``: its body variables that the head or
    another literal of the rule also uses (in order of first use in the aggregate)."""
    if not any(isinstance(lit, Aggregate) for lit in body):
        return body
    out = []
    for lit in body:
        if isinstance(lit, Aggregate):
            # another aggregate's body variables are its own (local or grouped)
            outside = head.names()
            for other in body:
                if other is not lit:
                    outside |= (_names(other.result) if isinstance(other, Aggregate)
                                else other.names())
            order = []
            for b in lit.body:
                terms = (b.args if isinstance(b, Atom) else b.atom.args if isinstance(b, Negation)
                         else (b.left, b.right))
                for t in terms:
                    if isinstance(t, Var) and t.name in outside and t.name not in order:
                        order.append(t.name)
            lit = Aggregate(lit.result, lit.func, lit.target, lit.body, tuple(order), lit.loc)
        out.append(lit)
    return tuple(out)


def _docs_from_comments(text: str, comments: list[Token]) -> dict[int, str]:
    """Map line L -> the run of whole-line comments ending on line L-1."""
    lines = text.split("\n")
    comment_lines: dict[int, str] = {}
    for tok in comments:
        line_text = lines[tok.line - 1]
        if line_text[: tok.column - 1].strip():
            continue                   # a trailing comment after code: not documentation
        body = tok.value[2:]
        if body.startswith(" "):
            body = body[1:]
        comment_lines[tok.line] = body.rstrip()
    docs: dict[int, str] = {}
    for line in comment_lines:
        if line + 1 in comment_lines:
            continue                   # not the last line of its run
        run = []
        cur = line
        while cur in comment_lines:
            run.append(comment_lines[cur])
            cur -= 1
        docs[line + 1] = "\n".join(reversed(run))
    return docs


def _describe_expected(expected) -> str:
    names = sorted({_TERMINAL_NAMES.get(e, e) for e in expected})
    if not names:
        return ""
    if len(names) == 1:
        return f", expected {names[0]}"
    return ", expected one of: " + ", ".join(names)


def _end_position(text: str) -> tuple[int, int]:
    """The position just after the last non-blank character (where input 'ended')."""
    body = text.rstrip()
    line = body.count("\n") + 1
    return line, len(body) - (body.rfind("\n") + 1) + 1


def _syntax_diagnostic(name: str, err: UnexpectedInput, text: str) -> Diagnostic:
    if isinstance(err, UnexpectedCharacters):
        ch = err.char if err.char not in ("\n", "\r") else "end of line"
        return Diagnostic(name, err.line, err.column, f"syntax error: unexpected character {ch!r}")
    if isinstance(err, UnexpectedEOF):
        line, col = _end_position(text)
        return Diagnostic(name, line, col,
                          "syntax error: unexpected end of input" + _describe_expected(err.expected))
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            what = "end of input"
            line, col = _end_position(text)
        else:
            what = repr(str(tok))
            line, col = tok.line, tok.column
        return Diagnostic(name, line, col,
                          f"syntax error: unexpected {what}" + _describe_expected(err.expected))
    return Diagnostic(name, getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1,
                      f"syntax error: {err}")


def parse_program(text: str, name: str = "<text>") -> ParsedFile:
    """Parse a rule file.  Never raises for bad input: errors go in ``ParsedFile.errors``."""
    parser = _get_parser()
    _parse_state.comments = comments = []
    try:
        tree = parser.parse(text, start="program")
    except UnexpectedInput as err:
        return ParsedFile(name, (), (_syntax_diagnostic(name, err, text),))
    finally:
        _parse_state.comments = None
    docs = _docs_from_comments(text, comments)
    try:
        items = _ToAst(name, text, docs).transform(tree)
    except Exception as err:  # lark wraps transformer errors in VisitError
        inner = getattr(err, "orig_exc", err)
        if isinstance(inner, _LocatedError):
            return ParsedFile(name, (), (Diagnostic(name, inner.line, inner.col, inner.message),))
        raise
    return ParsedFile(name, items)


def parse_query(text: str) -> Atom:
    """Parse one atom typed by a user.  Raises :class:`QueryError` on bad input."""
    from tilemem.datalog.errors import QueryError

    if not isinstance(text, str):
        raise QueryError(f"a query must be a string, not {type(text).__name__}")
    try:
        tree = _get_parser().parse(text, start="query")
    except UnexpectedInput as err:
        d = _syntax_diagnostic("<query>", err, text)
        raise QueryError(d.message, d.col) from None
    try:
        return _ToAst("<query>", text, {}).transform(tree)
    except Exception as err:
        inner = getattr(err, "orig_exc", err)
        if isinstance(inner, _LocatedError):
            raise QueryError(inner.message, inner.col) from None
        raise
