"""Hand-written ``@pl.program`` classes -> the IR PyPTO's front end builds (spec:
dsl.md §1-§6; source: decorator.py, ast_parser.py).

The class is read by tilemem's own grammar (the syntax printed IR and hand-written
DSL share); this module gives that syntax PyPTO's front-end meaning, statement by
statement in source order, as PyPTO does:

* decorators give the function type and the level/role PyPTO derives from it; a
  first parameter ``self`` is dropped; ``pl.Out[...]``/``pl.InOut[...]`` set directions;
* every op spelling becomes the call PyPTO stores (``pl.load(x, off, shp)`` is
  ``pl.tile.load(x, off, shp, shp, target_memory=pl.Mem.Vec)``, see ``ops.txt``), every
  assignment gets the type PyPTO's deducers give it, merged with the annotation;
* names: a rebinding reuses the Var (non-SSA), loop vars, iter args, return vars and
  rebinding after a scope closed make new Vars; the names are then numbered as
  PyPTO's printer numbers them (:mod:`tilemem.ir.names`);
* comments are attached as PyPTO attaches them (:mod:`tilemem.frontend.comments`);
* functions are ordered as PyPTO's printer orders them (by name, callees first).

Nothing of the input is executed.  What PyPTO rejects is a :class:`DslError` with
PyPTO's message, turned into a positioned TilememError by :func:`read_class`.
"""
from __future__ import annotations

from tilemem import ir
from tilemem.errors import TilememError
from tilemem.frontend.comments import CommentQueue
from tilemem.frontend.dsl.context import ProgramContext, _bodies
from tilemem.frontend.dsl.functions import _is_function_decorator, read_function
from tilemem.frontend.dsl.values import CoreError, DslError


__all__ = ["read_class", "ProgramContext"]


# ----------------------------------------------------------------------------- programs

def _callees(fn: ir.Function) -> set[str]:
    out = set()
    stack = [fn.body]
    while stack:
        for s in stack.pop():
            for e in _stmt_exprs(s):
                for x in ir.subexpressions(e):
                    if type(x) is ir.Call and x.func.startswith("self."):
                        out.add(x.func[5:])
                    elif type(x) is ir.Dotted and len(x.parts) == 2 and x.parts[0] == "self":
                        out.add(x.parts[1])
            for b in _bodies(s):
                stack.append(b)
    return out


def _stmt_exprs(s):
    t = type(s)
    if t is ir.Assign:
        return [s.value]
    if t is ir.EvalStmt:
        return [s.expr]
    if t in (ir.Return, ir.Yield):
        return list(s.values)
    if t is ir.For:
        return [s.iter]
    if t in (ir.If, ir.While):
        return [s.cond]
    if t is ir.With:
        return [s.item]
    return []


def printed_order(functions: list) -> list:
    """PyPTO's printer order: by name, callees before callers; name order on a cycle
    (python_printer.cpp:2734-2793)."""
    by_name = {f.name: f for f in functions}
    names = sorted(by_name)
    deps = {n: sorted(c for c in _callees(by_name[n]) if c in by_name) for n in names}
    out, visited, busy = [], set(), set()

    def dfs(n) -> bool:
        if n in visited:
            return True
        if n in busy:
            return False
        busy.add(n)
        for d in deps[n]:
            if not dfs(d):
                return False
        busy.discard(n)
        visited.add(n)
        out.append(by_name[n])
        return True

    for n in names:
        if not dfs(n):
            return [by_name[x] for x in names]
    return out


def read_class(ctx: ProgramContext, cls_item, layout) -> ir.Program:
    """The program of one class (``("class", name, decorators, [RawFunction], ...)``)."""
    name_tok, raw_funcs = cls_item[1], cls_item[3]
    funcs = [rf for rf in raw_funcs if any(_is_function_decorator(d) for d in rf.decorators)]
    if not funcs:
        raise TilememError(ctx.path, name_tok.line, name_tok.column,
                           f"Class '{name_tok.value}' contains no @pl.function decorated methods", source=ctx.text)
    ctx.function_names = {rf.name.value for rf in funcs}
    starts = sorted(rf.deftok.line for rf in funcs)
    out = []
    for rf in funcs:
        start = rf.deftok.line
        later = [x for x in starts if x > start]
        end = later[0] - 1 if later else None
        queue = CommentQueue.for_lines(layout.comments, start, end)
        try:
            out.append(read_function(ctx, rf, queue, layout.line_ends, layout.stmt_ends))
        except DslError as e:
            line, col = (e.line, e.col) if e.line is not None else (rf.name.line, rf.name.column)
            message = e.message
            if isinstance(e, CoreError):         # parse_function's wrapper (AP: parse_function)
                message = f"Failed to parse function '{rf.name.value}': {message}"
            raise TilememError(ctx.path, line, col, message, source=ctx.text) from None
    dyn = sorted(ctx.declared)
    dynamic = [(n, ir.Call("pl.dynamic", (ir.StrConst(n, '"'),))) for n in dyn]
    prog = ir.Program(name_tok.value, printed_order(out), dynamic, "pl", None, name_tok.value,
                      reading="dsl", line=name_tok.line, col=name_tok.column)
    return prog
