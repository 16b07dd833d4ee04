"""The diagnostics of a checking run (``verify``, ``solve --check``, ``fmt --check``).

Text and GitHub annotations are printed as each file is done (a long batch shows its
findings as it goes); JSON and SARIF are one document printed at the end.  All on
stdout: diagnostics are the output of a check, as with ruff and mypy.
"""
from __future__ import annotations

import sys
from typing import Optional, Sequence

from tilemem.commands.common import style
from tilemem.records import replace
from tilemem.tools.diagnostics import Diagnostic, from_error, from_message, render, render_github, \
    render_text


class Report:
    def __init__(self, args):
        self.fmt = getattr(args, "output_format", None) or "text"
        self.style = style(args)
        self.excerpt = not getattr(args, "quiet", False)
        self.diagnostics: list[Diagnostic] = []
        self.files: list[str] = []
        self.failed_files = 0

    @property
    def streaming(self) -> bool:
        return self.fmt in ("text", "github")

    def file(self, path: str, diagnostics: Sequence[Diagnostic], text_before: str = "") -> None:
        """The diagnostics of one file (``text_before``, e.g. its diff, printed first in text)."""
        self.files.append(path)
        self.diagnostics.extend(diagnostics)
        if any(d.severity == "error" for d in diagnostics):
            self.failed_files += 1
        if self.fmt == "text":
            out = text_before + "".join(render_text(d, self.style, self.excerpt) + "\n"
                                        for d in diagnostics)
        elif self.fmt == "github":
            out = "".join(render_github(d) + "\n" for d in diagnostics)
        else:
            return
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()

    def finish(self, summary: Optional[dict] = None) -> None:
        if not self.streaming:
            sys.stdout.write(render(self.diagnostics, self.fmt, files=self.files, summary=summary))
            sys.stdout.flush()

    def count(self, *codes: str) -> int:
        return sum(1 for d in self.diagnostics if d.code in codes)


def error_diagnostics(err, path: str) -> list:
    """Every error a failure holds, as diagnostics: one per problem of a file whose check
    found several (``tilemem.frontend.check.ProgramErrors``), else the one."""
    return [error_diagnostic(e, path) for e in getattr(err, "errors", None) or [err]]


def error_diagnostic(err, path: str) -> Diagnostic:
    """A per-file failure — a TilememError, or a batch result's one-line message — as a
    diagnostic."""
    from tilemem.errors import TilememError
    if isinstance(err, TilememError):
        return from_error(err)
    return from_message(str(err), path)


def result_diagnostics(res, located_code: str = "input-error") -> list[Diagnostic]:
    """The failure of a batch FileResult (solve_file) as diagnostics."""
    from tilemem.tools.batch import INTERNAL_ERROR
    code = "internal-error" if res.status == INTERNAL_ERROR else located_code
    if res.located is not None:
        line, col, message, source_line = res.located
        return [Diagnostic(res.path, line, col, message, code, "error", source_line)]
    return [from_message(res.error or "failed", res.path, code)]


def warning_diagnostics(warnings) -> list[Diagnostic]:
    """A solve's warnings (already Diagnostics) with the severity they are shown with."""
    return [w if w.severity == "warning" else replace(w, severity="warning") for w in warnings]
