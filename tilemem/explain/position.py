"""Why each tile a line of the input decides is where it is (``tilemem why FILE LINE``,
``FILE:LINE:COL``): the tiles defined or given a space there, the moves inserted
before it, the tiles residency considers there."""
from __future__ import annotations

import re
from typing import Optional

from tilemem.explain.names import program_vars
from tilemem.explain.nodes import ExplainError
from tilemem.explain.paragraph import elide_tokens
from tilemem.explain.placement import answer_move, answer_var
from tilemem.explain.rendering import Answer

_POSITION = re.compile(r"^(\d+)(?::(\d+))?$")


def parse_position(subject) -> Optional[tuple[int, Optional[int]]]:
    """(line, column or None) when ``subject`` names a position of the input: an int,
    ``"12"`` or ``"12:8"``; None for anything else (a var, a pattern)."""
    if isinstance(subject, bool):
        return None
    if isinstance(subject, int):
        return subject, None
    m = _POSITION.match(str(subject).strip())
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None


def tiles_at_line(ses, line: int, col: Optional[int] = None) -> list[tuple[str, str]]:
    """What line ``line`` of the input decides, in program order: ("var", var id) for each
    tile defined, or given a space, there (a loop's iter-args, return vars and inits at
    its line, a branch's return vars at its ``if``), ("move", name) for each move the
    pass inserts before it, and the tiles residency hoists from there.  With ``col``,
    only those whose name covers that column, when some does."""
    x = ses.phase3()
    out: list[tuple[str, str]] = []
    for vid, q in sorted(x.rel.rows("site"), key=lambda r: (r[1], r[0])):
        d = x.source.describe_pos(q)
        if d is not None and d["line"] == line and ses.var_kind(vid) == "tile" \
                and ("var", vid) not in out:
            out.append(("var", vid))
    for fn, name, _, at in program_vars(ses.program):       # where the text writes it
        vid = f"{fn}:{name}"
        if at == line and vid in ses.facts.vars and ses.var_kind(vid) == "tile" \
                and ("var", vid) not in out:
            out.append(("var", vid))
    for m in ses.moves:
        if m.consumer_line == line:
            out.append(("move", f"{m.function}:{m.name}"))
    for d in ses.residency or ():
        vid = f"{d.function}:{d.var}"
        if line in (d.line, d.loop_line) and ("var", vid) not in out:
            out.append(("var" if vid in ses.facts.vars else "move", vid))
    if col is not None:
        src = x.source.lines
        text = src[line - 1] if src and 1 <= line <= len(src) else ""
        def names_of(kind: str, vid: str) -> list[str]:     # a move: its producer's name too
            fn, _, name = vid.partition(":")
            m = ses.move_of(name, fn) if kind == "move" else None
            return [name] + ([m.producer] if m is not None else [])
        hit = [(k, v) for k, v in out if any(_covers(text, n, col) for n in names_of(k, v))]
        out = hit or out
    return out


def _covers(text: str, name: str, col: int) -> bool:
    """Whether a whole-word occurrence of ``name`` on the line covers 1-based ``col``."""
    for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)", text):
        if m.start() < col <= m.end():
            return True
    return False


def answer_line(ses, line: int, col: Optional[int] = None) -> Answer:
    """Why each tile line ``line`` decides is where it is (see :func:`tiles_at_line`):
    one answer a tile, in program order."""
    lines = ses.phase3().source.lines
    if not 1 <= line <= len(lines or ()):
        raise ExplainError(f"line {line} is not in the input (it has {len(lines or ())} lines)")
    found = tiles_at_line(ses, line, col)
    where = f"line {line}" + (f":{col}" if col else "")
    if not found:
        text = (lines[line - 1].strip() if lines else "")
        return Answer(f"why {where}", f"Line {line} defines, moves or hoists no tile of an "
                      f"InCore function" + (f" (`{elide_tokens(text, 60)}`)." if text else "."),
                      data={"line": line, "column": col})
    parts = []
    for kind, vid in found:
        if kind == "move":
            fn, _, name = vid.partition(":")
            m = ses.move_of(name, fn)
            parts.append(answer_move(ses, m) if m is not None else answer_var(ses, vid))
        else:
            parts.append(answer_var(ses, vid))
    return Answer(f"why {where}", " ".join(p.summary for p in parts), parts=parts,
                  data={"line": line, "column": col})
