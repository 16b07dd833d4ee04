"""What the functions of one ``@pl.program`` class share (:class:`ProgramContext`), the
DSL's enum members (function types, levels, roles), and the HOST SubWorker bodies PyPTO
keeps as Python text."""
from __future__ import annotations

import ast
from typing import Optional

from tilemem import ir
from tilemem.frontend.comments import bodies, col0
from tilemem.frontend.dsl.values import Var
from tilemem.frontend.pysource import ModuleScope, ProgramSite



# the FunctionType and Level members (the (level, role) PyPTO's Function constructor derives,
# function.h:547-569, is ir.DERIVED_LEVEL_ROLE)
FUNCTION_TYPES = ("Opaque", "Orchestration", "InCore", "AIC", "AIV", "Group", "Spmd", "Inline", "Graph")
LEVELS = ("AIV", "AIC", "CORE_GROUP", "CHIP_DIE", "CHIP", "HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL")
# the readability aliases of pl.Level (include/pypto/ir/function.h): the same enum values,
# printed by their primary names
LEVEL_ALIASES = {"L2CACHE": "CHIP_DIE", "PROCESSOR": "CHIP", "UMA": "CHIP", "NODE": "HOST", "POD": "CLUSTER_0",
                 "CLOS1": "CLUSTER_1", "CLOS2": "CLUSTER_2"}
ROLES = ("Orchestrator", "SubWorker")
# the call-site direction markers pl.adir.X (python/pypto/language/arg_direction.py NAME_TO_DIRECTION)
ARG_DIRECTIONS = ("input", "output", "output_existing", "inout", "no_dep", "scalar")
_HOST_LEVELS = ("HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL")     # LevelToLinquLevel >= 3
_LOOP_KINDS = ("range", "parallel", "unroll", "pipeline")
_ITERATORS = ("range", "parallel", "unroll", "pipeline", "while_", "spmd", "split_aiv")
_ITER_ERR = ("For loop must use pl.range(), pl.parallel(), pl.unroll(), pl.pipeline(), pl.while_(), "
             "pl.spmd(), or pl.split_aiv()")


class ProgramContext:
    """What the functions of one program share."""

    def __init__(self, path: str, text: str, scope: ModuleScope, site: Optional[ProgramSite],
                 declared_ops: frozenset = frozenset()):
        self.path = path
        self.text = text
        self.lines = text.splitlines()
        self.scope = scope
        self.constants = dict(site.constants if site is not None else scope.constants)
        self.strict_ssa = bool(site and site.strict_ssa)
        self.dynamics: dict[str, Var] = {}            # pl.dynamic symbols of the program
        self.rebound: set[str] = set()                # symbols a scalar parameter has become
        self.declared: set[str] = set()               # symbols the printer declares (pl.dynamic lines)
        self.signatures: dict[str, tuple] = {}        # function -> (param count, return types)
        self.function_names: set[str] = set()
        self.window_buffers: set[str] = set()          # pld.alloc_window_buffer names (unique per program)
        self.roles: dict[str, Optional[str]] = {}       # function read so far -> its role
        self.declared_ops = declared_ops
        # HOST SubWorker bodies PyPTO keeps as Python text (python_bodies)
        self.python_bodies = python_bodies(site.node) if site is not None and site.node is not None else {}
        self.comprehensions: dict = {}                # placeholder -> a with header's comprehension


_bodies = bodies
_col0 = col0


def _is_yield_call(e) -> bool:
    return type(e) is ir.Call and e.func.rsplit(".", 1)[-1] == "yield_" and "." in e.func


def _pl_call(e, name: str) -> bool:
    return type(e) is ir.Call and e.func.count(".") == 1 and e.func.rsplit(".", 1)[-1] == name


def _pld_call(e, name: str) -> bool:
    """``pld.NAME(...)`` or ``pld.<category>.NAME(...)``, on the literal ``pld.`` prefix
    (AP:140-165)."""
    if type(e) is not ir.Call:
        return False
    parts = e.func.split(".")
    return parts[0] == "pld" and parts[-1] == name and len(parts) in (2, 3)


def _str_stmt(s) -> bool:
    return type(s) is ir.EvalStmt and type(s.expr) is ir.StrConst


def _host_subworker(m: ast.FunctionDef) -> bool:
    """``@pl.function(level=<HOST or above>, role=pl.Role.SubWorker)`` on a method, read from
    Python's syntax tree (decorator.py: LevelToLinquLevel(level) >= 3 and role SubWorker)."""
    for d in m.decorator_list:
        if not (isinstance(d, ast.Call) and isinstance(d.func, (ast.Attribute, ast.Name))
                and getattr(d.func, "attr", getattr(d.func, "id", None)) == "function"):
            continue
        kw = {k.arg: k.value.attr for k in d.keywords if isinstance(k.value, ast.Attribute)}
        level = LEVEL_ALIASES.get(kw.get("level"), kw.get("level"))
        return level in _HOST_LEVELS and kw.get("role") == "SubWorker"
    return False


def _abstract_body(body: list) -> bool:
    """Only ``...`` after a docstring and ``pl.func_attr(...)`` lines: an abstract SubWorker
    (decorator.py _is_abstract_subworker_body); a bare ``pass`` is a concrete body."""
    rest = [s for s in body if not _is_docstring(s) and not _is_func_attr(s)]
    return len(rest) == 1 and isinstance(rest[0], ast.Expr) and isinstance(rest[0].value, ast.Constant) \
        and rest[0].value.value is Ellipsis


def python_bodies(cls: ast.ClassDef) -> dict:
    """The methods of a program class whose body PyPTO keeps as Python source: a HOST
    SubWorker's concrete body is not DSL; PyPTO carries it, unparsed statement by statement
    (``ast.unparse``: comments gone, PyPTO's Python's spelling), as one InlineStmt that its
    printer prints line by line (decorator.py _capture_subworker_source; python_printer.cpp
    InlineStmt).  name -> (first line after the prologue or None, last line, body text).
    Nothing of it runs."""
    out = {}
    for m in cls.body:
        if isinstance(m, ast.FunctionDef) and m.body and _host_subworker(m) and not _abstract_body(m.body):
            if m.body[0].lineno <= m.lineno:            # a body on the def line stays with the DSL reading
                continue
            # the prologue (a docstring, pl.func_attr(...) lines) stays visible: its attrs are the
            # function's, as for any function; the text still holds it (AP:1069-1101)
            i = 1 if _is_docstring(m.body[0]) else 0
            while i < len(m.body) and _is_func_attr(m.body[i]):
                i += 1
            first = m.body[i].lineno if i < len(m.body) else None
            out[m.name] = (first, m.end_lineno, "\n".join(ast.unparse(x) for x in m.body))
    return out


def _is_docstring(s) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def _is_func_attr(s) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
        isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "func_attr"
