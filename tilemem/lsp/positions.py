"""tilemem's positions (1-based lines, 1-based character columns) as LSP positions
(0-based lines, UTF-16 code units: the protocol's default encoding), and back."""
from __future__ import annotations

from typing import Optional

from lsprotocol import types


def _units(s: str) -> int:
    """The length of ``s`` in UTF-16 code units."""
    return len(s) if s.isascii() else len(s.encode("utf-16-le")) // 2


def _line(lines: list[str], line: int) -> str:
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def position(lines: list[str], line: int, col: int) -> types.Position:
    """The LSP position of ``line:col`` (both 1-based; col in characters)."""
    text = _line(lines, line)
    return types.Position(line=max(line - 1, 0), character=_units(text[:max(col - 1, 0)]))


def char_col(lines: list[str], pos: types.Position) -> tuple[int, int]:
    """(1-based line, 0-based character column) of an LSP position."""
    text = _line(lines, pos.line + 1)
    if text.isascii():
        return pos.line + 1, min(pos.character, len(text))
    units = 0
    for i, ch in enumerate(text):
        if units >= pos.character:
            return pos.line + 1, i
        units += 2 if ord(ch) > 0xFFFF else 1
    return pos.line + 1, len(text)


def span_range(lines: list[str], line: Optional[int], col: Optional[int],
               length: Optional[int] = None) -> types.Range:
    """The range of ``length`` characters at ``line:col``; without a column the
    statement on the line (first non-blank to the end); without a line, line 1."""
    line = line or 1
    text = _line(lines, line)
    if col is None:
        start = len(text) - len(text.lstrip()) + 1
        end = len(text) + 1
    else:
        start = col
        if length is None:           # to the end of the word at col
            i = col - 1
            while i < len(text) and (text[i].isalnum() or text[i] == "_"):
                i += 1
            length = max(i - (col - 1), 1)
        end = col + length
    return types.Range(start=position(lines, line, start), end=position(lines, line, end))


def whole_document(text: str) -> types.Range:
    """The range of the whole text."""
    lines = text.split("\n")          # the last item: what follows the last newline
    return types.Range(start=types.Position(line=0, character=0),
                       end=types.Position(line=len(lines) - 1, character=_units(lines[-1])))
