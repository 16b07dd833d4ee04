"""Diagnostics: the problems of an analysis as the protocol's diagnostics.

Read and check errors are errors; PyPTO's contract breaks (``solve --strict``) and a
bridge mark without a backend are warnings; ``verify`` violations of the program as
written take the level the client set (``information`` by default: a program before
the pass violates TileMemoryInferred by design -- the code action applies the pass);
a residency verdict is a note at the bridge-marked load it is about.
"""
from __future__ import annotations

from lsprotocol import types

from tilemem.lsp.analysis import DocumentAnalysis, Problem
from tilemem.lsp.positions import span_range

SEVERITY = {"error": types.DiagnosticSeverity.Error,
            "warning": types.DiagnosticSeverity.Warning,
            "information": types.DiagnosticSeverity.Information,
            "hint": types.DiagnosticSeverity.Hint}


def diagnostic(lines: list[str], p: Problem) -> types.Diagnostic:
    return types.Diagnostic(range=span_range(lines, p.line, p.col, p.length),
                            message=p.message, severity=SEVERITY[p.severity],
                            code=p.code, source=p.source)


def diagnostics(doc: DocumentAnalysis) -> list[types.Diagnostic]:
    """Every diagnostic of the analysed document, in source order."""
    problems = sorted(doc.all_problems(), key=lambda p: (p.line or 0, p.col or 0))
    return [diagnostic(doc.lines, p) for p in problems]
