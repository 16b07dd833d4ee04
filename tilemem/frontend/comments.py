"""Which statement a ``#`` comment belongs to, as PyPTO's front end decides it.

PyPTO keeps comments in its IR as the *leading comments* of statements and prints
each as a ``# text`` line above its statement (spec: dsl.md §3.4; source:
ast_parser.py:1245-1558, comment_extractor.py).  The rules, applied while the body
is read in source order:

* a method owns the comments from its ``def`` line to the line before the next
  method's ``def`` (the last method: to the end of the class);
* a simple statement takes every pending comment up to its last line: the ones
  above it, and the one trailing it (``x = f()  # note`` prints ``# note`` above
  ``x``);
* a compound statement (``for``/``if``/``while``/``with``) takes the comments on its
  header lines, and the ones above it whose column is left of its body's; the
  others above it and those between the header and the first body statement go to
  the first body statement;
* before every statement but the first of a block, pending comments above it that
  are indented deeper than it are dropped (they trail a closed inner block), and
  when a block ends, its pending comments at or deeper than the block's indent are
  dropped (PyPTO warns "Dropped N tail-of-block comment(s)");
* a statement that builds no IR (``pass``, a docstring or bare string, a
  ``pl.static_assert``) hands its comments, and a string's lines, on to the next one.

The text of ``# note`` is ``note`` (the ``#`` and at most one space removed); it
prints as ``# note``.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["CommentQueue", "comment_text"]


def comment_text(raw: str) -> str:
    """``'#  x '`` -> ``' x '``: the ``#`` and at most one following space removed."""
    text = raw[1:] if raw.startswith("#") else raw
    if text.startswith(" "):
        text = text[1:]
    return text


class CommentQueue:
    """The pending comments of one method: line -> [(0-based column, text)]."""

    def __init__(self, pending: dict[int, list[tuple[int, str]]]):
        self.pending = pending
        self.dropped: list[tuple[int, str]] = []      # tail-of-block comments PyPTO drops

    @classmethod
    def for_lines(cls, comments, first: int, last: Optional[int]) -> "CommentQueue":
        """The comments on lines ``first..last`` (``last`` None: to the end)."""
        pending: dict[int, list[tuple[int, str]]] = {}
        for line, col, raw in comments:
            if line >= first and (last is None or line <= last):
                pending.setdefault(line, []).append((col, comment_text(raw)))
        return cls(pending)

    def drain_simple(self, end_line: int) -> list[str]:
        """The comments a simple statement ending on ``end_line`` takes."""
        if not self.pending:
            return []
        out: list[str] = []
        for line in sorted(k for k in self.pending if k <= end_line):
            out.extend(text for _c, text in self.pending.pop(line))
        return out

    def drain_compound(self, line: int, header_end: int, body_line: int, body_col: int) -> list[str]:
        """The comments a compound statement on ``line`` (header to ``header_end``) takes,
        its first body statement being at ``body_line``/``body_col``."""
        if not self.pending:
            return []
        out: list[str] = []
        for ln in sorted(k for k in self.pending if k <= body_line - 1):
            if line <= ln <= header_end:
                out.extend(text for _c, text in self.pending.pop(ln))
                continue
            if ln > header_end:
                continue
            out.extend(self._take(ln, lambda c: c < body_col))
        return out

    def requeue_after(self, end_line: int, col: int, texts: list[str]) -> None:
        """Comments of a statement that built nothing go to the line after it."""
        if not texts:
            return
        nxt = end_line + 1
        self.pending[nxt] = [(col, t) for t in texts] + self.pending.get(nxt, [])

    def discard_tail(self, block_line: int, block_col: int, upper_line: Optional[int]) -> None:
        """A block (first statement at ``block_line``/``block_col``) ended: drop its
        pending comments up to ``upper_line`` (None: all later ones)."""
        if self.pending:
            self._drop([k for k in self.pending
                        if k >= block_line and (upper_line is None or k <= upper_line)],
                       lambda c: c >= block_col)

    def discard_stale_before(self, line: int, col: int) -> None:
        """Before a later sibling at ``line``/``col``: drop comments above it that are
        indented deeper (they trailed an inner block that has closed)."""
        if self.pending:
            self._drop([k for k in self.pending if k < line], lambda c: c > col)

    def _drop(self, lines: list[int], inside) -> None:
        """Drop the pending comments of ``lines`` whose column ``inside`` accepts (they
        belonged to a block that has closed)."""
        for ln in sorted(lines):
            self.dropped.extend((ln, text) for text in self._take(ln, inside))

    def _take(self, ln: int, taken) -> list[str]:
        """Remove the pending comments of line ``ln`` whose column ``taken`` accepts and
        return their texts, in order; the others stay pending."""
        out, kept = [], []
        for col, text in self.pending[ln]:
            if taken(col):
                out.append(text)
            else:
                kept.append((col, text))
        if kept:
            self.pending[ln] = kept
        else:
            del self.pending[ln]
        return out


