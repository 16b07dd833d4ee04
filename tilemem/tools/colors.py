"""Colours: the one memory-space palette, and ANSI styling on terminals.

The palette (``SPACE_COLORS``) is used by every picture (DOT, SVG, HTML) and, mapped
to the nearest xterm-256 colour, by text on a terminal, so ``Vec`` is the same green
everywhere.  Whether text gets colour follows the usual conventions:
``--color always|never`` first, then ``NO_COLOR`` (set and non-empty: no colour),
then ``FORCE_COLOR`` (set and non-empty: colour), then ``auto``: colour only when the
stream is a terminal and ``TERM`` is not ``dumb``.
"""
from __future__ import annotations

import os
import re
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Mapping, Optional

# Fill colours per memory space (ColorBrewer Set3/Pastel-like, readable with black text).
SPACE_COLORS = {
    "Vec": "#b3e2cd",
    "Mat": "#a6cee3",
    "Left": "#fdbf6f",
    "Right": "#fb9a99",
    "Acc": "#cab2d6",
    "Bias": "#ffff99",
    "DDR": "#e5e5e5",
}
SPACE_ORDER = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "DDR")
UNRESOLVED_COLOR = "#ffffff"
OTHER_COLOR = "#d9d9d9"
MOVE_PEN = "#d62728"       # border of inserted moves (red)
HOIST_PEN = "#1f77b4"      # border of hoisted statements (blue)
HOVER_PEN = "#ff7f0e"      # highlight of a hovered or found node and its edges (orange)

COLOR_MODES = ("auto", "always", "never")


def space_color(space: Optional[str]) -> str:
    if space is None:
        return UNRESOLVED_COLOR
    return SPACE_COLORS.get(space, OTHER_COLOR)


def use_color(mode: str = "auto", stream=None, env: Optional[Mapping[str, str]] = None,
              data: bool = False) -> bool:
    """Whether to colour text written to ``stream`` (see the module docstring).

    ``data``: the text is the command's data (a program, a diff), which a redirection
    must get unchanged: ``FORCE_COLOR`` does not colour it off a terminal (only
    ``--color always`` does)."""
    env = os.environ if env is None else env
    if mode == "always":
        return True
    if mode == "never":
        return False
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR") and not data:
        return True
    if env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):      # a closed stream
        return False


def _xterm256(hex_color: str) -> int:
    """The xterm-256 colour cube index nearest to ``#rrggbb``."""
    levels = (0, 95, 135, 175, 215, 255)
    rgb = [int(hex_color[i:i + 2], 16) for i in (1, 3, 5)]
    idx = [min(range(6), key=lambda k: abs(levels[k] - c)) for c in rgb]
    return 16 + 36 * idx[0] + 6 * idx[1] + idx[2]


class Style:
    """ANSI styling that is a no-op when colour is off (``Style(False)``)."""

    CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33",
             "blue": "34", "magenta": "35", "cyan": "36"}
    SEVERITY = {"error": "red", "warning": "yellow", "note": "cyan"}

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not text or not styles:
            return text
        codes = ";".join(self.CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def space(self, text: str, space: str) -> str:
        """``text`` on the background colour of memory space ``space`` (black letters)."""
        if not self.enabled or space not in SPACE_COLORS:
            return text
        return f"\x1b[30;48;5;{_xterm256(SPACE_COLORS[space])}m{text}\x1b[0m"

    # ``pl.Mem.Vec`` / ``pl.MemorySpace.Vec`` in printed programs
    _MEM = re.compile(r"\bpl\.(?:Mem|MemorySpace)\.(" + "|".join(SPACE_ORDER) + r")\b")

    def program(self, text: str) -> str:
        """A printed program with every memory-space token on its space's colour."""
        if not self.enabled:
            return text
        return self._MEM.sub(lambda m: self.space(m.group(0), m.group(1)), text)

    def diff(self, text: str) -> str:
        """A unified diff: headers bold, removed lines red, added lines green."""
        if not self.enabled:
            return text
        out = []
        for line in text.splitlines(keepends=True):
            body, nl = (line[:-1], "\n") if line.endswith("\n") else (line, "")
            if line.startswith(("---", "+++")):
                body = self(body, "bold")
            elif line.startswith("@@"):
                body = self(body, "cyan")
            elif line.startswith("-"):
                body = self(body, "red")
            elif line.startswith("+"):
                body = self(body, "green")
            out.append(body + nl)
        return "".join(out)
