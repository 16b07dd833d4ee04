"""Find the ``@pl.program`` classes of a Python module without running it.

Hand-written kernels live in ``.py`` files (or ``.pto`` files holding the same
Python): a module with imports, helpers, tests and one or more ``@pl.program``
classes, at module level or nested inside functions and test methods.  PyPTO
executes the module to find them; tilemem only reads it with Python's own ``ast``
module (``ast.parse`` builds a syntax tree and runs nothing), to learn

* where each program class is (its lines, its indentation), so that the class can
  be read by tilemem's grammar with positions in the user's file;
* the module-level names PyPTO's front end would resolve while reading a program:
  the alias of ``pypto.language`` (``import pypto.language as pl``), integer
  constants (``N = 64``, ``M = N * 2``: folded), lists of them (``SHAPE = [16, 16]``)
  and dynamic dims (``M = pl.dynamic("M")``).  Anything else at module level is
  ignored: it is Python around the kernels, not part of them.
"""
from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field
from typing import Optional, Union

from tilemem.errors import TilememError

__all__ = ["ProgramSite", "ModuleScope", "scan_module"]


@dataclass
class ProgramSite:
    """One ``@pl.program`` class: its name, decorator and class lines (1-based,
    inclusive), the column of ``class``/``@`` and the keyword arguments of the
    decorator (``strict_ssa``)."""
    name: str
    first_line: int          # the first decorator line
    last_line: int           # the class's last line
    indent: int              # column (0-based) of the decorator
    strict_ssa: bool = False
    node: Optional[ast.ClassDef] = field(default=None, repr=False)
    # names bound around the class in enclosing functions (their constants)
    local_constants: dict = field(default_factory=dict)


Constant = Union[int, float, bool, str, list, "Dynamic"]


@dataclass(frozen=True)
class Dynamic:
    """``NAME = pl.dynamic("NAME")`` at module level."""
    name: str


@dataclass
class ModuleScope:
    """What a program may refer to outside itself."""
    aliases: set = field(default_factory=lambda: {"pl"})     # names of pypto.language
    constants: dict = field(default_factory=dict)           # name -> int | float | list | Dynamic


def _is_program_decorator(d: ast.expr, aliases: set) -> bool:
    if isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Attribute) and d.attr == "program":
        return isinstance(d.value, ast.Name) and d.value.id in aliases
    return isinstance(d, ast.Name) and d.id == "program"


def _strict_ssa(d: ast.expr) -> bool:
    if isinstance(d, ast.Call):
        for kw in d.keywords:
            if kw.arg == "strict_ssa" and isinstance(kw.value, ast.Constant):
                return bool(kw.value.value)
    return False


class _Folder:
    """Evaluates the constant expressions PyPTO would fold at module level, without
    running anything: literals, names of earlier constants, + - * // % and unary -."""

    def __init__(self, aliases: set, constants: dict):
        self.aliases = aliases
        self.constants = constants

    def value(self, e: ast.expr):
        if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
            return e.value
        if isinstance(e, ast.Name):
            v = self.constants.get(e.id)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return v
            raise ValueError
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return -self.value(e.operand)
        if isinstance(e, ast.BinOp):
            a, b = self.value(e.left), self.value(e.right)
            op = type(e.op)
            if op is ast.Add:
                return a + b
            if op is ast.Sub:
                return a - b
            if op is ast.Mult:
                return a * b
            if op is ast.FloorDiv and b != 0:
                return a // b
            if op is ast.Mod and b != 0:
                return a % b
            if op is ast.Div and b != 0:
                return a / b
        raise ValueError

    def constant(self, e: ast.expr) -> Optional[Constant]:
        if isinstance(e, (ast.List, ast.Tuple)):
            try:
                return [self.value(x) for x in e.elts]
            except ValueError:
                return None
        if (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "dynamic"
                and isinstance(e.func.value, ast.Name) and e.func.value.id in self.aliases
                and len(e.args) == 1 and isinstance(e.args[0], ast.Constant) and isinstance(e.args[0].value, str)):
            return Dynamic(e.args[0].value)
        try:
            return self.value(e)
        except ValueError:
            return None


def _scan_imports(body: list, aliases: set) -> None:
    for s in body:
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.name == "pypto.language" and a.asname:
                    aliases.add(a.asname)
        elif isinstance(s, ast.ImportFrom) and s.module == "pypto":
            for a in s.names:
                if a.name == "language":
                    aliases.add(a.asname or "language")


def _constants_of(body: list, folder: _Folder, into: dict) -> None:
    for s in body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            v = folder.constant(s.value)
            if v is not None:
                into[s.targets[0].id] = v
            else:
                into.pop(s.targets[0].id, None)
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
            v = folder.constant(s.value)
            if v is not None:
                into[s.target.id] = v


def scan_module(text: str, path: str) -> tuple[ModuleScope, list[ProgramSite]]:
    """The module's scope and its program classes, in source order.

    Raises TilememError for text that is not Python (with Python's own message
    and position)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # e.g. invalid escape sequences
            tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        line = e.lineno or 1
        col = e.offset or 1
        raise TilememError(path, line, col, f"invalid Python: {e.msg}", source=text) from None
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        raise TilememError(path, 1, 1, f"invalid Python: {e}", source=text) from None
    scope = ModuleScope()
    _scan_imports(tree.body, scope.aliases)
    folder = _Folder(scope.aliases, scope.constants)
    _constants_of(tree.body, folder, scope.constants)
    sites: list[ProgramSite] = []

    def visit(body: list, local: dict):
        for s in body:
            if isinstance(s, ast.ClassDef):
                decos = [d for d in s.decorator_list if _is_program_decorator(d, scope.aliases)]
                if decos:
                    first = min(d.lineno for d in s.decorator_list)
                    sites.append(ProgramSite(s.name, first, s.end_lineno or s.lineno, s.col_offset,
                                             _strict_ssa(decos[0]), s, dict(local)))
                    continue
                visit(s.body, local)
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = dict(local)
                _constants_of(s.body, _Folder(scope.aliases, {**scope.constants, **inner}), inner)
                visit(s.body, inner)
            elif isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(s, part, []) or [], local)
                for h in getattr(s, "handlers", []) or []:
                    visit(h.body, local)

    visit(tree.body, {})
    sites.sort(key=lambda p: p.first_line)
    return scope, sites
