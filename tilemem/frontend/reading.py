"""Which reading a text gets, and the entry point of the front end.

PyPTO's printed IR and hand-written DSL are one syntax with two readings (spec:
dsl.md §10):

* **printed IR** -- text PyPTO's printer wrote, which always begins with its header
  ``# pypto.program: NAME``.  It stands for an IR that exists: what is not printed is
  absent (a ``pl.tile.load`` printed without ``target_memory`` is a compiler-built load
  whose space the pass decides).  Read by :mod:`tilemem.frontend.parser` as it is.
* **hand-written DSL** -- everything else: a ``.py`` module or a ``.pto`` file holding
  ``@pl.program`` classes as people write them.  It stands for what PyPTO's front end
  builds from it (``pl.load(x, off, shp)`` is a Vec load with every default filled in),
  read by :mod:`tilemem.frontend.dsl`.

The rule: a text whose first non-blank line starts with ``# pypto.program:`` is printed
IR, any other text is DSL; ``form="ir"`` / ``form="dsl"`` (``--input-form``) overrides.
A DSL file may hold several programs (``--program NAME`` picks one).
"""
from __future__ import annotations

import functools
import re
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Collection, Optional, Sequence

from tilemem import ir
from tilemem.errors import TilememError

__all__ = ["FORMS", "input_form", "read_programs", "read_program", "declared_ops", "HEADER",
           "may_hold_programs"]

HEADER = "# pypto.program:"
FORMS = ("ir", "dsl")


def input_form(text: str, form: Optional[str] = None) -> str:
    """``"ir"`` or ``"dsl"``: ``form`` when given, else by the printer header."""
    if form is not None and form != "auto":
        if form not in FORMS:
            raise ValueError(f"unknown input form {form!r} (expected ir or dsl)")
        return form
    for line in text.splitlines():
        s = line.strip().lstrip("\ufeff")
        if not s:
            continue
        return "ir" if s.startswith(HEADER) else "dsl"
    return "ir"


# a module that may hold a program class: `@pl.program`, `@pypto.language.program(...)`
_PROGRAM_DECORATOR = re.compile(r"@\s*[\w.]*\bprogram\b")


def may_hold_programs(text: str) -> bool:
    """Whether a Python module may hold a ``@pl.program`` class (a quick look at its text:
    tools that see every ``.py`` file of a project, an editor or a pre-commit hook, skip
    the modules that cannot)."""
    return bool(_PROGRAM_DECORATOR.search(text))


