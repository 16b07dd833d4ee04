"""Diagnostics for people and for machines: one record, four renderings.

A :class:`~tilemem.errors.Diagnostic` is one message about a place in an input file: a violation of
TileMemoryInferred (``verify``), a file that solving or formatting would change
(``solve --check``, ``fmt --check``), or an input that cannot be read or parsed.  The
same list renders as

* ``text``: ``path:line:col: error: message`` with the source line and a caret
  (compiler style; coloured on a terminal);
* ``json``: ``{"schema": "tilemem-diagnostics/1", "diagnostics": [...], "summary": {...}}``;
* ``github``: GitHub Actions workflow commands, ``::error file=…,line=…,col=…::message``,
  which annotate the lines of a pull request;
* ``sarif``: a SARIF 2.1.0 log for code-scanning services.

Like ruff and mypy, commands print diagnostics on standard output; the tool's own
failures (a bad option, an unreadable configuration, an internal error) go to stderr.
"""
from __future__ import annotations

import json
import os
import re
from typing import Optional, Sequence

from tilemem.tools.colors import Style
from tilemem.errors import Diagnostic

FORMATS = ("text", "json", "github", "sarif")
DIAGNOSTICS_SCHEMA = "tilemem-diagnostics/1"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/hw-native-sys/pypto"

#: code -> (short description, severity level in SARIF terms)
RULES: dict[str, str] = {
    "unannotated-tile": "A tile var defined by an assignment has no memory space "
                        "(TileMemoryInferred).",
    "operand-space": "A constrained operand lies outside the memory spaces its op accepts "
                     "(TileMemoryInferred).",
    "not-solved": "Solving the program would change the file (tilemem solve --check).",
    "not-formatted": "The file is not in PyPTO's canonical printed form (tilemem fmt --check).",
    "input-error": "The input cannot be read, parsed or solved.",
    "internal-error": "tilemem failed on this input (a bug in tilemem).",
}


def from_error(err, code: str = "input-error") -> Diagnostic:
    """A :class:`tilemem.errors.TilememError` as a diagnostic."""
    return Diagnostic(err.path, err.line, err.col, err.message, code, "error", err.source_line)


def from_message(line: str, path: str, code: str = "input-error") -> Diagnostic:
    """A one-line message ``path[:line[:col]]: error: text`` (as batch workers send them)
    as a diagnostic; a message in another form is kept whole, located at ``path``."""
    m = re.match(r"^(.*?)(?::(\d+))?(?::(\d+))?: (error|warning|note): (.*)$", line, re.S)
    if m and m.group(1) == path:
        return Diagnostic(path, int(m.group(2)) if m.group(2) else None,
                          int(m.group(3)) if m.group(3) else None, m.group(5), code, m.group(4))
    prefix = "tilemem: internal error: "
    if line.startswith(prefix):
        line = line[len(prefix):]
    return Diagnostic(path, None, None, line, code)


def first_difference(before: str, after: str) -> tuple[int, int, Optional[str]]:
    """(line, column, that line of ``before``) where ``after`` first differs from
    ``before`` (1-based; the line is None past the end of ``before``)."""
    a, b = before.splitlines(), after.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            col = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            return i + 1, col + 1, x
    n = min(len(a), len(b))
    return n + 1, 1, a[n] if n < len(a) else None


# ----------------------------------------------------------------------------- text

_SPACE_WORD = re.compile(r"(?<![\w.])(Vec|Mat|Left|Right|Acc|Bias)(?![\w(])")


def render_text(d: Diagnostic, style: Style, excerpt: bool = True) -> str:
    """Compiler style, with the source line and a caret under the column."""
    from tilemem.errors import TilememError
    first = d.first_line()
    lines = [first]
    if excerpt and d.source_line is not None and d.line is not None:
        shown = TilememError(d.path, d.line, d.col, d.message, d.source_line).format()
        lines = shown.split("\n")
        lines[0] = first
    head, sep, msg = lines[0].partition(f": {d.severity}: ")
    if style.enabled:                   # memory spaces in their palette colour, as in pictures
        msg = _SPACE_WORD.sub(lambda m: style.space(m.group(0), m.group(0)), msg)
    lines[0] = style(head, "bold") + ": " + style(d.severity, Style.SEVERITY.get(d.severity, "red"),
                                                  "bold") + ": " + msg if sep else lines[0]
    if len(lines) == 3:
        lines[2] = style(lines[2], "green", "bold")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- github


