"""What the server knows of one open document: the version the client has, the
analysis of that version once it is done, and the last analysis that solved.

Analyses run off the event loop, one at a time, each on the text of one version: a
version superseded before its turn is never analysed, and a result that arrives after
a newer edit is dropped (closed, not published).  While a version does not solve (a
half-typed line), hints and hovers keep coming from the last one that did.
"""
from __future__ import annotations

import asyncio
from typing import Optional

from tilemem.lsp.analysis import DocumentAnalysis, Workspaces, split_lines


class DocumentState:
    def __init__(self, uri: str, path: str):
        self.uri, self.path = uri, path
        self.version: Optional[int] = None       # the client's latest version
        self.text = ""                           # ... and its text
        self.current: Optional[DocumentAnalysis] = None   # the analysis of ``version``
        self.good: Optional[DocumentAnalysis] = None      # the last analysis that solved
        self.latest: Optional[DocumentAnalysis] = None    # the last analysis done (any version)
        self.closed = False
        # the per-program workspaces: an edit solves only the functions it changed
        self.workspaces = Workspaces()
        self.analysed = asyncio.Event()          # set once any analysis is done
        self._lines: Optional[tuple[str, list[str]]] = None

    def edited(self, version: Optional[int], text: str) -> None:
        self.version, self.text = version, text
        self.current = None

    @property
    def lines(self) -> list[str]:
        """The lines of the client's text now."""
        if self._lines is None or self._lines[0] is not self.text:
            self._lines = (self.text, split_lines(self.text))
        return self._lines[1]

    def is_latest(self, version: Optional[int]) -> bool:
        return not self.closed and version == self.version

    def accept(self, analysis: DocumentAnalysis) -> bool:
        """Take a finished analysis; False (and it is closed) when a newer edit made it
        stale."""
        if not self.is_latest(analysis.version):
            analysis.close()
            return False
        old = {id(a): a for a in (self.current, self.good, self.latest) if a is not None}
        self.current = self.latest = analysis
        if analysis.solved:
            self.good = analysis
        keep = {id(self.good), id(self.latest)}
        for key, a in old.items():
            if key not in keep:
                a.close()
        self.analysed.set()
        return True

    def answering(self) -> Optional[DocumentAnalysis]:
        """The analysis hovers and hints answer from: the last that solved, else the
        last done."""
        return self.good or self.latest

    def close(self) -> None:
        self.closed = True
        for a in {id(a): a for a in (self.current, self.good, self.latest) if a}.values():
            a.close()
        self.current = self.good = self.latest = None
