"""How an answer prints: a paragraph filled to the width, then the few deciding steps
and notes (at most :data:`MAX_LINES` lines), or the whole proof with ``--tree``; and the
answer as JSON (:meth:`Answer.to_dict`).  Lines are elided in the middle to fit the
width (:func:`fit`)."""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Optional

from tilemem.explain.nodes import ProofNode
from tilemem.explain.paragraph import Step
from tilemem.explain.whynot import WhyNot

WIDTH = 100
#: the most lines a default answer prints
MAX_LINES = 12


def fit(line: str, width: Optional[int], ascii: bool = False) -> str:
    """``line`` elided in the middle to at most ``width`` characters (None: as is)."""
    if not width or len(line) <= width:
        return line
    mark = "..." if ascii else "…"
    keep = max(width - len(mark), 8)
    head = (keep * 2) // 3
    return line[:head].rstrip() + mark + line[len(line) - (keep - head):].lstrip()


def wrap(text: str, width: Optional[int], indent: str = "") -> list[str]:
    """A paragraph filled to ``width`` (one line when width is None)."""
    if not width:
        return [indent + text]
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False) or [indent]


def _wrap_note(note: str, width: Optional[int]) -> list[str]:
    """A note filled to width, its continuation lines indented under its text."""
    body = note.lstrip()
    lead = note[:len(note) - len(body)]
    m = re.match(r"(\d+\. |- )", body)
    hang = lead + " " * (len(m.group(1)) if m else 2)
    if not width:
        return [note]
    return textwrap.wrap(body, width, initial_indent=lead, subsequent_indent=hang,
                         break_on_hyphens=False, break_long_words=False) or [note]


@dataclass
class Answer:
    """An answer: a paragraph, the deciding steps, and what ``--tree`` shows."""
    question: str
    summary: str                                   # the paragraph, derived from the proof
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # further short lines (residency, moves)
    trees: list = field(default_factory=list)      # (title, ProofNode or WhyNot) for --tree
    data: dict = field(default_factory=dict)       # extra JSON fields (proofs made JSON by to_dict)
    parts: list = field(default_factory=list)      # an answer by line: one answer a tile
    max_lines: int = MAX_LINES                     # the most lines it prints by default

    def render(self, width: Optional[int] = WIDTH, ascii: bool = False, tree: bool = False,
               depth: Optional[int] = None) -> str:
        if self.parts:
            return "\n\n".join(p.render(width, ascii, tree, depth) for p in self.parts)
        lines = wrap(self.summary, width)
        if tree or depth is not None:
            lines.extend(l for n in self.notes for l in _wrap_note(n, width))
            for title, t in self.trees:
                lines.append("")
                if title:
                    lines.extend(wrap(title, width))
                if isinstance(t, WhyNot):
                    text = t.render(depth or 3, ascii)
                else:
                    text = t.render(depth, ascii, width=width)
                lines.extend(fit(l, width, ascii) for l in text.split("\n"))
            return "\n".join(lines)
        notes = [l for n in self.notes for l in _wrap_note(n, width)]
        budget = self.max_lines - len(lines) - len(notes)
        if self.steps and budget >= 2:
            lines.append("deciding steps (the whole proof: --tree):" if self.trees else "deciding steps:")
            lines.extend(fit(l, width, ascii) for l in self._step_lines(budget - 1, ascii))
        lines.extend(notes)
        return "\n".join(lines)

    def _step_lines(self, budget: int, ascii: bool) -> list[str]:
        steps = self.steps[-budget:]           # the steps nearest the origin decide most
        out = []
        for s in steps:
            lines = [l for l in ([s.line, *s.repeat] if s.line is not None else [*s.through, *s.repeat])
                     if l is not None]
            lines = list(dict.fromkeys(lines))
            where = ""
            if lines:
                where = ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines[:4])) \
                    + (", ..." if len(lines) > 4 else "")
            text = f"  {where:<11} {s.fact}"
            if s.where:
                text += f"  {'<- ' if s.node.kind == 'derived' else ''}{s.where}"
            out.append(text)
        return out

    def __str__(self) -> str:
        return self.render()

    def to_dict(self) -> dict:
        """The answer as JSON-able data (what ``tilemem why --json`` prints, without the
        file's fields)."""
        d = {"question": self.question, "answer": self.summary,
             "steps": [s.to_dict() for s in self.steps], "notes": self.notes}
        d.update((k, _plain(v)) for k, v in self.data.items())
        if self.parts:
            d["answers"] = [p.to_dict() for p in self.parts]
        return d


def _plain(value):
    """A value of an answer's data as JSON: a proof tree or why-not (kept as objects until
    asked: a proof's JSON costs as much as finding it) by its ``to_dict``."""
    if isinstance(value, (ProofNode, WhyNot)):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