def _gh_escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_escape_prop(s: str) -> str:
    return _gh_escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(d: Diagnostic) -> str:
    """A GitHub Actions workflow command (``::error file=…,line=…,col=…,title=…::msg``)."""
    level = {"error": "error", "warning": "warning"}.get(d.severity, "notice")
    props = [f"file={_gh_escape_prop(d.path)}"]
    if d.line is not None:
        props.append(f"line={d.line}")
        if d.col is not None:
            props.append(f"col={d.col}")
    props.append(f"title={_gh_escape_prop('tilemem (' + d.code + ')')}")
    return f"::{level} {','.join(props)}::{_gh_escape_data(d.message)}"


# ----------------------------------------------------------------------------- sarif


def _uri(path: str) -> str:
    """A relative path as a SARIF ``uri`` (forward slashes, percent-encoded)."""
    from urllib.parse import quote
    p = path.replace(os.sep, "/")
    if os.path.isabs(path):
        from pathlib import Path
        return Path(path).as_uri()
    return quote(p, safe="/._-~")


def sarif_log(diagnostics: Sequence[Diagnostic], files: Sequence[str] = ()) -> dict:
    """A SARIF 2.1.0 log of one run (``files``: every input examined, for ``artifacts``)."""
    from tilemem import __version__
    codes = sorted({d.code for d in diagnostics})
    rule_index = {c: i for i, c in enumerate(codes)}
    results = []
    for d in diagnostics:
        loc: dict = {"artifactLocation": {"uri": _uri(d.path)}}
        if not os.path.isabs(d.path) and not d.path.startswith("<"):
            loc["artifactLocation"]["uriBaseId"] = "%SRCROOT%"
        if d.line is not None:
            region = {"startLine": d.line}
            if d.col is not None:
                region["startColumn"] = d.col
            if d.source_line is not None:
                region["snippet"] = {"text": d.source_line}
            loc["region"] = region
        results.append({
            "ruleId": d.code, "ruleIndex": rule_index[d.code],
            "level": {"error": "error", "warning": "warning"}.get(d.severity, "note"),
            "message": {"text": d.message},
            "locations": [{"physicalLocation": loc}],
        })
    run = {
        "tool": {"driver": {
            "name": "tilemem", "version": __version__, "semanticVersion": __version__,
            "informationUri": INFORMATION_URI,
            "rules": [{"id": c, "name": "".join(w.title() for w in c.split("-")),
                       "shortDescription": {"text": RULES.get(c, c)},
                       "defaultConfiguration": {"level": "error"}} for c in codes],
        }},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": _dir_uri(os.getcwd())}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if files:
        run["artifacts"] = [{"location": {"uri": _uri(f)}} for f in files]
    return {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _dir_uri(d: str) -> str:
    from pathlib import Path
    u = Path(d).resolve().as_uri()
    return u if u.endswith("/") else u + "/"


# ----------------------------------------------------------------------------- all


def render(diagnostics: Sequence[Diagnostic], fmt: str, style: Optional[Style] = None, *,
           files: Sequence[str] = (), summary: Optional[dict] = None,
           excerpt: bool = True) -> str:
    """All the diagnostics in one of ``FORMATS`` (text ends with a newline when not empty)."""
    style = style or Style(False)
    if fmt == "text":
        return "".join(render_text(d, style, excerpt) + "\n" for d in diagnostics)
    if fmt == "github":
        return "".join(render_github(d) + "\n" for d in diagnostics)
    if fmt == "json":
        doc = {"schema": DIAGNOSTICS_SCHEMA, "diagnostics": [d.to_dict() for d in diagnostics]}
        if summary is not None:
            doc["summary"] = summary
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(sarif_log(diagnostics, files), indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown diagnostics format {fmt!r}")
