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

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.errors import TilememError
from tilemem.frontend.indenter import CLOSE_CHAR, PtoIndenter
from tilemem.frontend.ir_builder import Builder, program_from_items
from tilemem.frontend.lalr import COMPOUND, Driver
from tilemem.frontend.parse_errors import error_message
from tilemem.frontend.tokens import SyntaxProblem, UnexpectedToken
from tilemem.limits import check_text
from tilemem.recursion import deep_recursion
from tilemem.resources import resource_dir


__all__ = ["parse", "parse_syntax", "SourceLayout"]


_DRIVER: Optional["Driver"] = None


def _driver() -> "Driver":
    """The process-wide LALR driver (built on first use, from the cached tables)."""
    global _DRIVER
    if _DRIVER is None:
        from tilemem.frontend.tables import load_tables
        grammar = (resource_dir("grammar") / "pto.lark").read_text(encoding="utf-8")
        _DRIVER = Driver(load_tables(grammar, PtoIndenter().always_accept), Builder())
    return _DRIVER


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
    prog, layout = _parse(text, path, program_from_items, limits=limits)
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
    except SyntaxProblem as exc:
        raise TilememError(path, exc.line, exc.col, exc.message, source=text) from None
    except UnexpectedToken as exc:
        opener = _unclosed_bracket(exc, indenter)
        if opener is not None:
            _, value, _, line, col = opener
            raise TilememError(path, line, col, f"unclosed bracket '{value}' (no matching '{CLOSE_CHAR[value]}')",
                               source=text) from None
        msg, line, col = error_message(exc, driver.literals, src)
        raise TilememError(path, line, col, msg, source=text) from None
    except TilememError:
        raise
    except RecursionError:
        line, col = _last_position(indenter)
        raise TilememError(path, line, col, "program is nested too deeply", source=text) from None
    except Exception as exc:
        inner = exc
        while inner is not None and not isinstance(inner, SyntaxProblem):
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


def _unclosed_bracket(exc, indenter) -> Optional[tuple]:
    """The innermost open bracket (a token tuple), when a syntax error comes on a later line
    than it.

    Newlines inside brackets are ignored, so a forgotten closing bracket shows up as a
    confusing error somewhere below; pointing at the opener is more helpful.
    """
    brackets = getattr(indenter, "brackets", None)
    tok = getattr(exc, "token", None)
    if not brackets or tok is None or tok.line is None:
        return None
    opener = brackets[-1]
    if tok.type == "$END" or tok.line > opener[3]:
        return opener
    return None


def _last_position(indenter) -> tuple[int, int]:
    tok = getattr(indenter, "last_token", None)
    if tok is not None and tok[3] is not None:
        if tok[0] in COMPOUND:       # where its last part was
            tok = _driver().parts(*tok)[-1]
        return tok[3], tok[4]
    return 1, 1
