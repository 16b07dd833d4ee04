"""The postlexer of the printed-form reader: Python-style indentation (INDENT/DEDENT),
bracket line-joining, ``;`` statements, and every comment kept aside."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterator

from tilemem.frontend.tokens import SyntaxProblem





# Deepest bracket / block / operator nesting accepted.  Deeper input is rejected with a
# positioned error, so that the recursive printer and IR walkers never overflow.
MAX_NESTING = 1000


# ----------------------------------------------------------------------------- postlexer

_OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
_CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
CLOSE_CHAR = {"(": ")", "[": "]", "{": "}"}
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

    def passed_on(self, parts) -> Iterator[tuple]:
        """The parts of a compound token the parser reads in its place (see Reread), with
        the bookkeeping this postlexer does for each token it passes on (the open brackets
        and the last token, which error messages read)."""
        brackets = self.brackets
        for tok in parts:
            t = tok[0]
            if t == "LSQB":
                brackets.append(tok)        # (the compound's own depth was checked)
            elif t == "RSQB":
                brackets.pop()
            self.last_token = tok
            yield tok

    def _stmt_end(self, first: tuple, end: int) -> None:
        """Record that the simple statement starting at ``first`` (on a `;` line) ends on
        line ``end``."""
        self.stmt_ends.setdefault(first[3], []).append((first[4], end))

    def _indent_tokens(self, nl: tuple, nxt: tuple) -> Iterator[tuple]:
        """``_NL`` then INDENT/DEDENT tokens for the line that starts with ``nxt``."""
        yield nl
        indent_str = nl[1].rsplit("\n", 1)[1]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        levels = self.indent_level
        if indent > levels[-1]:
            levels.append(indent)
            if len(levels) > MAX_NESTING:
                raise SyntaxProblem(f"blocks nested too deeply (more than {MAX_NESTING} levels)",
                                     nxt[3], nxt[4])
            yield (self.INDENT_type, indent_str, nxt[2], nxt[3], nxt[4])
        elif indent < levels[-1]:
            while indent < levels[-1]:
                levels.pop()
                yield (self.DEDENT_type, indent_str, nxt[2], nxt[3], nxt[4])
            if indent != levels[-1]:
                raise SyntaxProblem("unindent does not match any outer indentation level",
                                     nxt[3], nxt[4])

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
            t = tok[0]
            special = _SPECIAL.get(t)
            if special is None:
                if not fresh:               # most tokens: passed on as they are
                    last = tok
                    self.last_token = tok
                    yield tok
                    continue
            elif special is _COMMENT:
                self.comments.append((tok[3], tok[4] - 1, tok[1]))
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
                        end = last[3]
                        if last[0] == "STRING":
                            end += last[1].count("\n")
                        self.line_ends[first[3]] = end
                        if semis:
                            if not fresh:       # the line's last statement (none after a trailing `;`)
                                self._stmt_end(self.stmt_first, end)
                            semis = False
                line_start = fresh = True
                continue
            elif special is _SEMI and not line_start:
                if not brackets:            # the end of a simple statement
                    if not fresh:
                        end = last[3]
                        if last[0] == "STRING":
                            end += last[1].count("\n")
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
            if special is _OPERATOR:        # re-typed first: the statement's first token may be one
                if t == "XOR" and last is not None and last[0] == "DOT":
                    # `xor` is no Python keyword: after a dot it is an attribute (`pl.tile.xor`)
                    t = "NAME"
                    special = None
                else:
                    t = _OPERATOR_TYPES[t]
                    if t is None:
                        t = "BINOP" if last is not None and last[0] in _OPERAND_END else "PREFIX"
                tok = (t, tok[1], tok[2], tok[3], tok[4])
            if fresh:
                if line_start:
                    # (a pending newline and waiting comments both come after a line start)
                    if pending_nl is not None:
                        yield from self._indent_tokens(pending_nl, tok)
                        pending_nl = None
                    elif not started and tok[4] != 1:
                        if not self.indented:
                            raise SyntaxProblem("unexpected indent", tok[3], tok[4])
                        self.indent_level = [tok[4] - 1]
                    if comments:
                        if t not in _NO_COMMENT_BEFORE:
                            first = comments[0]
                            yield ("COMMENTS", "\n".join(c[1] for c in comments), first[2], first[3], first[4])
                        comments = []
                    self.line_first = tok
                    header = t in _HEADS
                    line_start = False
                    started = True
                self.stmt_first = tok
                fresh = False
            if special is not None and special is not _OPERATOR:
                if special is _OPENING:
                    brackets.append(tok)
                    if len(brackets) > MAX_NESTING:
                        raise SyntaxProblem(f"brackets nested too deeply (more than {MAX_NESTING} levels)",
                                             tok[3], tok[4])
                elif special is _BRACKETED:
                    if len(brackets) >= MAX_NESTING:      # its `[` one level deeper
                        raise SyntaxProblem(f"brackets nested too deeply (more than {MAX_NESTING} levels)",
                                             tok[3], tok[4])
                elif special is _CLOSING:
                    if not brackets:
                        raise SyntaxProblem(f"unmatched closing bracket '{tok[1]}'", tok[3], tok[4])
                    opener = brackets.pop()
                    if opener[1] != _CLOSE[t]:
                        raise SyntaxProblem(
                            f"closing bracket '{tok[1]}' does not match opening '{opener[1]}' "
                            f"on line {opener[3]}, column {opener[4]}", tok[3], tok[4])
            last = tok
            self.last_token = tok
            yield tok
        if brackets:
            opener = brackets[-1]
            raise SyntaxProblem(f"unclosed bracket '{opener[1]}' (expected '{CLOSE_CHAR[opener[1]]}' "
                                 f"before the end of the input)", opener[3], opener[4])
        if started:
            end = pending_nl if pending_nl is not None else last
            if pending_nl is None and self.line_first is not None:
                e = last[3] + (last[1].count("\n") if last[0] == "STRING" else 0)
                self.line_ends[self.line_first[3]] = e
                if semis and not fresh:
                    self._stmt_end(self.stmt_first, e)
            yield (self.NL_type, "\n", end[2], end[3], end[4])
            while len(self.indent_level) > 1:
                self.indent_level.pop()
                yield (self.DEDENT_type, "", end[2], end[3], end[4])
