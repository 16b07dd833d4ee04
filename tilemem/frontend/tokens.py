"""The printed-form reader's tokens, and the exceptions its parts raise to one another
(the entry point, :mod:`tilemem.frontend.parser`, turns them into located errors).

Inside the reader (scanner, postlexer, LALR driver, builder) a token is a plain tuple
``(type, value, start_pos, line, column)`` (:data:`TYPE` ... :data:`COLUMN` name the
fields): a tuple is built by one bytecode, where an instance of a class costs ~5x as much
to make (the reader makes one a token, ~22 a line).  What leaves the reader -- the tokens
of the statement tree the DSL reading gets (a function's and a class's name, ``def``,
parameter names) and the token of an :class:`UnexpectedToken` -- is a :class:`Token`
(:func:`as_token`).
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

#: the fields of a token tuple
TYPE, VALUE, START_POS, LINE, COLUMN = range(5)


class Token:
    """A token that leaves the reader: its text (``value``), its terminal's name (``type``)
    and where it starts (``start_pos``: the offset in the text; ``line``, ``column``:
    1-based); the attributes of lark's Token that its readers use.  A plain slotted class,
    not a str subclass (one with an attribute dict costs ~4x as much to make)."""
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


def as_token(tok: tuple) -> Token:
    """The :class:`Token` of a reader's token tuple."""
    return Token(*tok)


class UnexpectedToken(Exception):
    """The LALR table has no action for ``token``; ``expected``: the terminals it has."""

    def __init__(self, token, expected):
        super().__init__(f"unexpected {token.type} {token.value!r}")
        self.token = token
        self.expected = expected


class Tree:
    """A rule with no transformer method (lark's default: a tree of its children); only
    the ``_rules`` inlined into their parent are, and the parent takes their children."""
    __slots__ = ("data", "children")

    def __init__(self, data, children):
        self.data = data
        self.children = children


class Reread(Exception):
    """A compound token (DOTTED, INTLIST) where the grammar takes none: the parser reads
    ``tokens`` (its parts, token tuples, see :meth:`Driver.parts`) in its place.  A compound stands
    where its first part can (a NAME, a ``[``), so the LALR reductions done on it as the
    lookahead are the ones done on that part: the parse goes on as if the parts had been
    read from the start."""

    def __init__(self, tokens):
        super().__init__("reread")
        self.tokens = tokens


class SyntaxProblem(Exception):
    """Raised inside the lexer/transformer; :func:`parse` turns it into a TilememError."""

    def __init__(self, message: str, line: Optional[int], col: Optional[int]):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
