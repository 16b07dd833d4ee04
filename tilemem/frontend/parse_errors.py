"""The words of a syntax error: what was expected, what was found."""
from __future__ import annotations

from tilemem.frontend.lalr import COMPOUND
from tilemem.frontend.tokens import Token, UnexpectedToken






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
    expected = set(expected).difference(COMPOUND)
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


def error_message(exc: UnexpectedToken, literals: dict, text: str) -> tuple[str, int, int]:
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