def _masked(text: str, keep: list[tuple[int, int]], python: Optional[dict] = None) -> str:
    """``text`` with every line outside the ``keep`` ranges (1-based, inclusive) blanked,
    so that positions stay those of the file; a ``python`` body (name -> (first, last, _):
    Python the DSL reading does not read, see ``python_bodies``) becomes one ``...`` line
    at its first line's indentation."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines, 1):
        out.append(line if any(a <= i <= b for a, b in keep) else "")
    for first, last, _ in (python or {}).values():
        if first is None:               # nothing after the prologue
            continue
        line = out[first - 1]
        out[first - 1] = line[:len(line) - len(line.lstrip())] + "..."
        for i in range(first, last):
            out[i] = ""
    return "\n".join(out)


def _without_loop_else(text: str, node) -> str:
    """``text`` with the ``else:`` clause of every ``for`` and ``while`` loop of the class
    blanked: PyPTO's parser never reads a loop's ``orelse`` (only an ``if``'s, AP:3469-3491),
    so the clause is dropped, comments and errors in it included."""
    import ast
    import re
    spans = []
    for n in ast.walk(node):
        if isinstance(n, (ast.For, ast.While, ast.AsyncFor)) and n.orelse:
            body_end = n.body[-1].end_lineno or n.body[-1].lineno
            spans.append((body_end, n.orelse[0].lineno, n.orelse[-1].end_lineno or n.orelse[-1].lineno,
                          n.col_offset))
    if not spans:
        return text
    lines = text.split("\n")
    for body_end, first, last, col in spans:
        start = next((i for i in range(body_end + 1, first + 1)
                      if re.match(r"else\s*:", lines[i - 1][col:]) and not lines[i - 1][:col].strip()), None)
        if start is None:
            continue
        for i in range(start, last + 1):
            lines[i - 1] = ""
    return "\n".join(lines)


COMPREHENSION = "__lc{}__"


def _header_comprehensions(text: str, node) -> tuple[str, dict]:
    """``text`` with each list comprehension of a ``with`` header (``with pl.at(...,
    deps=[tids[k] for k in range(K)]):``) replaced by a placeholder name of no more
    characters, padded with spaces (positions stay the file's), and the placeholders'
    comprehensions as tilemem's IR (``__listcomp__`` calls).  tilemem's grammar reads no
    comprehension; one in a simple statement reaches the reader as that statement's
    Python text, one in a compound statement's header through this."""
    import ast
    comps = [c for n in ast.walk(node) if isinstance(n, (ast.With, ast.AsyncWith))
             for item in n.items for c in ast.walk(item.context_expr) if isinstance(c, ast.ListComp)]
    if not comps:
        return text, {}
    from tilemem.frontend.dsl.pyline import comprehension_ir
    lines = text.split("\n")
    out: dict = {}
    outer = [c for c in comps if not any(o is not c and _inside(c, o) for o in comps)]
    for k, c in enumerate(outer):
        name = COMPREHENSION.format(k)
        first, last = c.lineno - 1, (c.end_lineno or c.lineno) - 1
        a, b = _char_col(lines[first], c.col_offset), _char_col(lines[last], c.end_col_offset)
        if first == last and b - a < len(name):
            continue                    # cannot happen: a comprehension is longer than the name
        if first == last:
            lines[first] = lines[first][:a] + name.ljust(b - a) + lines[first][b:]
        else:
            lines[first] = lines[first][:a] + name.ljust(len(lines[first]) - a)
            for i in range(first + 1, last):
                lines[i] = ""
            lines[last] = " " * b + lines[last][b:]
        out[name] = comprehension_ir(c)
    return "\n".join(lines), out


def _inside(c, o) -> bool:
    return (o.lineno, o.col_offset) <= (c.lineno, c.col_offset) and \
        (c.end_lineno, c.end_col_offset) <= (o.end_lineno, o.end_col_offset)


def _char_col(line: str, col_bytes: int) -> int:
    """The character index of a UTF-8 byte column (Python's ast columns are bytes)."""
    if line.isascii():
        return col_bytes
    return len(line.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))


def _class_ranges(site) -> list[tuple[int, int]]:
    """The lines of the class that tilemem's grammar reads: decorators, header and the
    ``@pl.function`` methods (PyPTO ignores every other class member)."""
    import ast
    node = site.node
    first_body = node.body[0]
    first_body_line = min([first_body.lineno] + [d.lineno for d in getattr(first_body, "decorator_list", [])])
    keep = [(site.first_line, first_body_line - 1)]
    for m in node.body:
        if isinstance(m, ast.FunctionDef) and _has_function_decorator(m):
            start = min([m.lineno] + [d.lineno for d in m.decorator_list])
            keep.append((start, m.end_lineno or m.lineno))
    return keep


def _has_function_decorator(m) -> bool:
    import ast
    for d in m.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        if isinstance(f, ast.Attribute) and f.attr == "function":
            return True
        if isinstance(f, ast.Name) and f.id == "function":
            return True
    return False


def declared_ops(rules: Sequence[str] = ()) -> frozenset:
    """The ops declared (``op`` facts) by extra rule files and not by the shipped op table:
    the ops of the user's that the DSL reading accepts as ``pl.tile.NAME(...)``."""
    return _declared_ops(tuple(rules))


@functools.lru_cache(maxsize=8)
def _declared_ops(rules: tuple) -> frozenset:
    if not rules:
        return frozenset()
    from tilemem.infer.solver import load_rules

    def ops(rs):
        return {r[0] for r in load_rules(rs).fact_rows.get("op", ()) if r and isinstance(r[0], str)}
    # only the files' own ops: an op of the shipped table that the DSL reading does not
    # know stays an error (its signature and type rule are not in the table)
    return frozenset(ops(rules) - ops(()))


def read_programs(text: str, path: str = "<input>", form: Optional[str] = None,
                  program: Optional[str] = None, declared_ops: Collection[str] = (),
                  limits=None) -> list[ir.Program]:
    """Every program of the text (one for printed IR), or only ``program``.

    ``limits``: the input caps (:class:`tilemem.limits.Limits`; default: the defaults)."""
    if not isinstance(text, str):
        raise TilememError(path, None, None, f"expected program text (str), got {type(text).__name__}")
    if input_form(text, form) == "ir":
        from tilemem.frontend.parser import parse
        prog = parse(text, path, limits)
        # printed text is re-deduced, not believed (the op table, the type rules); a
        # large program's check may run on a spare core while it is solved
        from tilemem.frontend.check.alongside import check_alongside
        ops = frozenset(declared_ops)
        if not check_alongside(prog, path, text, ops):
            from tilemem.frontend.check import check_printed
            check_printed(prog, path, text, ops)
        if program is not None and prog.name != program:
            raise TilememError(path, None, None, f"no program named '{program}' (the file holds '{prog.name}')")
        return [prog]
    from tilemem.frontend.dsl.program import ProgramContext, read_class
    from tilemem.frontend.parser import parse_syntax
    from tilemem.frontend.pysource import scan_module
    from tilemem.limits import check_text
    check_text(text, path, limits)
    if not text.strip():
        raise TilememError(path, 1, 1, "empty input: expected a `@pl.program` class", source=text)
    scope, sites = scan_module(text, path)
    if not sites:
        raise TilememError(path, 1, 1, "no @pl.program class in this file", source=text)
    if program is not None:
        chosen = [s for s in sites if s.name == program]
        if not chosen:
            names = ", ".join(s.name for s in sites)
            raise TilememError(path, None, None, f"no program named '{program}' (the file holds: {names})")
        sites = chosen
    from tilemem.frontend.pysource import FAILED
    out = []
    for site in sites:
        import ast
        # a statement Python fails on (text_parser.py:263-277): one above the class (or any
        # module statement, for a class in a function) before the class is read, one
        # below a module-level class once it is read
        failed = site.constants.get(FAILED) or scope.failed
        later = failed is not None and site.indent == 0 and failed[0] > site.last_line
        if failed is not None and not later:
            raise TilememError(path, failed[0], 1, failed[1], source=text)
        if not any(isinstance(m, ast.FunctionDef) and _has_function_decorator(m) for m in site.node.body):
            raise TilememError(path, site.node.lineno, site.node.col_offset + 1,
                               f"Class '{site.name}' contains no @pl.function decorated methods", source=text)
        ctx = ProgramContext(path, text, scope, site, frozenset(declared_ops))
        masked = _without_loop_else(_masked(text, _class_ranges(site), ctx.python_bodies), site.node)
        masked, ctx.comprehensions = _header_comprehensions(masked, site.node)
        items, layout = parse_syntax(masked, path, indented=site.indent > 0, limits=limits)
        cls = next(it for it in items if it[0] == "class")
        out.append(read_class(ctx, cls, layout))
        if later:
            raise TilememError(path, failed[0], 1, failed[1], source=text)
    return out


def read_program(text: str, path: str = "<input>", form: Optional[str] = None,
                 program: Optional[str] = None, declared_ops: Collection[str] = (),
                 limits=None) -> ir.Program:
    """The one program of the text (an error names the programs when there are several)."""
    progs = read_programs(text, path, form, program, declared_ops, limits)
    if len(progs) > 1:
        names = ", ".join(p.name for p in progs)
        raise TilememError(path, None, None,
                           f"{len(progs)} programs in this file ({names}); choose one with --program NAME "
                           "(program=NAME in the library)")
    return progs[0]