# ----------------------------------------------------------------------------- statements

def bodies(s) -> list:
    """The statement lists nested in ``s`` (then, else; a loop's or scope's body)."""
    from tilemem import ir
    t = type(s)
    if t is ir.If:
        return [s.then_body] + ([s.else_body] if s.else_body else [])
    if t in (ir.For, ir.While, ir.With):
        return [s.body]
    return []


def col0(node) -> int:
    return (getattr(node, "col", None) or 1) - 1


class Extents:
    """The lines PyPTO reads off Python's ast for a statement (lineno, end_lineno, the
    header's last line), from the grammar's logical-line extents and the source lines."""

    def __init__(self, line_ends: dict, lines: list[str], stmt_ends: Optional[dict] = None):
        self.line_ends = line_ends
        self.lines = lines
        self.stmt_ends = stmt_ends or {}    # the statements of `;` lines (SourceLayout)

    def end(self, s) -> int:
        b = bodies(s)
        if b and b[-1]:
            return self.end(b[-1][-1])
        line = s.line or 1
        if self.stmt_ends:
            # one of several simple statements on a line: its own last line (the one
            # starting last at or before it: an inline body's first statement is
            # recorded at its header's first token)
            col = s.col or 1
            for c, end in reversed(self.stmt_ends.get(line, ())):
                if c <= col:
                    return end
        return self.line_ends.get(line, line)

    def header_end(self, s) -> int:
        line = s.line or 1
        return self.line_ends.get(line, line)

    def then_upper(self, s) -> int:
        """The then branch's last line: the line before ``else:`` (ast_parser.py:1339)."""
        if not s.else_body:
            return self.end(s)
        start = self.end(s.then_body[-1]) + 1 if s.then_body else (s.line or 1) + 1
        stop = s.else_body[0].line or start
        for ln in range(start, stop):
            if 0 <= ln - 1 < len(self.lines):
                st = self.lines[ln - 1].lstrip()
                if st.startswith("else") and st[4:5] in (":", " ", "\t"):
                    return ln - 1
        return stop - 1

    def drain(self, queue: CommentQueue, s) -> list[str]:
        """The comments statement ``s`` takes (simple or compound, see the module doc)."""
        b = bodies(s)
        if b and b[0]:
            first = b[0][0]
            return queue.drain_compound(s.line or 1, self.header_end(s), first.line or 1, col0(first))
        return queue.drain_simple(self.end(s))

    def tail_of(self, s, i: int) -> Optional[int]:
        """The last line of ``s``'s i-th body, for the tail-of-block sweep."""
        from tilemem import ir
        if type(s) is ir.If and i == 0:
            return self.then_upper(s)
        return self.end(s)


def attach_comments(program, layout, text: str) -> None:
    """Re-attach the comments of printed IR as PyPTO's front end does (both readings agree;
    only the DSL reading also turns bare strings into comments and builds new statements).
    ``layout``: the parser's SourceLayout."""
    from tilemem import ir
    if not layout.comments:
        return
    from bisect import bisect_right
    from tilemem.ir.walk import statements
    ext = Extents(layout.line_ends, text.splitlines(), layout.stmt_ends)
    starts = sorted(f.line for f in program.functions if f.line)
    for fn in program.functions:
        fn.comments = []            # above a def or on its decorators: never printed
        k = bisect_right(starts, fn.line or 0)       # the next function's def line
        q = CommentQueue.for_lines(layout.comments, fn.line or 1, starts[k] - 1 if k < len(starts) else None)
        if not q.pending:
            # no comment in the method: none to attach (the walk below would leave every
            # statement's list empty; most methods of a large program have none)
            for s, _ in statements(fn.body):
                if s.comments:
                    s.comments = []
            continue

        def walk(stmts):
            for i, s in enumerate(stmts):
                if i > 0:
                    q.discard_stale_before(s.line or 1, col0(s))
                leading = ext.drain(q, s)
                if type(s) is ir.Pass:
                    s.comments = []
                    q.requeue_after(ext.end(s), col0(s), leading)
                else:
                    s.comments = ["# " + t for t in leading]
                for k, b in enumerate(bodies(s)):
                    walk(b)
                    if b:
                        q.discard_tail(b[0].line or 1, col0(b[0]), ext.tail_of(s, k))

        walk(fn.body)
        # walk refers to itself (a cycle, left to the collector, which a solve pauses):
        # broken here, or the source's lines (ext) stay alive through the whole solve
        del walk
        if fn.body:
            q.discard_tail(fn.body[0].line or 1, col0(fn.body[0]), None)
