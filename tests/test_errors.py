"""Malformed input gives a TilememError at the right place, never a traceback."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tilemem.errors import TilememError
from tilemem.input_text import decode_source, read_source
from tilemem.frontend.indenter import MAX_NESTING
from tilemem.frontend.parser import parse
from tilemem.ir.printer import print_program

HEAD = ("import pypto.language as pl\n@pl.program\nclass A:\n    @pl.function\n"
        "    def f(self, x: pl.Scalar[pl.INT32]):\n")          # body starts on line 6
FIRST_LINE = re.compile(r"^(?P<path>[^\n]+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.+)$")


def error_of(text: str, path: str = "bad.pto") -> TilememError:
    with pytest.raises(TilememError) as info:
        parse(text, path)
    return info.value


CASES = [
    # name, text, line, col, message fragment
    ("empty", "", 1, 1, "empty input: expected a `@pl.program` class"),
    ("only comments", "\n  \n# nothing here\n", 1, 1, "empty input"),
    ("double equals", HEAD + "        x = = 3\n", 6, 13, "unexpected '='; expected an expression"),
    ("bad character", HEAD + "        x = 3 $ 4\n", 6, 15, "unexpected character '$'"),
    ("inconsistent dedent", HEAD + "        x = 3\n      y = 4\n", 7, 7, "unindent does not match"),
    ("unexpected indent", HEAD + "        x = 3\n            y = 4\n", 7, 13, "unexpected indent"),
    ("unclosed bracket", HEAD + "        x = f(3, [4\n        y = 2\n", 6, 18, "unclosed bracket '['"),
    ("unclosed at end", HEAD + "        x = f(3,\n", 6, 14, "unclosed bracket '('"),
    ("mismatched bracket", HEAD + "        x = f(3, [4)]\n", 6, 20, "closing bracket ')' does not match"),
    ("unmatched bracket", HEAD + "        x = 3)\n", 6, 14, "unmatched closing bracket ')'"),
    ("unterminated string", HEAD + "        x = 'abc\n", 6, 13, "unterminated string literal"),
    ("missing colon", HEAD + "        if x\n            pass\n", 6, 13, "expected ':'"),
    ("operator at end", HEAD + "        x = 3 +", 6, 16, "expected an expression"),
    ("indented first line", "   import pypto.language as pl\n", 1, 4, "unexpected indent"),
    ("empty function body", HEAD, 5, 41, "indented block"),
    ("no program class", "import pypto.language as pl\nx = 3\n", 2, 6, "unexpected end of input"),
    ("for over non-call", HEAD + "        for i in x:\n            pass\n", 6, 18, "must iterate over a call"),
    ("unannotated param", "@pl.program\nclass A:\n    @pl.function\n    def f(self, x):\n        pass\n",
     4, 17, "parameter 'x' needs a type annotation"),
    ("two decorators", "@pl.program\nclass A:\n    @pl.function\n    @pl.jit\n    def f(self):\n        pass\n",
     4, 6, "exactly one decorator"),
    ("statement in class body", "@pl.program\nclass A:\n    x = 3\n", 3, 5, "unexpected 'x'"),
    ("else without if", HEAD + "        x = 1\n        else:\n            pass\n", 7, 9, "unexpected 'else'"),
    ("bad function type", "@pl.program\nclass A:\n    @pl.function(type=3)\n    def f(self):\n        pass\n",
     3, 23, "expected type=pl.FunctionType"),
    ("NUL character", HEAD + "        x = 3\x00\n", 6, 14, "NUL"),
    ("invalid python kept as error", HEAD + "        x += = 1\n", 6, 12, "unexpected '='"),
]


@pytest.mark.parametrize("name, text, line, col, fragment", CASES, ids=[c[0] for c in CASES])
def test_error_position_and_message(name, text, line, col, fragment):
    err = error_of(text)
    first = err.format().split("\n")[0]
    m = FIRST_LINE.match(first)
    assert m, first
    assert m["path"] == "bad.pto"
    assert (int(m["line"]), int(m["col"])) == (line, col), first
    assert fragment in m["msg"], first
    assert (err.line, err.col) == (line, col)


def test_format_shows_source_line_and_caret():
    err = error_of(HEAD + "        x = 3 $ 4\n")
    lines = err.format().split("\n")
    assert lines[1] == "        x = 3 $ 4"
    assert lines[2] == " " * 14 + "^"
    assert str(err) == lines[0]


def test_format_without_position():
    err = TilememError("p.pto", None, None, "something")
    assert err.format() == "p.pto: error: something"


def test_parse_rejects_non_text():
    with pytest.raises(TilememError):
        parse(b"import pypto.language as pl")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- reading files

def test_read_source_errors(tmp_path: Path):
    with pytest.raises(TilememError, match="no such file"):
        read_source(tmp_path / "missing.pto")
    with pytest.raises(TilememError, match="directory"):
        read_source(tmp_path)
    binary = tmp_path / "bin.pto"
    binary.write_bytes(b"import pypto\nab\x00cd\n")
    err = pytest.raises(TilememError, read_source, binary).value
    assert (err.line, err.col) == (2, 3) and "NUL" in err.message
    assert FIRST_LINE.match(err.format().split("\n")[0])
    latin = tmp_path / "latin.pto"
    latin.write_bytes("# ok\nx = 'caf\u00e9'\n".encode("latin-1"))
    err = pytest.raises(TilememError, read_source, latin).value
    assert (err.line, err.col) == (2, 9) and "UTF-8" in err.message and "0xe9" in err.message


def test_read_source_ok(tmp_path: Path):
    good = tmp_path / "good.pto"
    good.write_bytes("\ufeff# caf\u00e9\n".encode("utf-8"))
    assert read_source(good) == "# caf\u00e9\n"
    assert decode_source("x\n".encode()) == "x\n"


# ----------------------------------------------------------------------------- nesting depth

def _deep_parens(n: int) -> str:
    return HEAD + "        y = " + "(" * n + "x" + ")" * n + "\n"


def _deep_ifs(n: int) -> str:
    body = "".join("    " * (i + 2) + "if x:\n" for i in range(n))
    return HEAD + body + "    " * (n + 2) + "pass\n"


@pytest.mark.parametrize("text", [
    _deep_parens(200),
    HEAD + "        y = " + "-(" * 200 + "x" + ")" * 200 + "\n",
    HEAD + "        y = " + "x + (" * 200 + "x" + ")" * 200 + "\n",
    HEAD + "        y = " + "[" * 200 + "x" + "]" * 200 + "\n",
    HEAD + "        y = " + " ** ".join(["x"] * 500) + "\n",
    HEAD + "        y = " + " + ".join(["x"] * 5000) + "\n",
    _deep_ifs(200),
], ids=["parens", "neg", "add", "list", "pow", "long-sum", "ifs"])
def test_deep_nesting_parses_and_prints(text):
    out = print_program(parse(text))
    assert print_program(parse(out)) == out


@pytest.mark.parametrize("text, fragment", [
    (_deep_parens(MAX_NESTING + 5), "brackets nested too deeply"),
    (HEAD + "        y = " + "f(" * 5000 + "x" + ")" * 5000 + "\n", "brackets nested too deeply"),
    (HEAD + "        y = " + "-" * 5000 + "x\n", "expression nested too deeply"),
    (HEAD + "        y = " + " ** ".join(["x"] * 5000) + "\n", "expression nested too deeply"),
    (_deep_ifs(MAX_NESTING + 5), "blocks nested too deeply"),
])
def test_too_deep_is_an_error_not_a_crash(text, fragment):
    err = error_of(text)
    assert fragment in err.message and err.line is not None


# ----------------------------------------------------------------------------- robustness

def _sample_program() -> str:
    data = Path(__file__).resolve().parent / "data" / "friendly" / "loops_and_branches.pto"
    return data.read_text(encoding="utf-8")


def test_mangled_input_never_leaks_exceptions():
    """Truncations and random edits: the result is a Program or a TilememError."""
    text = _sample_program()
    rng = random.Random(1234)
    alphabet = "()[]{}:,.=+-*#'\"\n    abcx0_@\t\\"
    variants = [text[:i] for i in range(0, len(text), 7)]
    for _ in range(400):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.4:
                del chars[pos]
            elif op < 0.8:
                chars.insert(pos, rng.choice(alphabet))
            else:
                chars[pos] = rng.choice(alphabet)
        variants.append("".join(chars))
    for v in variants:
        try:
            print_program(parse(v, "m.pto"))
        except TilememError as e:
            first = e.format().split("\n")[0]
            assert first.startswith("m.pto:"), first


def test_internal_failure_becomes_positioned_error(monkeypatch):
    import tilemem.frontend.ir_builder as parser_mod

    def boom(e):
        raise ValueError("boom")

    monkeypatch.setattr(parser_mod, "to_type", boom)
    err = error_of(HEAD + "        y: pl.Scalar[pl.INT32] = x\n")
    assert "internal error" in err.message and "boom" in err.message
    assert err.line == 6
