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

import ast
import contextlib
import itertools
import keyword
import re
from typing import Optional

from tilemem import ir
from tilemem.errors import TilememError
from tilemem.frontend.comments import CommentQueue, Extents, bodies, col0
from tilemem.frontend.dsl.comprehension import is_listcomp, unroll_deps
from tilemem.frontend.dsl.exprs import ExprReader, const_value, read_back
from tilemem.frontend.dsl.ops import OpCaller
from tilemem.frontend.dsl.wrappers import op_table, syntax_op
from tilemem.frontend.dsl.types import TypeReader, merge_annotation, print_type_text, types_equal
from tilemem.frontend.dsl.values import (
    DTYPES, INT_DTYPES, UNKNOWN, CoreError, DslError, Val, Var, const_int, dotted, int64_const, is_unknown, scalar,
)
from tilemem.frontend.pysource import Dynamic, ModuleScope, ProgramSite, dynamic_name
from tilemem.frontend.dsl.naming import assign_names

__all__ = ["read_class", "ProgramContext"]

# FunctionType -> (level, role) derived by PyPTO's Function constructor (function.h:547-569)
DERIVED_LEVEL_ROLE = {
    "InCore": ("CHIP_DIE", "SubWorker"), "AIC": ("AIC", "SubWorker"), "AIV": ("AIV", "SubWorker"),
    "Group": ("CORE_GROUP", "SubWorker"), "Orchestration": ("CHIP", "Orchestrator"),
    "Graph": ("CHIP", "Orchestrator"),
}
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


class FunctionReader(ExprReader, OpCaller):
    """Reads one ``@pl.function`` method."""

    def __init__(self, ctx: ProgramContext, raw, comments: CommentQueue, line_ends: dict,
                 stmt_ends: Optional[dict] = None):
        self.ctx = ctx
        self.raw = raw
        self.comments = comments
        self.line_ends = line_ends
        self.extent = Extents(line_ends, ctx.lines, stmt_ends)
        self.types = TypeReader(self)
        self.scopes: list[dict] = [{}]
        self.key_types: dict[str, ir.Type] = {}
        self.expr_types: dict[int, ir.Type] = {}     # id of a call expression -> its type
        self.hints: dict[str, str] = {}
        self._serial = itertools.count()
        self.blocks: list[list] = [[]]           # statements being built, innermost last
        self.pending: list[list] = []            # [texts, block depth, consumed]
        self.loop_kinds: list[str] = []
        self.yield_vars: Optional[list] = None   # names bound by yields in the current loop / if
        self.yield_types: Optional[dict] = None
        self.yield_stmts: Optional[list] = None
        self.in_for = self.in_while = self.in_if = False
        self.split_modes: list = []               # enclosing pl.split_aiv modes
        self.incore_depth = 0                     # inside pl.at(...) / pl.spmd scopes
        self.user_splits: list = []               # the pl.split(MODE) of each enclosing pl.at
        self.alloc_rhs = False                    # reading `buf = pld.alloc_window_buffer(...)`
        self.manual_depth = 0                     # inside `with pl.scope(mode=MANUAL)` / pl.manual_scope()
        self.cluster_depth = 0                    # inside `with pl.cluster()`
        self.explicit_level: Optional[str] = None
        self.fname = ""
        self.dump_tagged: list = []               # vars marked with pl.dump_tag
        self.func_type = "Opaque"
        self.param_dim_symbols: set[str] = set()  # symbols a tensor parameter's shape names (AP:1047-1054)
        self.declared_allocs: dict = {}           # declared pl.MemRef -> its name (TR:_declared_alloc_name)
        self.declared_owners: dict = {}           # name -> the declaration it is

    # -- plumbing -------------------------------------------------------------------
    def source_of(self, e) -> str:
        from tilemem.ir.printer import print_expr
        try:
            return print_expr(e)
        except TypeError:
            return "<expression>"

    def string_value(self, e: ir.StrConst) -> str:
        q = e.quote
        try:
            v = ast.literal_eval(f"{q}{e.value}{q}")
        except (SyntaxError, ValueError):
            return e.value
        return v if isinstance(v, str) else e.value

    def quoted(self, e: ir.StrConst) -> ir.StrConst:
        """A string PyPTO prints with ``std::quoted`` (attrs keys and string values): in
        double quotes, a backslash before each backslash and double quote, nothing else
        escaped (python_printer.cpp:827, 1016, 1843)."""
        text = self.string_value(e)
        return ir.StrConst(text.replace("\\", "\\\\").replace('"', '\\"'), '"')

    def new_var(self, hint: str, type_: ir.Type, iter_arg: bool = False) -> Var:
        key = f"{hint}#{next(self._serial)}"
        v = Var(key, hint, type_, iter_arg)
        self.key_types[key] = type_
        self.hints[key] = hint
        return v

    def lookup(self, name: str) -> Optional[Var]:
        for scope in reversed(self.scopes):
            v = scope.get(name)
            if v is not None:
                return v if isinstance(v, Var) else None
        return None

    def closure(self, name: str):
        return self.ctx.constants.get(name)

    def dynamic_var(self, name: str) -> Var:
        v = self.ctx.dynamics.get(name)
        if v is None:
            v = Var(name, name, scalar("INDEX"), dyn=True)
            self.ctx.dynamics[name] = v
        self.key_types[name] = v.type
        return v

    def define(self, name: str, var: Var, node=None, allow_redef: bool = False) -> None:
        scope = self.scopes[-1]
        if self.ctx.strict_ssa and not allow_redef and name in scope:
            raise DslError(f"Variable '{name}' is already defined", node)
        scope[name] = var

    def enter_scope(self):
        self.scopes.append({})

    def exit_scope(self, leak: bool):
        s = self.scopes.pop()
        if leak:
            self.scopes[-1].update(s)

    def emit(self, stmt) -> None:
        block = self.blocks[-1]
        depth = len(self.blocks)
        for entry in reversed(self.pending):
            if entry[1] == depth:
                if not entry[2]:
                    entry[2] = True
                    if entry[0]:
                        stmt.comments = ["# " + t for t in entry[0]]
                break
        block.append(stmt)

    def declared_memref(self, node):
        """A Tile annotation's ``NAME`` or ``NAME[k]`` where NAME is an allocation declared
        around the program (``NAME = pl.MemRef(slots=2)``): the inline
        ``pl.MemRef("name"[, slots=N])[k]`` PyPTO makes of it (TR:636-842), an unnamed
        declaration named after its variable; None when NAME is no such declaration."""
        from tilemem.frontend.pysource import DeclaredMemRef
        ref = node.value if type(node) is ir.Subscript else node
        if type(ref) is not ir.Name or self.lookup(ref.id) is not None:
            return None
        d = self.closure(ref.id)
        if not isinstance(d, DeclaredMemRef):
            return None
        name = d.name or ref.id
        seen = self.declared_allocs.setdefault(d.ident, name)
        if seen != name:
            raise DslError(f"Declared allocation '{seen}' is also referenced as '{name}'", ref)
        if self.declared_owners.setdefault(name, d.ident) != d.ident:
            raise DslError(f"Two separate pl.MemRef() declarations both resolve to the name '{name}'", ref)
        call = ir.Call("pl.MemRef", (ir.StrConst(name, '"'),),
                       (("slots", ir.IntConst(d.slots)),) if d.slots > 1 else (), ref.line, ref.col)
        if type(node) is not ir.Subscript:
            return call
        if d.slots <= 1:
            raise DslError(f"'{name}' was declared with a single slot, so it cannot be subscripted", node)
        if len(node.index) == 1:
            k = self._fold_value(node.index[0])
            if isinstance(k, int) and not isinstance(k, bool) and not 0 <= k < d.slots:
                raise DslError(f"Slot index {k} is out of range for '{name}', declared with {d.slots} slot(s)",
                               node)
        return ir.Subscript(call, node.index, node.line, node.col)

    def memref(self, e):
        """``pl.MemRef("name"[, offset, size][, slots=N])[idx]`` or ``pl.MemRef(ptr, offset,
        size)`` as PyPTO prints it (a name is the ``pl.Ptr`` var of a ``tile.alloc``)."""
        index = None
        sub = e
        if type(e) is ir.Subscript:
            e = e.value
        self._check_memref(e)
        if sub is not e:
            self._check_memref_slot(e, sub)
            index = tuple(self.expr(i).expr for i in sub.index)
        args = []
        for a in e.args:
            if type(a) is ir.StrConst:
                args.append(ir.StrConst(self.string_value(a), '"'))
            elif type(a) is ir.Name:
                v = self.lookup(a.id)
                if v is None:
                    raise DslError(f"Undefined variable '{a.id}'", a)
                args.append(ir.Name(v.key, a.line, a.col))
            else:
                args.append(self.expr(a).expr)
        kws = []
        for k, v in e.kwargs:
            if k != "slots":
                raise DslError(f"Unknown pl.MemRef keyword argument: '{k}'", e)
            kws.append((k, self.expr(v).expr))
        call = ir.Call("pl.MemRef", tuple(args), tuple(kws))
        return ir.Subscript(call, index) if index is not None else call

    def _check_memref_slot(self, e: ir.Call, sub: ir.Subscript) -> None:
        """A subscripted ``pl.MemRef(...)[k]``: the MemRef holds more than one slot and a
        constant ``k`` is one of them (type_resolver.py:700-745 declared, 748-790 resolved)."""
        slots = next((v.value for k, v in e.kwargs if k == "slots" and type(v) is ir.IntConst), 1)
        declared = len(e.args) == 1
        if len(e.args) not in (1, 3) or not e.args:
            return
        a0 = e.args[0]
        name = self.string_value(a0) if type(a0) is ir.StrConst else a0.id if type(a0) is ir.Name else None
        if name is None:
            return
        if slots <= 1:
            if declared:
                raise DslError(f"'{name}' was declared with a single slot, so it cannot be subscripted", sub)
            raise DslError(f"'{name}' holds a single slot, so it cannot be subscripted", sub)
        if len(sub.index) == 1:
            k = self._fold_value(sub.index[0])
            if isinstance(k, int) and not isinstance(k, bool) and not 0 <= k < slots:
                held = "declared with" if declared else "which holds"
                raise DslError(f"Slot index {k} is out of range for '{name}', {held} {slots} slot(s)", sub)

    def _check_memref(self, e: ir.Call) -> None:
        """What PyPTO's type resolver accepts of ``pl.MemRef(...)`` (type_resolver.py
        resolve_memref): ``("name"[, slots=N])`` -- a non-empty name --, ``(base, byte_offset,
        size[, slots=N])`` -- an index-expression offset, a non-negative integer size --, the
        legacy integer forms; ``slots`` a positive integer literal."""
        args = e.args
        slots = [v for k, v in e.kwargs if k == "slots"]
        if len(args) == 1 and len(slots) == len(e.kwargs):
            a = args[0]
            if type(a) is not ir.StrConst or not self.string_value(a):
                shown = repr(self.string_value(a)) if type(a) is ir.StrConst else self.source_of(a)
                raise DslError(f"A declared allocation's name must be a non-empty string literal, got {shown}", e)
        elif len(args) == 3:
            if type(args[0]) in (ir.StrConst, ir.Name):
                off = self.expr(args[1])
                if not (isinstance(off.type, ir.ScalarType) and off.type.dtype in INT_DTYPES):
                    raise DslError(f"MemRef byte_offset must be an index expression, got: {self.source_of(args[1])}",
                                   args[1])
                self._memref_int(args[2], "size")
            else:
                self._memref_int(args[0], "addr", False)
                self._memref_int(args[1], "size")
                self._memref_int(args[2], "id")
        elif len(args) != 4:
            raise DslError(f"pl.MemRef requires 3 arguments (base, byte_offset, size), got {len(args)}", e)
        for v in slots:
            if not (type(v) is ir.IntConst and v.value >= 1):
                raise DslError(f"slots must be a positive integer literal, got {self.source_of(v)}", e)

    def _memref_int(self, x, what: str, non_negative: bool = True) -> None:
        v = self._fold_value(x)
        if not isinstance(v, int) or isinstance(v, bool):
            raise DslError(f"MemRef {what} must be an integer, got: {self.source_of(x)}", x)
        if non_negative and v < 0:
            raise DslError(f"MemRef {what} must be >= 0, got: {v}", x)

    def attrs_dict(self, e) -> ir.Expr:
        if type(e) is not ir.DictExpr:
            raise DslError("op attrs must be a dict literal", e)
        for k, _ in e.items:
            if type(k) is not ir.StrConst:
                raise DslError("attrs keys must be string literals", k)
        return ir.DictExpr(tuple((self.quoted(k), self.quoted(v) if type(v) is ir.StrConst else v)
                                 for k, v in e.items))

    def call_attrs(self, fname: str, e, call: ir.Call, nargs: int) -> tuple[list, list]:
        """``attrs={...}`` of a call to (or submit of) a kernel, as PyPTO reads it
        (AP:7584-7812): ``arg_directions`` -- a list of ``pl.adir.X``, one per positional
        argument --, then every other key's value by its syntax (a constant, a list of ints /
        ``pl.adir.X`` / names, an enum, else an expression, read as any expression is);
        ``manual_dep_edges`` is refused.  (items, the vars of a ``dump_vars`` key)."""
        if type(e) is not ir.DictExpr:
            raise DslError(f"'attrs=' on call to '{fname}' must be a dict literal", e)
        for k, _ in e.items:
            if type(k) is not ir.StrConst:
                raise DslError(f"'attrs=' on call to '{fname}' must use string-literal keys", k)
        items = [(self.string_value(k), k, v) for k, v in e.items]
        out, dumps = [], []
        for key, k, v in items:
            if key != "arg_directions":
                continue
            if type(v) is not ir.ListExpr:
                raise DslError(f"attrs['arg_directions'] on call to '{fname}' must be a list literal", v)
            for x in v.items:
                if not (type(x) is ir.Dotted and len(x.parts) == 3 and x.parts[:2] == ("pl", "adir")):
                    raise DslError(f"attrs['arg_directions'] on call to '{fname}' must contain 'pl.adir.<name>' "
                                   "references only", x)
                if x.parts[2] not in ARG_DIRECTIONS:
                    raise DslError(f"Unknown call-site direction marker 'pl.adir.{x.parts[2]}' in call to "
                                   f"'{fname}'", x)
            if v.items and len(v.items) != nargs:
                raise DslError(f"attrs['arg_directions'] length ({len(v.items)}) on call to '{fname}' must match "
                               f"positional arg count ({nargs})", call)
            out = [(self.quoted(k), ir.ListExpr(tuple(v.items)))] if v.items else []
        if any(key == "manual_dep_edges" for key, _, _ in items):
            # AP:7790-7812: dependency edges belong on a submit's deps=
            raise DslError(f"attrs={{'manual_dep_edges': ...}} is not accepted on a call to '{fname}'", call)
        for key, k, v in items:
            if key == "dump_vars":
                dumps = self._attr_dump_vars(fname, v)
            elif key != "arg_directions":
                out.append((self.quoted(k), self._call_attr_value(fname, key, v)))
        return out, dumps

    def _call_attr_value(self, fname: str, key: str, v):
        """One generic call attr (AP:7614-7698), as PyPTO prints it (PrintAttrValue)."""
        t = type(v)
        if t is ir.NoneConst:
            raise DslError(f"attrs['{key}'] on call to '{fname}': unsupported constant 'None'", v)
        if t in (ir.StrConst, ir.IntConst, ir.BoolConst, ir.FloatConst):
            return _attr_value(self, v)
        if t in (ir.ListExpr, ir.TupleExpr):
            xs = tuple(v.items)
            if all(type(x) is ir.IntConst for x in xs):
                out = ir.ListExpr(xs)
            elif all(type(x) is ir.Dotted and len(x.parts) == 3 and x.parts[:2] == ("pl", "adir") for x in xs):
                bad = next((x for x in xs if x.parts[2] not in ARG_DIRECTIONS), None)
                if bad is not None:
                    raise DslError(f"attrs['{key}'] on call to '{fname}': unknown direction '{bad.text}'", bad)
                out = ir.ListExpr(xs)
            elif all(type(x) is ir.Name for x in xs):
                out = ir.ListExpr(tuple(self.expr(x).expr for x in xs))
            else:
                raise DslError(f"attrs['{key}'] on call to '{fname}': list elements are mixed or of an unsupported "
                               "kind (expected all ints, all pl.adir.<name>, or all names)", v)
            _check_attr_list(self, key, ir.ListExpr(xs), self.fname)      # the attr's C++ type (by key)
            return out
        if t is ir.Dotted and len(v.parts) >= 2:
            return _attr_value(self, v) if len(v.parts) > 2 else v          # an enum value, as printed
        return self.expr(v).expr

    def _attr_dump_vars(self, fname: str, v) -> list:
        """``attrs={"dump_vars": [...]}`` on a kernel call: the printed form of its dumps."""
        return [d.var for _, d in self._tensor_var_list(
            v, f"attrs['dump_vars'] on call to '{fname}' must be a list literal",
            f"attrs['dump_vars'] entries on call to '{fname}' must be tensor variables")]

    def _tensor_var_list(self, v, not_a_list: str, not_a_tensor_var: str) -> list:
        """The (item, value) pairs of a list / tuple literal of tensor variables (a call's
        dump_vars, a submit's dumps=), with the caller's PyPTO messages."""
        if type(v) not in (ir.ListExpr, ir.TupleExpr):
            raise DslError(not_a_list, v)
        out = []
        for x in v.items:
            d = self.expr(x)
            if d.var is None or not isinstance(d.type, ir.TensorType):
                raise DslError(f"{not_a_tensor_var} — got '{self.source_of(x)}'", x)
            out.append((x, d))
        return out

    # -- shapes in annotations ------------------------------------------------------------
    def shape_dim(self, e, param: bool):
        t = type(e)
        if t is ir.IntConst:
            return int64_const(e.value, e)
        if t is ir.Name:
            return self._shape_name(e, param)
        f = self.folded(e) if self.foldable(e) else None
        if f is not None and type(f.expr) is ir.IntConst:
            return ir.IntConst(f.expr.value)
        return _type_dim(self._composite_dim(e, param))

    def _shape_name(self, e: ir.Name, param: bool):
        c = self.closure(e.id)
        if c is not None:
            if isinstance(c, bool) or not isinstance(c, (int, Dynamic)):
                raise DslError(f"Shape variable '{e.id}' must be int or pl.dynamic(), got {type(c).__name__}", e)
            if isinstance(c, Dynamic):
                return ir.Name(self.dynamic_var(c.name).key)
            return int64_const(c, e)
        if not param:
            v = self.lookup(e.id)
            if v is not None:
                return ir.Name(v.key)
            raise DslError(f"Unknown shape variable: {e.id}", e)
        raise DslError(f"NameError: name '{e.id}' is not defined", e)

    def _composite_dim(self, e, param: bool, top: bool = True):
        t = type(e)
        if t is ir.IntConst:
            return int64_const(e.value, e)
        if t is ir.Name:
            return self._shape_name(e, param)
        if t is ir.Call and e.func.endswith(".const"):
            v = self.expr(e)
            return v.expr
        sym = self._inline_dynamic(e)
        if sym is not None:
            if not top:
                # Python builds the composite over a DynVar of its own: a second symbol
                # of the name, which PyPTO prints renamed (M_1); not modelled
                raise DslError("pl.dynamic(...) inside a composite dim is not read by tilemem's DSL reader; "
                               "bind it to a name around the program (M = pl.dynamic(\"M\"))", e)
            return sym
        if t is ir.BinOp and e.op in ("+", "-", "*", "//", "%"):
            l = self._composite_dim(e.left, param, False)
            r = self._composite_dim(e.right, param, False)
            return ir.BinOp(e.op, l, r)
        raise DslError(f"Shape dimension must be int literal, variable, or evaluable expression: "
                       f"{self.source_of(e)}", e)

    def _inline_dynamic(self, e):
        """``pl.dynamic("NAME")`` written in a dim: the function's symbol of that name
        (the parser caches one Var per name, expr_evaluator.py:158-177); else None."""
        if type(e) is ir.Call and not e.kwargs and len(e.args) == 1 and type(e.args[0]) is ir.StrConst:
            parts = e.func.split(".")
            if len(parts) == 2 and parts[1] == "dynamic" and parts[0] in self.ctx.scope.aliases:
                name = dynamic_name(self.string_value(e.args[0]), lambda msg: DslError(msg, e))
                return ir.Name(self.dynamic_var(name).key)
        return None

    def shape_list(self, e: ir.Name, param: bool):
        c = self.closure(e.id)
        if isinstance(c, list):
            out = []
            for x in c:
                if isinstance(x, Dynamic):
                    out.append(ir.Name(self.dynamic_var(x.name).key))
                elif isinstance(x, int):
                    out.append(int64_const(x, e))
                else:
                    raise DslError(f"Shape '{e.id}' element must be int or pl.dynamic()", e)
            return out
        if param and c is None and self.lookup(e.id) is None:
            raise DslError(f"NameError: name '{e.id}' is not defined", e)     # Python's, in a signature
        raise DslError(f"Unknown shape variable: {e.id}", e)

    def view_expr(self, e, param: bool = False):
        return _type_dim(self._view_expr(e, param))

    def _view_expr(self, e, param: bool = False):
        t = type(e)
        if t is ir.IntConst:
            return int64_const(e.value, e)
        if t is ir.Name:
            if param:
                return self._shape_name(e, param)     # module names only, else NameError
            v = self.lookup(e.id)
            if v is not None:
                return ir.Name(v.key)
            c = self.closure(e.id)
            if isinstance(c, int) and not isinstance(c, bool):
                return int64_const(c, e)
            if isinstance(c, Dynamic):
                return ir.Name(self.dynamic_var(c.name).key)
            return ir.Name(self.dynamic_var(e.id).key)
        f = self.folded(e) if self.foldable(e) else None
        if f is not None and type(f.expr) is ir.IntConst:
            return ir.IntConst(f.expr.value)
        if t is ir.BinOp and e.op in ("+", "-", "*", "//", "%"):
            return ir.BinOp(e.op, self._view_expr(e.left, param), self._view_expr(e.right, param))
        v = self.expr(e)
        if not (isinstance(v.type, ir.ScalarType) and v.type.dtype in INT_DTYPES):
            if param:       # Python builds a signature's view itself: the binding refuses it
                raise DslError("TypeError: __init__(): incompatible function arguments (a view field takes "
                               f"integer index expressions, got {self.source_of(e)})", e)
            got = type(v.type).__name__ if isinstance(v.type, ir.Type) else "Expr"
            raise DslError(f"TileView field must be an index expression, got {got}: {self.source_of(e)}", e)
        return v.expr

    # -- calls ------------------------------------------------------------------------------
    def call(self, e: ir.Call) -> Val:
        if is_listcomp(e):                 # a comprehension outside a deps= list (AP:5773)
            raise DslError("Unsupported expression type: ListComp", e)
        parts = e.func.split(".")
        if parts[0] == "self" and len(parts) == 2:
            return self.kernel_call(parts[1], e)
        if parts[0] == "pld" and len(parts) in (2, 3):
            # the distributed DSL, matched on the literal `pld.` prefix (AP:140-165, 8605-8649)
            if len(parts) == 3 and parts[1] not in ("system", "tensor", "tile"):
                raise DslError(f"Unknown distributed category 'pld.{parts[1]}'", e)
            return self.op_call(".".join(parts[:-1]), parts[-1], e)
        if e.func == syntax_op("extent_read") and self.func_type == "Orchestration":
            folded = self.fold_tensor_dim(e)
            if folded is not None:
                return folded
        if parts[0] in self.ctx.scope.aliases and len(parts) >= 2:
            if parts[-1] == "yield_" and len(parts) == 2:
                raise DslError("pl.yield_() must be a statement (`x = pl.yield_(...)`)", e)
            if len(parts) == 2:
                name = parts[1]
                if name == "const":
                    return self.typed_const(e)
                if name in ("min", "max"):
                    return self.scalar_minmax(name, e)
                if name in ("aiv_shard", "aic_gather"):
                    return self.shard(name, e)
                if name == "submit":        # AP:6041-6057
                    raise DslError("pl.submit(...) must be unpacked as a 2-tuple: `out, tid = "
                                   "pl.submit(self.kernel, ...)`", e)
                if name == "spmd_submit":
                    raise DslError("pl.spmd_submit(...) must be unpacked as a 2-tuple: `out, tid = "
                                   "pl.spmd_submit(self.kernel, ..., core_num=N)`", e)
                if name in ("range", "parallel", "unroll", "pipeline", "while_", "cond", "scope", "at",
                            "cluster", "spmd", "dynamic", "static_assert", "static_print", "func_attr"):
                    raise DslError(f"pl.{name}() cannot be used as an expression here", e)
                return self.op_call("pl", name, e)
            if len(parts) == 3 and parts[1] in ("tile", "tensor") and parts[2] in ("aiv_shard", "aic_gather"):
                return self.shard(parts[2], e)
            if len(parts) == 3 and parts[1] in ("tile", "tensor", "system", "array", "prefetch"):
                return self.op_call(parts[1], parts[2], e)
            if len(parts) == 3 and parts[2] == "get_byte" and parts[1] in DTYPES:
                from tilemem.frontend.dsl.values import DTYPE_BITS
                return const_int((DTYPE_BITS[parts[1]] + 7) // 8, "INDEX", e)
            raise DslError(f"Unsupported operation call: {e.func}(...)", e)
        raise DslError(f"Unsupported function call: {self.source_of(e)}", e)

    @contextlib.contextmanager
    def _loop_masks_errors(self, kind: str, n_iter: int):
        """An error in the body of a loop with iteration arguments is never PyPTO's message:
        the loop builder's exit runs even then (ir/builder.py for_loop / while_loop:
        ``finally: end_for_loop``) and, the return variables being set only after the body
        (AP:2786-2800, 3380-3390), raises its own arity error in its place, which the
        function's parse reports (builder.cpp:143-151, 212-220).  tilemem's own refusals
        (what it does not read) keep their words."""
        if not n_iter:
            yield
            return
        try:
            yield
        except DslError as e:
            if "tilemem" in e.message:
                raise
            raise DslError(f"Failed to parse function '{self.raw.name.value}': {kind} loop has {n_iter} iteration "
                           f"arguments but 0 return variables. They must match.", None,
                           self.raw.deftok.line, self.raw.deftok.column) from None

    def fold_tensor_dim(self, e: ir.Call) -> Optional[Val]:
        """``pl.tensor.dim(x, axis)`` in an Orchestration body, when ``x``'s extent there
        is a symbol a tensor parameter's shape of this function names: that symbol
        itself, no read (AP:8338-8345, 8372-8431; the literal ``pl.tensor.`` spelling,
        ``x`` a bare name, a constant axis); None: read as any op call."""
        given = dict(e.kwargs)
        if set(given) - {"tensor", "axis"}:
            return None
        positional = list(e.args)
        tensor = given.get("tensor") or (positional.pop(0) if positional else None)
        axis_arg = given.get("axis") or (positional.pop(0) if positional else None)
        if tensor is None or axis_arg is None or positional or type(tensor) is not ir.Name:
            return None
        axis = _static_int(axis_arg)
        if axis is None:
            f = self.folded(axis_arg) if self.foldable(axis_arg) else None
            if f is None or type(f.expr) is not ir.IntConst or f.type.dtype != "INDEX":
                return None
            axis = f.expr.value
        var = self.lookup(tensor.id)
        if var is None or not isinstance(var.type, ir.TensorType):
            return None
        shape = var.type.shape
        if axis < 0:
            axis += len(shape)
        if not 0 <= axis < len(shape):
            return None
        extent = shape[axis]
        if type(extent) is not ir.Name or extent.id not in self.param_dim_symbols:
            return None
        sym = self.ctx.dynamics.get(extent.id)
        return sym.ref(e) if sym is not None else None

    def typed_const(self, e: ir.Call) -> Val:
        if len(e.args) != 2 or e.kwargs:
            raise DslError("pl.const() requires exactly 2 arguments: value and dtype", e)
        v = e.args[0]
        neg = False
        if type(v) is ir.UnaryOp and v.op == "-":
            neg, v = True, v.operand
        if type(v) is ir.IntConst:
            val = -v.value if neg else v.value
            dt = self.types.dtype(e.args[1])
            return const_int(val, dt, e)
        if type(v) is ir.FloatConst:
            from tilemem.frontend.dsl.values import const_float
            val = float(v.text)
            return const_float(-val if neg else val, self.types.dtype(e.args[1]), e)
        raise DslError("pl.const() first argument must be a numeric literal", e)

    def scalar_minmax(self, name: str, e: ir.Call) -> Val:
        if len(e.args) != 2 or e.kwargs:
            raise DslError(f"{name}() takes 2 positional arguments but {len(e.args)} were given", e)
        a, b = self.expr(e.args[0]), self.expr(e.args[1])
        from tilemem.frontend.dsl.exprs import cast_to, promote
        for side in (a, b):
            if not isinstance(side.type, ir.ScalarType):
                raise DslError(f"pl.{name}: expected scalar operands", e)
        dt = promote(a.type.dtype, b.type.dtype, name)
        return Val(ir.Call(f"pl.{name}", (cast_to(a, dt), cast_to(b, dt)), (), e.line, e.col), scalar(dt))

    def kernel_call(self, fname: str, e: ir.Call) -> Val:
        if fname not in self.ctx.function_names:
            raise DslError(f"Function '{fname}' not defined in program", e)
        # device= picks the device of an Orchestrator dispatch, known once the callee is read
        # (AP:6406-6440, 7287-7313); it is stored as attrs['device'] and printed `device=`
        allowed = ("attrs", "device") if self.ctx.roles.get(fname) == "Orchestrator" else ("attrs",)
        for k, _ in e.kwargs:
            if k not in allowed:
                raise DslError(f"Function '{fname}' does not accept keyword argument '{k}'", e)
        raw, no_dep = _strip_no_dep(e.args)
        args = [self.expr(a) for a in raw]
        sig = self.ctx.signatures.get(fname)
        if sig is None:
            rtype = UNKNOWN
        else:
            nparams, rts = sig[0], sig[1]
            if nparams != len(args):
                raise DslError(f"Function '{fname}' expects {nparams} argument(s), got {len(args)}", e)
            rts = self.call_return_types(sig, args, rts, False)
            if len(rts) == 1:
                rtype = rts[0]
            elif rts:
                rtype = ir.TupleType(tuple(rts))
            else:
                rtype = UNKNOWN
        user, listed = [], []
        for k, v in e.kwargs:
            if k == "attrs":
                user, listed = self.call_attrs(fname, v, e, len(args))
        dumped = self.dumped_args(args, listed)
        attrs = ([(ir.StrConst("dump_vars", '"'), ir.ListExpr(tuple(dumped)))] if dumped else []) + \
            _call_attrs(user, no_dep)
        device = [("device", self.expr(v).expr) for k, v in e.kwargs if k == "device"]
        kws = tuple(device) + ((("attrs", ir.DictExpr(tuple(attrs))),) if attrs else ())
        return Val(ir.Call(f"self.{fname}", tuple(a.expr for a in args), kws, e.line, e.col), rtype)

    def call_return_types(self, sig: tuple, args: list, rts: list, submit: bool) -> list:
        """The callee's return types with its dynamic dims bound from the arguments
        (DeduceCallReturnType, AP:6645-6663); a submit with fewer arguments than
        parameters pairs them as _call_args_for_return_deduction does (AP:6462-6487):
        an Out / InOut parameter is skipped while the arguments left only cover the
        parameters still required after it."""
        from tilemem.frontend.dsl.calltypes import ConflictingBinding, deduce_call_return_types
        if not rts:
            return rts
        params, dirs = sig[4], sig[5]
        if not submit or len(args) == len(params):
            pairs = list(zip(params, args))
        else:
            pairs, at = [], 0
            for i, (p, d) in enumerate(zip(params, dirs)):
                if at >= len(args):
                    break
                if d in ("Out", "InOut"):
                    required = sum(1 for x in dirs[i + 1:] if x not in ("Out", "InOut"))
                    if len(args) - at <= required:
                        continue
                pairs.append((p, args[at]))
                at += 1
        try:
            from tilemem.ir.typerules import message_form
            return deduce_call_return_types([p for p, _ in pairs], [a.type for _, a in pairs], rts,
                                            lambda e: self.source_of(message_form(e)))
        except ConflictingBinding as err:
            raise DslError(f"Failed to parse function '{self.fname}': {err}", None,
                           self.raw.deftok.line, self.raw.deftok.column) from None

    def dumped_args(self, args: list, listed=()) -> list:
        """The arguments a call dumps, in argument order, one per position: those marked by
        ``pl.dump_tag`` and those a submit's ``dumps=`` lists (AP:6608-6613; the printer
        prints them so, python_printer.cpp)."""
        return [a.expr for a in args if a.var is not None and (a.var in self.dump_tagged or
                                                                any(a.var is d for d in listed))]

    def read_or_slice(self, base: Val, e: ir.Subscript) -> Val:
        """``T[i, j]`` (all scalar, full rank): a read; otherwise a slice view (numpy style:
        a scalar index drops its axis, missing trailing indices are ``:``; AP:8821-9240)."""
        from tilemem.frontend.dsl.pyline import slice_parts
        t = base.type
        idx = list(e.index)
        ns = "tile" if isinstance(t, ir.TileType) else "tensor"
        if len(idx) == len(t.shape) and all(slice_parts(i) is None for i in idx):
            vals = [self.expr(i) for i in idx]
            if all(isinstance(v.type, ir.ScalarType) for v in vals):
                call = ir.Call(syntax_op(f"{ns}_element"), (base.expr, ir.ListExpr(tuple(v.expr for v in vals))),
                               (), e.line, e.col)
                return Val(call, scalar(t.dtype))
        offsets, extents, drops = self._window(idx, t, e)
        kws = (("drop_dims", ir.ListExpr(tuple(ir.IntConst(d) for d in drops))),) if drops else ()
        call = ir.Call(f"pl.{ns}.slice", (e.value, ir.ListExpr(tuple(extents)), ir.ListExpr(tuple(offsets))), kws,
                       e.line, e.col)
        return self._parser_built(call)

    def _parser_built(self, call: ir.Call) -> Val:
        """An op the parser builds itself (ir_op.*, not the pl wrapper): its deducer's error
        is reported as parse_function reports it."""
        outer, self.parser_built_call = getattr(self, "parser_built_call", None), call
        try:
            return self.call(call)
        finally:
            self.parser_built_call = outer

    def _window(self, idx: list, t, node):
        """Per-axis (offsets, extents) of a subscript window and the axes it drops."""
        from tilemem.frontend.dsl.pyline import slice_parts
        if len(idx) > len(t.shape):
            raise DslError(f"Too many indices for a rank-{len(t.shape)} value", node)
        idx = idx + [ir.Call("__slice__", (ir.NoneConst(), ir.NoneConst(), ir.NoneConst()))] * (len(t.shape) - len(idx))
        offsets, extents, drops = [], [], []
        for d, i in enumerate(idx):
            parts = slice_parts(i)
            if parts is None:
                offsets.append(i)
                extents.append(ir.IntConst(1))
                drops.append(d)
                continue
            lo, hi, step = parts
            if step is not None and not (type(step) is ir.IntConst and step.value == 1):
                raise DslError("Slice step is not supported", node)
            lo = lo if lo is not None else ir.IntConst(0)
            hi = hi if hi is not None else read_back(t.shape[d])
            offsets.append(lo)
            extents.append(_extent(lo, hi))
        return offsets, extents, drops

    def subscript_assign(self, target: ir.Subscript, value, s) -> None:
        """``dst[...] = src`` -> ``dst = pl.assemble(dst, src, offsets)``; on an Array,
        ``arr[i] = v`` -> ``arr = pl.array.update_element(arr, i, v)`` (AP:2224-2450)."""
        from tilemem.frontend.dsl.types import array_dtype
        if self.ctx.strict_ssa:
            raise DslError("Subscript-write syntax 'dst[...] = src' is only supported before SSA conversion", s)
        if type(target.value) is not ir.Name:
            raise DslError(f"Subscript-write target must be a variable name, got {self.source_of(target.value)}", s)
        name = target.value.id
        base = self.expr(target.value)
        t = base.type
        if array_dtype(t) is not None:
            if len(target.index) != 1:
                raise DslError("Array subscript-write requires a single index (rank-1 in v1)", s)
            i = self.expr(target.index[0])
            v = self.expr(value)
            if type(v.expr) is ir.IntConst:
                v = const_int(v.expr.value, array_dtype(t), v.expr)
            call = ir.Call(syntax_op("array_set"), (base.expr, i.expr, v.expr), (), s.line, s.col)
            self.assign_or_let(name, Val(call, t), s)
            return
        if not isinstance(t, (ir.TileType, ir.TensorType)):
            raise DslError(f"Subscript-write requires a Tensor, Tile, or Array target, got {type(t).__name__}", s)
        offsets, extents, drops = self._window(list(target.index), t, s)
        if drops:
            raise DslError("A subscript write that drops axes is not supported by tilemem's DSL reader; "
                           "use pl.assemble(...)", s)
        ns = "tile" if isinstance(t, ir.TileType) else "tensor"
        # (the checked source stays alive while the call reads it again: the reader keys the
        # types of nested calls by object id, which a freed first reading would hand on)
        checked = self._check_subscript_source(ns, extents, value, s)
        call = ir.Call(f"pl.{ns}.assemble", (target.value, value, ir.ListExpr(tuple(offsets))), (), s.line, s.col)
        self.assign_or_let(name, self._parser_built(call), s)
        del checked

    def _check_subscript_source(self, kind: str, extents: list, value, s) -> None:
        """What PyPTO checks of a subscript write's source (AP:2285-2342): a tensor into a
        tensor, a tile into a tile; its rank the window's (a tile's at least 2); each
        constant extent the window's, or its constant valid extent."""
        from tilemem.frontend.dsl.types import view_parts
        val = self.expr(value)
        src = val.type
        want_cls = ir.TileType if kind == "tile" else ir.TensorType
        if not isinstance(src, want_cls):
            raise DslError(f"Subscript-write source must also be a {kind}, got {type(src).__name__}", s)
        natural = len(extents)
        floored = max(2, natural) if kind == "tile" else natural
        rank = len(src.shape)
        if rank not in (natural, floored):
            expected = f"{natural}D" if natural == floored else f"{natural}D or {floored}D"
            raise DslError(f"Subscript-write source must be {expected} to match the rank-reduced {kind} "
                           f"window, got {rank}D", s)
        want = [ir.IntConst(1)] * (rank - natural) + list(extents)
        if isinstance(src, ir.TileType):
            valid = tuple(src.view.valid_shape) if src.view is not None and src.view.valid_shape else None
        else:
            valid = view_parts(src.view)[0] or None
        for axis, w in enumerate(want):
            req = self._fold_value(w)
            have = src.shape[axis].value if type(src.shape[axis]) is ir.IntConst else None
            if type(req) is not int or have is None or req == have:
                continue
            if valid is not None:
                v = valid[axis]
                if type(v) is not ir.IntConst or v.value == req:
                    continue
            raise DslError(f"Subscript-write shape mismatch on source axis {axis}: window expects {req} "
                           f"elements, source has {have}", s)
        return val

    def array_read(self, base: Val, e: ir.Subscript) -> Val:
        """``arr[i]`` on an Array: ``pl.array.get_element(arr, i)``."""
        from tilemem.frontend.dsl.types import array_dtype
        if len(e.index) != 1:
            raise DslError("An Array takes one index", e)
        i = self.expr(e.index[0])
        return Val(ir.Call(syntax_op("array_get"), (base.expr, i.expr), (), e.line, e.col),
                   scalar(array_dtype(base.type)))

    # -- statements ------------------------------------------------------------------------
    def body(self, stmts: list) -> None:
        for i, s in enumerate(stmts):
            if i > 0:
                self.comments.discard_stale_before(s.line or 1, _col0(s))
            self.statement(s)

    def block(self, s) -> list:
        """The statements built from ``s.body``, in a block of their own; comments still
        pending inside it when it ends are dropped (they belonged to it)."""
        self.blocks.append([])
        self.body(s.body)
        if s.body:
            self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        return self.blocks.pop()

    def _drain(self, s) -> list[str]:
        return self.extent.drain(self.comments, s)

    def statement(self, s) -> None:
        leading = self._drain(s)
        if _str_stmt(s):
            lines = self.string_value(s.expr).splitlines() or [""]
            self.comments.requeue_after(self.extent.end(s), _col0(s), leading + lines)
            return
        entry = [leading, len(self.blocks), False]
        self.pending.append(entry)
        f = _STMTS.get(type(s))
        if f is None:
            raise DslError(f"Unsupported statement: {self.source_of(s)}", s)
        f(self, s)
        self.pending.pop()
        if not entry[2] and entry[0]:
            self.comments.requeue_after(self.extent.end(s), _col0(s), entry[0])

    def _pass(self, s):
        pass

    def _opaque(self, s: ir.OpaqueStmt):
        from tilemem.frontend.dsl.pyline import statement_of
        st = statement_of(s)
        if type(st) is tuple and st[0] == "submit_unpack":
            return self._submit_unpack(st[1], st[2], s)
        if type(st) is tuple and st[0] == "tuple_unpack":
            return self._tuple_assign(st[1])
        if type(st) is tuple:
            return self.subscript_assign(st[1], st[2], s)
        if st is not None:
            return _STMTS[type(st)](self, st)
        kind = "statement"
        try:
            mod = ast.parse(s.text)
            node = mod.body[0]
            kind = type(node).__name__
            if isinstance(node, ast.Expr):
                raise DslError(f"Unsupported expression type: {type(node.value).__name__}", s)
            if isinstance(node, ast.Return):
                _reject_unsupported_expr(node.value, s)
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                value = node.value
                if isinstance(target, ast.Starred) or (isinstance(target, ast.Tuple) and any(
                        isinstance(x, ast.Starred) for x in target.elts)):
                    bad = next(x for x in ([target] if isinstance(target, ast.Starred) else target.elts)
                               if isinstance(x, ast.Starred))
                    raise DslError(f"Tuple unpacking target must be a variable name, got {ast.unparse(bad)}", s)
                if isinstance(target, ast.Tuple) and isinstance(node, ast.Assign):
                    bad = next((x for x in target.elts if not isinstance(x, ast.Name)), None)
                    if bad is not None:             # AP:1896-1902 (a submit's targets: _submit_unpack)
                        raise DslError(f"Tuple unpacking target must be a variable name, got {ast.unparse(bad)}",
                                       line=(s.line or 1) + bad.lineno - 1,
                                       col=bad.col_offset + 1 + ((s.col or 1) - 1 if bad.lineno == 1 else 0))
                if isinstance(target, ast.Attribute):
                    if isinstance(node, ast.AnnAssign):
                        raise DslError("Only simple variable assignments supported", s)
                    raise DslError(f"Unsupported assignment: {ast.unparse(node)}", s)
                if isinstance(target, ast.Subscript):
                    raise DslError("Subscript assignment (x[...] = v) is not supported by tilemem's DSL reader; "
                                   "use pl.assemble(...)", s)
                _reject_unsupported_expr(value, s)
                if isinstance(node, ast.Assign) and len(node.targets) > 1:
                    raise DslError(f"Unsupported assignment: {ast.unparse(node)}", s)
        except SyntaxError:
            pass
        raise DslError(f"Unsupported statement type: {kind}", s)

    def _break(self, s):
        self._loop_control("break", s)
        self.emit(ir.Break(line=s.line, col=s.col))

    def _continue(self, s):
        self._loop_control("continue", s)
        self.emit(ir.Continue(line=s.line, col=s.col))

    def _loop_control(self, kw: str, s):
        if not self.loop_kinds:
            raise DslError(f"SyntaxError: Failed to compile code from <string>: '{kw}' outside loop "
                           f"(<string>, line {s.line})", s)
        k = self.loop_kinds[-1]
        if k == "parallel":
            raise DslError(f"'{kw}' not supported in parallel loops", s)
        if k == "unroll":
            raise DslError(f"'{kw}' not supported in unrolled loops", s)
        if k == "split_aiv":
            raise DslError(f"'{kw}' not supported inside a 'for ... in pl.split_aiv(...)' body", s)

    def _return(self, s: ir.Return):
        items = s.values
        if len(items) == 1 and type(items[0]) is ir.TupleExpr:       # return (a, b)
            items = list(items[0].items)
        vals = [self.expr(v) for v in items]
        if self.first_return is None and vals:
            self.first_return = [v.type for v in vals]
        self.emit(ir.Return([v.expr for v in vals], line=s.line, col=s.col))

    def _eval(self, s: ir.EvalStmt):
        e = s.expr
        if _pl_call(e, "static_assert") or _pl_call(e, "static_print"):
            return
        if _pl_call(e, "dump_tag"):
            # a marker: later kernel calls taking this very Var list it in dump_vars
            if self.func_type not in ("Orchestration", "Inline"):       # AP:3117-3121
                raise DslError("pl.dump_tag() is only valid inside an Orchestration or Inline function", s)
            if len(e.args) != 1 or e.kwargs:                               # AP:3132-3146
                raise DslError("pl.dump_tag() takes exactly one positional argument (no keywords)", s)
            if type(e.args[0]) is not ir.Name:
                raise DslError("pl.dump_tag() argument must be a bare variable name", e.args[0])
            v = self.expr(e.args[0])
            if v.var is None:
                raise DslError("pl.dump_tag() takes a variable", s)
            self.dump_tagged.append(v.var)
            return
        if _pl_call(e, "func_attr"):
            raise DslError(f"pl.func_attr() must appear before every other statement in '{self.raw.name.value}'", s)
        v = self.expr(e)
        self.emit(ir.EvalStmt(v.expr, line=s.line, col=s.col))

    # -- yields ---------------------------------------------------------------------------------
    def _yield(self, s: ir.Yield):
        vals = [self.expr(v) for v in s.values]
        y = ir.Yield([v.expr for v in vals], line=s.line, col=s.col)
        self.emit(y)
        if not s.targets:
            return
        if self.yield_stmts is not None:
            self.yield_stmts.append(y)
        if len(s.targets) == 1:
            self._track_yield(s.targets[0], vals)
        else:
            for i, name in enumerate(s.targets):
                if i < len(vals):
                    self._track_yield(name, [vals[i]])

    def _track_yield(self, name: str, vals: list):
        if self.yield_vars is not None:
            self.yield_vars.append(name)
        if self.yield_types is not None and len(vals) == 1:
            self.yield_types.setdefault(name, vals[0].type)

    def _scan_yields(self, stmts: list) -> list:
        out = []
        for s in stmts:
            if type(s) is ir.Yield and s.targets:
                if len(s.targets) == 1:
                    out.append((s.targets[0], s.annotation, s))
                else:
                    out.extend((n, None, s) for n in s.targets)
            elif type(s) is ir.With and _is_runtime_scope(s.item):
                out.extend(self._scan_yields(s.body))
        return out

    # -- assignments -------------------------------------------------------------------------------
    def _assign(self, s: ir.Assign):
        if len(s.targets) > 1:
            return self._tuple_assign(s)
        name = s.targets[0]
        ann = s.annotation
        value = s.value
        if _pld_call(value, "alloc_window_buffer") and (ann is None or (
                type(ann) is ir.Dotted and ann.parts[-1] == "Ptr")):
            return self.assign_or_let(name, self.alloc_window_buffer(name, value), s, None)
        if _pl_call(value, "submit") or _pl_call(value, "spmd_submit"):
            val = self.submit(value)
        else:
            val = self.expr(value)
        override = None
        if ann is not None:
            resolved = self._annotation(ann, s)
            if resolved is not None:
                region = type(val.expr) is ir.Call and val.expr.func in op_table().region_ops
                override = merge_annotation(resolved, val, name, s, region)
        if isinstance(override, ir.ScalarType) and type(val.expr) is ir.IntConst:
            val = const_int(val.expr.value, override.dtype, val.expr)
        self.assign_or_let(name, val, s, override)

    def alloc_window_buffer(self, name: str, call: ir.Call) -> Val:
        """``buf = pld.alloc_window_buffer(size)`` (AP:2157-2224; language/distributed/op/
        tensor_ops.py): a HOST-orchestration resource named by its LHS, unique in the program;
        the shape form ``([dims], dtype=T)`` allocates dims x the dtype's bytes."""
        if self.explicit_level != "HOST" or self.incore_depth:
            level = f"Level.{self.explicit_level}" if self.explicit_level else "None"
            raise DslError("pld.tensor.alloc_window_buffer() can only be called in HOST orchestration context "
                           f"(not inside InCore / SPMD scopes); current function level: {level}", call)
        if name in self.ctx.window_buffers:
            raise DslError(f"pld.tensor.alloc_window_buffer name '{name}' is already declared in this program", call)
        if any(k == "name" for k, _ in call.kwargs):
            raise DslError("pld.tensor.alloc_window_buffer 'name' kwarg cannot be passed explicitly — it is "
                           f"auto-derived from the assignment LHS ('{name}')", call)
        fail = f"Failed to parse function '{self.fname}': "
        dtype = next((v for k, v in call.kwargs if k == "dtype"), None)
        first = call.args[0] if call.args else None
        if type(first) in (ir.ListExpr, ir.TupleExpr):
            if dtype is None:
                raise DslError(f"{fail}pld.tensor.alloc_window_buffer requires dtype= when the first argument is a "
                               "shape (list / tuple of per-rank dimensions)", call)
            call = ir.replace(call, args=(self._window_bytes(first, self.types.dtype(dtype), fail, call),)
                              + tuple(call.args[1:]), kwargs=tuple(kv for kv in call.kwargs if kv[0] != "dtype"))
        elif dtype is not None:
            raise DslError(f"{fail}pld.tensor.alloc_window_buffer dtype= is only valid when the first argument is a "
                           "shape (list / tuple), not a scalar byte size", call)
        self.alloc_rhs = True
        try:
            val = self.expr(call)
        finally:
            self.alloc_rhs = False
        self.ctx.window_buffers.add(name)
        return val

    def _window_bytes(self, shape, dtype: str, fail: str, node):
        """_compute_window_buffer_bytes: a static total as one INT64 constant, else the
        product of the dims (INT64 constants for the static ones) and the dtype's bytes."""
        from tilemem.frontend.dsl.values import DTYPE_BITS
        if not shape.items:
            raise DslError(f"{fail}pld.tensor.alloc_window_buffer shape must be non-empty", node)
        dims = []
        for i, d in enumerate(shape.items):
            c = d.value if type(d) is ir.IntConst else self.closure(d.id) if type(d) is ir.Name and \
                self.lookup(d.id) is None else None
            if isinstance(c, int) and not isinstance(c, bool):
                if c <= 0:
                    raise DslError(f"{fail}pld.tensor.alloc_window_buffer shape dimension[{i}] is {c}; all dimensions "
                                   "must be positive", node)
                dims.append(c)
            else:
                dims.append(d)
        nbytes = (DTYPE_BITS[dtype] + 7) // 8

        def i64(v):
            return ir.Call("pl.const", (ir.IntConst(v), ir.Dotted(("pl", "INT64"))), ())
        if all(isinstance(d, int) for d in dims):
            total = nbytes
            for d in dims:
                total *= d
            return i64(total)
        out = i64(dims[0]) if isinstance(dims[0], int) else dims[0]
        for d in dims[1:]:
            out = ir.BinOp("*", out, i64(d) if isinstance(d, int) else d)
        return ir.BinOp("*", out, i64(nbytes))

    def _annotation(self, e, node):
        """The resolved annotation type, or None when PyPTO ignores it (pl.UnknownType,
        pl.Ptr, pl.MemRefType, a string forward reference)."""
        if type(e) is ir.Dotted and e.parts[-1] in ("UnknownType", "MemRefType", "Ptr"):
            return None
        if type(e) is ir.StrConst:
            return None
        return self.types.resolve(e)

    def assign_or_let(self, name: str, val: Val, node, override=None) -> Var:
        existing = self.lookup(name)
        vtype = override if override is not None else val.type
        if (is_unknown(vtype) and type(val.expr) is ir.Call and val.expr.func.startswith("pl.")
                and val.expr.func[3:] in self.ctx.declared_ops):
            raise DslError(f"cannot deduce the result type of {val.expr.func} (an op declared by a "
                           f"--rules file): annotate the assignment, e.g. "
                           f"`{name}: pl.Tile[[16, 16], pl.FP32] = ...`", node)
        if self.func_type == "Orchestration" and type(val.expr) is ir.Name \
                and val.expr.id in self.param_dim_symbols \
                and (existing is None or existing.key in self.param_dim_symbols) \
                and (override is None or types_equal(override, val.type)):
            # a name for a parameter's extent symbol: bound to it, no statement (AP:1804-1820)
            sym = self.ctx.dynamics[val.expr.id]
            self.define(name, sym, node)
            return sym
        if existing is not None and not existing.iter_arg and not self.ctx.strict_ssa and not existing.dyn \
                and existing.key not in self.param_dim_symbols:
            if not is_unknown(vtype) and not is_unknown(existing.type) and not types_equal(existing.type, vtype):
                raise DslError(f"Cannot reassign '{name}' with a different type: was "
                               f"{print_type_text(self._hinted(existing.type))}, got "
                               f"{print_type_text(self._hinted(vtype))}", node)
            self.emit(ir.Assign([existing.key], self._hinted(existing.type), val.expr, line=node.line, col=node.col))
            self.define(name, existing, node)
            return existing
        if isinstance(val.type, (ir.TileType, ir.TensorType, ir.ScalarType, ir.TupleType)) and override is not None:
            if type(override) is not type(val.type) and not is_unknown(val.type):
                raise DslError(f"Type override for '{name}' is incompatible: inferred {type(val.type).__name__} "
                               f"but override is {type(override).__name__}", node)
        var = self.new_var(name, vtype)
        self.emit(ir.Assign([var.key], vtype, val.expr, line=node.line, col=node.col))
        self.define(name, var, node)
        return var

    def _hinted(self, t):
        return t

    def _tuple_assign(self, s: ir.Assign):
        value = s.value
        if _pl_call(value, "submit") or _pl_call(value, "spmd_submit"):
            return self._submit_assign(s)
        val = self.expr(value)
        if not isinstance(val.type, ir.TupleType):
            raise DslError(f"Cannot unpack a value of type {print_type_text(val.type)}", s)
        tmp = self.new_var("_tuple_tmp", val.type)
        self.emit(ir.Assign([tmp.key], val.type, val.expr, line=s.line, col=s.col))
        for i, name in enumerate(s.targets):
            if i >= len(val.type.items):
                raise DslError(f"Tuple index {i} out of range", s)
            item = Val(ir.Subscript(ir.Name(tmp.key), (ir.IntConst(i),)), val.type.items[i])
            self.assign_or_let(name, item, s)

    def submit(self, call: ir.Call) -> Val:
        """``pl.submit(self.kernel, args..., deps=[...])``: the kernel call, typed
        ``pl.Tuple[<kernel results>..., pl.Scalar[pl.TASK_ID]]`` (ast_parser.py:1997-2155)."""
        construct = call.func.split(".", 1)[1]
        if not call.args:
            raise DslError(f"pl.{construct}(...) requires the kernel as its first argument", call)
        k = call.args[0]
        if type(k) is not ir.Dotted or len(k.parts) != 2 or k.parts[0] != "self":
            raise DslError(f"pl.{construct}(...) first argument must be a `self.<kernel>` method reference", call)
        fname = k.parts[1]
        if fname not in self.ctx.function_names:
            raise DslError(f"Function '{fname}' not defined in program", call)
        allowed = ("deps", "dumps", "allow_early_resolve", "predicate", "attrs") + \
            (("core_num", "sync_start") if construct == "spmd_submit" else ())
        for key, _ in call.kwargs:
            if key not in allowed:
                raise DslError(f"Function '{fname}' does not accept keyword argument '{key}'", call)
        raw, no_dep = _strip_no_dep(call.args[1:])
        args = [self.expr(a) for a in raw]
        sig = self.ctx.signatures.get(fname)
        rts: list = []
        if sig is not None:
            nparams, declared, n_in = sig[0], sig[2], sig[3]
            if not n_in <= len(args) <= nparams:
                raise DslError(f"Function '{fname}' expects {n_in}..{nparams} argument(s), got {len(args)}", call)
            rts = self.call_return_types(sig, args, list(declared), True)
        kws = []
        given = dict(call.kwargs)
        # AP:4009-4076, 7024-7040: the launch spec is checked as it is read
        if construct == "spmd_submit":
            if "core_num" not in given:
                raise DslError(f"pl.spmd_submit(self.{fname}, ...) requires the core_num keyword argument", call)
            self.core_num_expr(given["core_num"])
        for key in ("sync_start", "allow_early_resolve"):
            v = given.get(key)
            if v is not None and type(v) is not ir.BoolConst:
                who = "" if key == "sync_start" else f"'{fname}' "
                raise DslError(f"{who}{key} must be a boolean literal (True/False)", v)
        listed = []                      # the vars dumps= names
        for key in ("deps", "dumps", "core_num", "sync_start", "allow_early_resolve", "predicate", "attrs"):
            v = given.get(key)
            if key == "dumps":
                # what the submit dumps: dumps= entries and pl.dump_tag'd args, in argument order
                if v is not None:
                    listed = self.submit_dumps(v, args, fname)
                dumped = self.dumped_args(args, listed)
                if dumped:
                    kws.append((key, ir.ListExpr(tuple(dumped))))
            elif key == "attrs":
                attrs = _call_attrs(self.call_attrs(fname, v, call, len(args))[0] if v is not None else (), no_dep)
                if attrs:
                    kws.append((key, ir.DictExpr(tuple(attrs))))
            elif v is None:
                continue
            elif key in ("sync_start", "allow_early_resolve"):
                if type(v) is ir.BoolConst and v.value:
                    kws.append((key, v))
            elif key == "deps":
                deps = self.deps_list(v, fname, call)        # named by the kernel (AP:6596)
                if deps is not None:
                    kws.append((key, deps))
            elif key == "predicate":
                kws.append((key, self.predicate_expr(v, fname)))
            else:
                kws.append((key, self.expr(v).expr))
        t = ir.TupleType(tuple(rts) + (scalar("TASK_ID"),))
        return Val(ir.Call(call.func.rsplit(".", 1)[0] + "." + construct,
                           (ir.Dotted(("self", fname)),) + tuple(a.expr for a in args), tuple(kws),
                           call.line, call.col), t)

    def submit_dumps(self, v, args: list, method: str) -> list:
        """The vars of a submit's ``dumps=[...]``: tensor variables, each an argument of the
        submit (AP:6960-6997; messages named by the kernel)."""
        out = []
        for x, d in self._tensor_var_list(v, f"'{method}' dumps= must be a list / tuple of tensor arguments",
                                          f"'{method}' dumps= entries must be tensor variables"):
            if not any(a.var is d.var for a in args):
                raise DslError(f"'{method}' dumps= entry '{self.source_of(x)}' is not an "
                               "argument of this submit", x)
            out.append(d.var)
        return out

    def predicate_expr(self, v, method: str) -> ir.Expr:
        """A dispatch ``predicate=``: read as an ordinary expression, then held to what the
        runtime evaluates -- one comparison of one element of a signed 8/16/32/64-bit integer
        tensor against an integer literal, either operand order, casts seen through
        (AP:7042-7213; PyPTO's messages, without their hints)."""
        e = self.expr(v).expr
        if not (type(e) is ir.BinOp and e.op in ("==", "!=", "<", "<=", ">", ">=")):
            extra = " (to dispatch unconditionally, omit predicate= entirely)" \
                if type(e) is ir.Call and e.func == syntax_op("no_task") else ""
            raise DslError(f"'{method}' predicate must be a single comparison (==, !=, >, <, >=, <=); "
                           f"got {_ir_class(e)}{extra}", v)

        def uncast(x):
            while type(x) is ir.Call and x.func == "pl.cast" and x.args:
                x = x.args[0]
            return x

        def is_read(x):
            return type(x) is ir.Call and x.func == syntax_op("tensor_element")
        lhs, rhs = uncast(e.left), uncast(e.right)
        read = lhs if is_read(lhs) and type(rhs) is ir.IntConst else \
            rhs if is_read(rhs) and type(lhs) is ir.IntConst else None
        if read is None:
            raise DslError(f"'{method}' predicate must compare one tensor element (e.g. t[i]) against an integer "
                           "literal; the runtime evaluates a single element-vs-constant comparison", v)
        t = self._type_of(read.args[0]) if read.args else None
        if not isinstance(t, ir.TensorType):
            shown = print_type_text(t) if isinstance(t, ir.Type) else "nothing"
            raise DslError(f"predicate operand must be a tensor, got {shown}", v)
        if t.dtype not in ("INT8", "INT16", "INT32", "INT64"):
            raise DslError(f"predicate operand must be a signed 8/16/32/64-bit integer tensor, got "
                           f"{t.dtype.lower()}. The runtime sign-extends the value it reads, so an unsigned operand "
                           "can compare as negative and silently invert the dispatch decision", v)
        idx = read.args[1] if len(read.args) > 1 else None
        indices = list(idx.items) if type(idx) in (ir.ListExpr, ir.TupleExpr) else ([idx] if idx is not None else [])
        for x in indices:
            xt = self._type_of(x)
            if isinstance(xt, ir.Type) and not (isinstance(xt, ir.ScalarType) and xt.dtype in INT_DTYPES):
                raise DslError(f"predicate indices must be integer scalars, got {print_type_text(xt)}", v)
            if type(x) is ir.IntConst and x.value < 0:
                raise DslError(f"predicate index must be non-negative, got {x.value}; the runtime stores indices as "
                               "uint32_t, so a negative value wraps to an out-of-bounds address", v)
        if len(indices) != len(t.shape):
            raise DslError(f"predicate needs {len(t.shape)} index(es) to locate a single element of a "
                           f"rank-{len(t.shape)} tensor, got {len(indices)}", v)
        return e

    def _type_of(self, x):
        """The type of an expression already read (a var's, a constant's, a call's)."""
        if type(x) is ir.Name:
            return self.key_types.get(x.id)
        if type(x) is ir.IntConst:
            return scalar("INDEX")
        return self.type_of_expr(x)

    def core_num_expr(self, v) -> Val:
        """An SPMD ``core_num``: an integer expression, positive when constant (AP:4009-4036)."""
        val = self.expr(v)
        if not (isinstance(val.type, ir.ScalarType) and val.type.dtype in INT_DTYPES):
            raise DslError(f"core_num must be an integer expression, got {print_type_text(val.type)}", v)
        if type(val.expr) is ir.IntConst and val.expr.value <= 0:
            raise DslError(f"core_num must be a positive integer, got {val.expr.value}", v)
        return val

    def unmasked(self, v):
        """``v`` with the placeholder of a ``with`` header's comprehension (reading.py
        _header_comprehensions) put back, as the list entry or the whole value."""
        comps = self.ctx.comprehensions
        if not comps:
            return v
        if type(v) is ir.Name and v.id in comps:
            return comps[v.id]
        if type(v) in (ir.ListExpr, ir.TupleExpr) and any(type(x) is ir.Name and x.id in comps for x in v.items):
            return ir.replace(v, items=tuple(comps[x.id] if type(x) is ir.Name and x.id in comps else x
                                          for x in v.items))
        return v

    def deps_list(self, v, method: str, anchor=None):
        """``deps=[...]`` of a submit or a scope (ast_parser.py:6856-6977): ``None`` entries
        dropped; TaskId / TASK_ID-array vars kept as written; when an entry reads one slot
        of a TASK_ID array (``arr[i]``) every entry goes into a fresh
        ``_submit_deps_buf`` array, built right before.  None: nothing to print."""
        v = self.unmasked(v)
        at = v if anchor is None else anchor             # where a comprehension's error points
        if is_listcomp(v):                   # Form 2: the comprehension unrolled
            items = unroll_deps(self, v, method, at)
        elif type(v) in (ir.ListExpr, ir.TupleExpr):
            items = [y for x in v.items for y in (unroll_deps(self, x, method, at) if is_listcomp(x) else [x])]
        else:
            raise DslError(f"'{method}' deps= must be a list / tuple / comprehension of TaskId values", v)
        from tilemem.frontend.dsl.types import array_dtype, array_type
        entries, desugar, whole = [], False, False
        for x in items:
            if type(x) is ir.NoneConst:
                continue
            d = self.expr(x)
            t = d.type
            if d.var is not None and (isinstance(t, ir.ScalarType) and t.dtype == "TASK_ID"
                                      or array_dtype(t) == "TASK_ID"):
                is_array = array_dtype(t) == "TASK_ID"
                if is_array and desugar:
                    raise DslError(f"'{method}' deps= cannot mix a whole TASK_ID array with per-element "
                                   f"entries (got array entry '{self.source_of(x)}' after a per-element / "
                                   "comprehension entry)", x)
                whole = whole or is_array
                entries.append(d.expr)
                continue
            if type(d.expr) is ir.Call and d.expr.func == syntax_op("array_get") and \
                    isinstance(t, ir.ScalarType) and t.dtype == "TASK_ID":
                if whole:
                    raise DslError(f"'{method}' deps= cannot mix a whole TASK_ID array with per-element "
                                   f"entries (got per-element entry '{self.source_of(x)}' after a "
                                   "whole-array entry)", x)
                entries.append(d.expr)
                desugar = True
                continue
            raise DslError(f"'{method}' deps= entries must be a TaskId variable, a TASK_ID array element "
                           f"(e.g. `arr[i]`), or None — got '{self.source_of(x)}'", x)
        if not entries:
            return None
        if not desugar:
            return ir.ListExpr(tuple(entries))
        n = len(entries)
        t = array_type(ir.IntConst(n), "TASK_ID")
        line, col = v.line, v.col
        buf = self.new_var("_submit_deps_buf", t)
        self.emit(ir.Assign([buf.key], t, ir.Call(syntax_op("array_create"), (ir.IntConst(n),),
                                                  (("dtype", dotted("pl", "TASK_ID")),)), line=line, col=col))
        for i, e in enumerate(entries):
            prev = buf
            buf = self.new_var("_submit_deps_buf", t)
            self.emit(ir.Assign([buf.key], t, ir.Call(syntax_op("array_set"),
                                                      (ir.Name(prev.key), ir.IntConst(i), e)), line=line, col=col))
        return ir.ListExpr((ir.Name(buf.key),))

    def _submit_assign(self, s: ir.Assign):
        self._submit_unpack(s.targets, s.value, s)

    def _submit_unpack(self, targets: list, call: ir.Call, s):
        """``out, tid = pl.submit(...)`` or ``(a, b), tid = ...`` for a kernel of several
        results (AP:1997-2085): ``_submit_tmp``, then one binding per result and the task id.
        ``targets``: names, a list for a tuple, a 1-tuple of text for anything else."""
        construct = call.func.split(".", 1)[1]
        if len(targets) != 2:
            raise DslError(f"pl.{construct}(...) must be unpacked as exactly 2 targets (result, task_id), got "
                           f"{len(targets)}", call)
        out, tid = targets
        if type(tid) is not str:
            raise DslError(f"pl.{construct}(...) task_id target must be a plain variable name", call)
        if type(out) is tuple:
            raise DslError(f"pl.{construct}(...) result target must be a variable name or a tuple of names", call)
        outs = [out] if type(out) is str else out
        for x in outs:
            if type(x) is not str:
                shown = x[0] if type(x) is tuple else _shape_text(x)
                raise DslError(f"pl.{construct}(...) result target must contain plain variable names only "
                               f"(no nested tuples), got '{shown}'", call)
        val = self.submit(call)
        n = len(val.type.items) - 1
        if n != len(outs):
            kname = call.args[0].parts[1]
            raise DslError(f"pl.{construct}(...) unpacks {len(outs)} result value(s) but kernel '{kname}' "
                           f"returns {n}", call)
        tmp = self.new_var("_submit_tmp", val.type)
        self.emit(ir.Assign([tmp.key], val.type, val.expr, line=s.line, col=s.col))
        for i, name in enumerate(outs + [tid]):
            item = Val(ir.Subscript(ir.Name(tmp.key), (ir.IntConst(i),)), val.type.items[i])
            self.assign_or_let(name, item, s)

    # -- control flow ------------------------------------------------------------------------------
    def _check_bool(self, v: Val, kind: str, node):
        t = v.type
        if not isinstance(t, ir.ScalarType) or t.dtype != "BOOL":
            shown = print_type_text(t) if isinstance(t, ir.Type) else str(t)
            raise DslError(f"{kind} condition must be a Bool-typed scalar expression, got {shown}", node)

    def _if(self, s: ir.If):
        cond = self.expr(s.cond)
        self._check_bool(cond, "if", s)
        scanned = self._scan_yields(s.then_body)
        names = [n for n, _, _ in scanned]
        anns = {}
        for n, a, _ in scanned:
            anns.setdefault(n, a)
        if s.else_body:
            for n, a, _ in self._scan_yields(s.else_body):
                if n not in anns:
                    names.append(n)
                    anns[n] = a
        names = list(dict.fromkeys(names))
        leak = not names
        saved = (self.yield_vars, self.yield_types, self.yield_stmts, self.in_if)
        self.yield_vars, self.yield_types, self.yield_stmts = [], {}, []
        self.in_if = True
        self.blocks.append([])
        self.enter_scope()
        self.body(s.then_body)
        if s.then_body:
            self.comments.discard_tail(s.then_body[0].line or 1, _col0(s.then_body[0]), self._then_upper(s))
        self.exit_scope(leak)
        then_body = self.blocks.pop()
        else_body = None
        if s.else_body:
            self.blocks.append([])
            self.enter_scope()
            self.body(s.else_body)
            self.comments.discard_tail(s.else_body[0].line or 1, _col0(s.else_body[0]), self.extent.end(s))
            self.exit_scope(leak)
            else_body = self.blocks.pop() or None
        types = dict(self.yield_types)
        self.yield_vars, self.yield_types, self.yield_stmts, self.in_if = saved
        self.in_if = False
        rvars = []
        for n in names:
            a = anns.get(n)
            if a is not None:
                t = self._yield_annotation(a)
            elif n in types:
                t = types[n]
            else:
                t = ir.TensorType((ir.IntConst(1),), "INT32")
            rvars.append(self.new_var(n, t))
        if rvars:
            for body in (then_body, else_body or []):
                y = _trailing_yield(body)
                if y is not None and len(y.values) >= 1:
                    y.targets = [v.key for v in rvars[:max(len(y.values), 1)]] if len(rvars) > 1 else [rvars[0].key]
                    y.target_types = [v.type for v in rvars]
                    if len(rvars) > 1:
                        y.targets = [v.key for v in rvars]
        self.emit(ir.If(cond.expr, then_body, else_body, line=s.line, col=s.col))
        for n, v in zip(names, rvars):
            self.define(n, v, s)

    def _yield_annotation(self, a):
        t = self._annotation(a, a)
        if isinstance(t, list):
            if not t:
                return ir.TensorType((ir.IntConst(1),), "INT32")
            return t[0] if len(t) == 1 else ir.TupleType(tuple(t))
        return t if t is not None else UNKNOWN

    def _then_upper(self, s: ir.If) -> int:
        return self.extent.then_upper(s)

    def _while(self, s: ir.While):
        cond = self.expr(s.cond)
        self._check_bool(cond, "while", s)
        saved = (self.in_while,)
        self.in_while = True
        self.loop_kinds.append("while")
        self.blocks.append([])
        self.enter_scope()
        self.body(s.body)
        if s.body:
            self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        self.exit_scope(True)
        body = self.blocks.pop()
        self.loop_kinds.pop()
        (self.in_while,) = saved
        self.emit(ir.While(cond.expr, body, line=s.line, col=s.col))

    def _for(self, s: ir.For):
        it = s.iter
        kind = it.func.rsplit(".", 1)[-1]
        if "." not in it.func or kind not in _ITERATORS:
            raise DslError(_ITER_ERR, it)
        if kind == "while_":
            return self._while_for(s)
        if kind in ("spmd", "split_aiv"):
            return self._scope_loop(s, kind)
        simple = not s.iter_args
        if s.loop_var is None:
            raise DslError("For loop target must be a simple name or: (loop_var, (iter_args...))", s)
        if not it.args:
            raise DslError(f"pl.{kind}() requires at least 1 argument (stop)", it)
        bounds = [self.expr(a) for a in it.args[:3]]
        init_vals: list = []
        attrs = None
        stage = None
        for k, v in it.kwargs:
            if k == "init_values":
                if type(v) not in (ir.TupleExpr, ir.ListExpr):
                    raise DslError("init_values must be a list or tuple", v)
                init_vals = [self.expr(x) for x in v.items]
            elif k == "attrs":
                attrs = v
            elif k == "stage" and kind == "pipeline":
                stage = v
            elif k == "stage":
                raise DslError(f"stage= is only supported on pl.pipeline(), not pl.{kind}()", it)
            else:
                raise DslError(f"Unknown keyword argument '{k}' in pl.{kind}()", it)
        if simple and init_vals:
            raise DslError("For loop target must be a tuple when init_values is provided", s)
        if init_vals and self._bare_yield(s.body):
            raise DslError("Loop with init_values requires an assignment-form pl.yield_(...) — the LHS supplies "
                           "the post-loop binding name. Bare pl.yield_(...) is rejected here.", s)
        if kind == "unroll":
            if init_vals:
                raise DslError("pl.unroll() cannot be combined with init_values", it)
            for b in bounds:
                if type(b.expr) is not ir.IntConst:
                    raise DslError("pl.unroll() requires compile-time constant integer bounds", it)
            if len(bounds) == 3 and bounds[2].expr.value == 0:
                raise DslError("pl.unroll() step cannot be zero", it)
        if kind == "pipeline":
            if stage is None:
                raise DslError("pl.pipeline() requires stage= (positive integer)", it)
            if type(stage) is not ir.IntConst:
                raise DslError("pl.pipeline() stage must be a compile-time constant integer", it)
            if stage.value < 1:
                raise DslError(f"pl.pipeline() stage must be >= 1, got {stage.value}", it)
        if len(bounds) == 1:
            start, stop, step = const_int(0), bounds[0], const_int(1)
        elif len(bounds) == 2:
            start, stop, step = bounds[0], bounds[1], const_int(1)
        else:
            start, stop, step = bounds
        ldt = "INDEX"
        saw_index = saw_int64 = False
        for bd in (start, stop, step):
            cv = const_value(bd.expr)
            if cv is not None and cv[0] != "BOOL" and type(bd.expr) in (ir.IntConst, ir.Call):
                if cv[0] == "INDEX":
                    saw_index = True
                elif cv[0] == "INT64":
                    saw_int64 = True
                else:
                    ldt = cv[0]
                    break
        if ldt == "INDEX" and saw_int64 and not saw_index:
            ldt = "INT64"
        loop_var = self.new_var(s.loop_var, scalar(ldt))
        saved = (self.yield_vars, self.yield_types, self.yield_stmts, self.in_for)
        self.in_for = True
        self.loop_kinds.append(kind)
        self.enter_scope()
        self.define(s.loop_var, loop_var, s, allow_redef=True)
        iter_vars = []
        if not simple:
            if len(s.iter_args) != len(init_vals):
                raise DslError(f"Mismatch: {len(s.iter_args)} iter_args but {len(init_vals)} init_values", s)
            for n, iv in zip(s.iter_args, init_vals):
                v = self.new_var(n, iv.type, iter_arg=True)
                iter_vars.append(v)
                self.define(n, v, s, allow_redef=True)
        self.yield_vars, self.yield_types, self.yield_stmts = [], {}, []
        self.blocks.append([])
        with self._loop_masks_errors("For", len(iter_vars)):
            self.body(s.body)
        if s.body:
            self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        out_names = list(self.yield_vars)
        body = self.blocks.pop()
        self.exit_scope(simple and not out_names)
        self.loop_kinds.pop()
        self.yield_vars, self.yield_types, self.yield_stmts, self.in_for = saved
        rvars = []
        if not simple:
            if out_names:
                if len(out_names) != len(iter_vars):
                    raise DslError(f"Failed to parse function '{self.raw.name.value}': For loop has "
                                   f"{len(iter_vars)} iteration arguments but {len(out_names)} return variables. "
                                   "They must match.", s)
                rvars = [self.new_var(n, iv.type) for n, iv in zip(out_names, iter_vars)]
                y = _trailing_yield(body)
                if y is not None:
                    y.targets = [v.key for v in rvars]
                    y.target_types = [v.type for v in rvars]
            else:
                rvars = [self.new_var(f"{iv.hint}_out", iv.type) for iv in iter_vars]
        kws = []
        if stage is not None:
            kws.append(("stage", ir.IntConst(stage.value)))
        if init_vals:
            kws.append(("init_values", ir.TupleExpr(tuple(v.expr for v in init_vals))))
        if attrs is not None:
            kws.append(("attrs", self._loop_attrs(attrs)))
        hdr = self._bounds(start, stop, step)
        call = ir.Call(f"pl.{kind}", tuple(hdr), tuple(kws), it.line, it.col)
        loop = ir.For(loop_var.key, [v.key for v in iter_vars] if not simple else None, call, body,
                      line=s.line, col=s.col)
        self.emit(loop)
        if out_names:
            for n, v in zip(out_names, rvars):
                self.define(n, v, s)

    def _scope_loop(self, s: ir.For, kind: str):
        """``for blk in pl.spmd(n, ...)`` / ``for aiv in pl.split_aiv(n, mode=...)``: scopes
        (an SPMD grid, the two AIV lanes), printed as loops; the loop var is the block /
        sub-block index (INDEX).  Names bound in the body stay visible after it."""
        it = s.iter
        if s.loop_var is None or s.iter_args:
            raise DslError(f"pl.{kind}() takes one loop variable: for i in pl.{kind}(...)", s)
        if kind == "spmd":
            it = _spmd_core_num(it)
        if len(it.args) != 1:
            raise DslError(f"pl.{kind}() takes the count as its one positional argument", it)
        n = self.core_num_expr(it.args[0]) if kind == "spmd" else self.expr(it.args[0])
        kws = []
        if kind == "split_aiv" and not (type(n.expr) is ir.IntConst and n.expr.value == 2):
            got = n.expr.value if type(n.expr) is ir.IntConst else self.source_of(n.expr)    # AP:4996-5004
            raise DslError(f"pl.split_aiv(n) requires n == 2 (AIV sub-core count is hardware-fixed at 2), "
                           f"got {got}", it.args[0])
        if kind == "split_aiv":
            for k, v in it.kwargs:
                if k != "mode":
                    raise DslError(f"Unknown keyword argument '{k}' in pl.split_aiv()", it)
                if type(v) is not ir.Dotted or v.parts[-2:-1] != ("SplitMode",):
                    raise DslError("pl.split_aiv() mode must be a pl.SplitMode value", v)
                if v.parts[-1] not in _SPLIT_MODES:     # parser/enum_utils.py:95
                    raise DslError(f"Unknown SplitMode value: {v.parts[-1]}", v)
                kws.append(("mode", dotted("pl", "SplitMode", v.parts[-1])))
            if not kws:
                raise DslError("pl.split_aiv() requires mode=pl.SplitMode.<...>", it)
            user = next((m for m in reversed(self.user_splits) if m is not None), None)
            if user is not None:        # AP:841-870: two AIV-split mechanisms on one scope
                raise DslError(f"scope combines a function-level pl.split(pl.SplitMode.{user}) "
                               "(optimizations=[pl.split(...)]) with a pl.split_aiv region; these are mutually "
                               "exclusive AIV-split mechanisms \u2014 the function-level split would be silently "
                               "dropped (the per-region split governs the lanes)", s)
        else:
            for k, v in it.kwargs:
                if k == "deps":     # the loop form has no TaskId (AP:4105-4131)
                    raise DslError("pl.spmd() does not accept 'deps=' here", v)
            self._spmd_in_cluster(s, it)
            kws = list(self._scope_kwargs("spmd", it, loop=True))
        var = self.new_var(s.loop_var, scalar("INDEX"))
        self.define(s.loop_var, var, s, allow_redef=True)
        self.loop_kinds.append(kind)
        self.split_modes.append(kws[0][1] if kind == "split_aiv" else None)
        self.incore_depth += 1
        body = self.block(s)
        self.incore_depth -= 1
        self.split_modes.pop()
        self.loop_kinds.pop()
        call = ir.Call(it.func.rsplit(".", 1)[0] + "." + kind, (n.expr,), tuple(kws), it.line, it.col)
        loop = ir.For(var.key, None, call, body, line=s.line, col=s.col)
        if kind == "split_aiv" and not self.incore_depth and self.func_type != "InCore":
            # outside an InCore scope or function the split region opens its own InCore
            # scope, even in an AIC / AIV function (AP:5035-5056)
            at_kws = self._with_dumps([("level", dotted("pl", "Level", "CORE_GROUP"))], _SCOPE_KWARGS["at"])
            loop = ir.With(ir.Call("pl.at", (), tuple(at_kws)), None, [loop], line=s.line, col=s.col)
        self.emit(loop)

    def _scope_kwargs(self, name: str, item: ir.Call, loop: bool = False) -> list:
        """The keyword arguments of a scope construct, checked, in printed order."""
        order = _SCOPE_KWARGS[name]
        given = dict(item.kwargs)
        for k in given:
            if k not in order:
                raise DslError(f"Unknown keyword argument '{k}' in pl.{name}()", item)
        kws = []
        for k in order:
            if k not in given:
                continue
            v = given[k]
            if k == "level":
                lv = v.parts[-1] if type(v) is ir.Dotted else None
                lv = LEVEL_ALIASES.get(lv, lv)
                if lv not in LEVELS:
                    raise DslError(f"Unknown Level value: {self.source_of(v)}", v)
                kws.append((k, dotted("pl", "Level", lv)))
            elif k == "role":
                rv = v.parts[-1] if type(v) is ir.Dotted else None
                if rv not in ROLES:
                    raise DslError(f"Unknown Role value: {self.source_of(v)}", v)
                kws.append((k, dotted("pl", "Role", rv)))
            elif k == "name_hint":
                if type(v) is not ir.StrConst:
                    raise DslError("name_hint must be a string literal", v)
                hint = self.string_value(v)
                if hint and (not hint.isidentifier() or keyword.iskeyword(hint)):
                    raise DslError(f"pl.{name}() 'name_hint' must be a valid non-keyword identifier, got {hint!r}", v)
                if loop and hint and not hint.endswith("_spmd"):
                    hint += "_spmd"         # the loop form names its Spmd scope (ast_parser.py:585-600)
                kws.append((k, ir.StrConst(hint, '"')))
            elif k in ("sync_start", "allow_early_resolve", "windowize"):
                if type(v) is not ir.BoolConst:     # AP:3575-3588 (pl.at), 4078-4090 (pl.spmd)
                    who = "pl.at() " if name == "at" else ""
                    raise DslError(f"{who}{k} must be a boolean literal (True/False)", v)
                if v.value:
                    kws.append((k, v))
            elif k == "optimizations":
                if type(v) is not ir.ListExpr:
                    raise DslError(f"pl.{name}(optimizations=...) must be a list literal", v)
                entries = _optimizations(self, v, f"pl.{name}")
                if entries:             # nothing to print: no optimization (or SplitMode.NONE alone)
                    kws.append((k, ir.ListExpr(entries)))
            elif k == "deps":
                deps = self.deps_list(v, f"pl.{name}()")
                if deps is not None:
                    kws.append((k, deps))
            elif k in ("no_dep_args", "dumps") and name == "at" and \
                    not self._at_tensor_names(k, v) and type(v) is ir.ListExpr:
                continue                # an empty var list is not printed (python_printer.cpp:1912-1933)
            elif k in ("no_dep_args", "dumps") and type(v) is ir.ListExpr and not v.items:
                continue
            elif k == "predicate":
                kws.append((k, self.predicate_expr(v, f"pl.{name}()")))
            else:                       # no_dep_args / dumps: expressions
                kws.append((k, self.expr(v).expr))
        return kws

    def _spmd_in_cluster(self, s, item: ir.Call) -> None:
        """A pl.spmd nested in pl.cluster() is unwrapped into the Group function and never
        becomes a Submit: what only a Submit carries is rejected (AP:4263-4292, 4720-4728)."""
        if not self.cluster_depth:
            return
        if getattr(s, "as_name", None) is not None:
            raise DslError("`with pl.spmd(...) as tid:` cannot capture a TaskId when nested inside `pl.cluster()` "
                           "— a cluster-nested pl.spmd is unwrapped into the Group function and never produces a "
                           "Submit.", s)
        given = dict(item.kwargs)
        early = given.get("allow_early_resolve")
        if type(early) is ir.BoolConst and early.value:
            kwarg, lost = "allow_early_resolve=True", "the early-dispatch hint"
        elif given.get("predicate") is not None:
            kwarg, lost = "predicate=(...)", "the dispatch predicate"
        else:
            return
        raise DslError(f"`pl.spmd(..., {kwarg})` cannot be nested inside `pl.cluster()` — a cluster-nested "
                       f"pl.spmd is unwrapped into the Group function and never produces a Submit, so {lost} "
                       "would be lost.", s)

    def _at_tensor_names(self, k: str, v) -> list:
        """``pl.at(no_dep_args=[...])`` / ``pl.at(dumps=[...])``: distinct bare names of tensors
        (AP:5410-5520)."""
        if type(v) not in (ir.ListExpr, ir.TupleExpr):
            raise DslError(f"pl.at({k}=...) must be a list literal of tensor names", v)
        seen, out = set(), []
        for x in v.items:
            if type(x) is not ir.Name:
                raise DslError(f"pl.at({k}=[...]) entries must be bare tensor names", x)
            var = self.lookup(x.id)
            if var is None:
                raise DslError(f"pl.at({k}=[...]) references unknown name '{x.id}'", x)
            if not isinstance(var.type, ir.TensorType):
                raise DslError(f"pl.at({k}=[...]) entry '{x.id}' is not a tensor (got type "
                               f"{print_type_text(var.type)})", x)
            if id(var) in seen:
                raise DslError(f"pl.at({k}=[...]) lists '{x.id}' more than once", x)
            seen.add(id(var))
            out.append(var)
        return out

    def shard(self, name: str, call: ir.Call) -> Val:
        """``pl.aiv_shard(x)`` / ``pl.aic_gather(x)``: the split mode is the enclosing
        ``pl.split_aiv``'s; stored without ``split=`` (the printer suppresses it there).
        The outlined form ``pl.tile.aiv_shard(t, split=N[, lane_stride=M])`` carries the
        split itself, outside any split_aiv loop, on a tile only (AP:6270-6390)."""
        mode = next((m for m in reversed(self.split_modes) if m is not None), None)
        split = lane = None
        for k, v in call.kwargs:
            if k == "split":
                split = v
            elif k == "lane_stride":
                lane = v
            elif k == "mode":
                raise DslError(f"pl.{name}() does not take a mode= argument \u2014 pass the lowered integer "
                               "'split=' (outlined form) or rely on the enclosing pl.split_aiv(mode=...) scope "
                               "(high-level form)", call)
            else:
                raise DslError(f"pl.{name}() does not accept keyword argument '{k}'", call)
        if len(call.args) != 1:
            raise DslError(f"pl.{name}() takes exactly one positional argument (the tile to "
                           f"{'shard' if name == 'aiv_shard' else 'gather'}), got {len(call.args)}", call)
        x = self.expr(call.args[0])
        from tilemem.frontend.dsl.operands import is_dist
        if is_dist(x.type):
            raise DslError(f"pl.{name} does not support distributed tensors (AIV/AIC split only)", call)
        ns = "tensor" if isinstance(x.type, ir.TensorType) else "tile"
        if split is not None:
            if mode is not None:
                raise DslError(f"pl.{name}() does not take a split= argument inside a 'for ... in "
                               "pl.split_aiv(...)' loop \u2014 the split mode is inherited from that scope", call)
            if isinstance(x.type, ir.TensorType):
                raise DslError(f"pl.{name}(..., split=N) does not accept a high-level Tensor operand \u2014 the "
                               "outlined split= form is tile-only. Wrap the Tensor in a 'for aiv_id in "
                               "pl.split_aiv(...)' region instead, which supplies the split mode and lowers to "
                               "the tile op.", call)
            if type(split) is not ir.IntConst:
                raise DslError(f"pl.{name}(..., split=N) requires an integer split (the lowered SplitMode "
                               f"value), got '{self.source_of(split)}'", call)
            kws = [("split", ir.IntConst(split.value))]
            if lane is not None:
                if name == "aic_gather":
                    raise DslError("pl.aic_gather() does not take a lane_stride= argument: only the Cube -> "
                                   "Vector shard is ever rebalanced onto a ragged boundary's valid region, so "
                                   "the gather always re-joins the lanes on the box partition", call)
                if type(lane) is not ir.IntConst:
                    raise DslError(f"pl.{name}(..., lane_stride=N) requires an integer partition stride, got "
                                   f"'{self.source_of(lane)}'", call)
                kws.append(("lane_stride", ir.IntConst(lane.value)))
            mode = kws[0][1]
            stored = ir.Call(f"pl.{ns}.{name}", (x.expr,), tuple(kws), call.line, call.col)
        elif mode is None:
            raise DslError(f"pl.{name}() must be used inside a 'for ... in pl.split_aiv(...)' loop (or pass an "
                           "explicit integer 'split=' in the outlined form); it otherwise inherits the split mode "
                           "from that scope", call)
        elif lane is not None:
            raise DslError(f"pl.{name}() does not take a lane_stride= argument inside a 'for ... in "
                           "pl.split_aiv(...)' loop \u2014 the partition follows the region's own per-lane offsets",
                           call)
        else:
            stored = ir.Call(f"pl.{ns}.{name}", (x.expr,), (), call.line, call.col)
        from tilemem.ir import typerules
        kwargs = {"split": mode} if lane is None else {"split": mode, "lane_stride": lane}
        try:
            if isinstance(x.type, ir.TensorType):
                return Val(stored, self._tensor_split_reshape(f"tensor.{name}", x.type, kwargs, name == "aiv_shard"))
            t = typerules.derive_result_type(f"{ns}.{name}", [typerules.ArgInfo(x.expr, x.type)], kwargs)
        except typerules.DeductionError as e:      # the parser's own create_op_call: parse_function wraps it
            raise DslError(f"Failed to parse function '{self.fname}': {e}", None,
                           self.raw.deftok.line, self.raw.deftok.column) from None
        if t is None:
            t = x.type
        return Val(stored, t)

    @staticmethod
    def _tensor_split_reshape(op: str, t: ir.TensorType, kwargs, halve: bool) -> ir.TensorType:
        """DeduceSplitReshapeTensor (tile_ops/cross_core.cpp:384-436): NONE keeps the operand's
        type; otherwise a 2D tensor whose split axis is halved / doubled as the tile form's,
        viewed only where the reshaped valid shape is a genuine partial."""
        from tilemem.ir import typerules
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        split = typerules.split_code(op, kwargs)
        if split == 0:
            return t
        if len(t.shape) != 2:
            raise typerules.DeductionError(
                f"{op} requires a 2D tensor, but got rank {len(t.shape)}. Reshape the operand to 2D (pl.reshape) "
                "before the shard / gather so the UP_DOWN / LEFT_RIGHT split axis is unambiguous.")
        valid = tuple(view_parts(t.view)[0] or t.shape)
        if halve:
            typerules.check_split_boundary_valid(op, t.shape, valid, split - 1)
        shape, valid = typerules.split_reshape(t.shape, valid, split - 1, halve)
        from tilemem.ir.symbolic import finalize_dims
        shape, valid = finalize_dims(shape), finalize_dims(valid)
        return ir.TensorType(shape, t.dtype, tensor_view_expr(valid, (), "ND", None, shape))

    def _bounds(self, start: Val, stop: Val, step: Val) -> list:
        def is_idx(v, n):
            return type(v.expr) is ir.IntConst and v.expr.value == n
        if is_idx(start, 0) and is_idx(step, 1):
            return [stop.expr]
        if is_idx(step, 1):
            return [start.expr, stop.expr]
        return [start.expr, stop.expr, step.expr]

    def _loop_attrs(self, e) -> ir.Expr:
        if type(e) is not ir.DictExpr:
            raise DslError('attrs must be a dict literal', e)
        items = []
        for k, v in e.items:
            if type(k) is not ir.StrConst:
                raise DslError("attrs keys must be string literals", k)
            if type(v) not in (ir.IntConst, ir.FloatConst, ir.BoolConst, ir.StrConst):
                if not (type(v) is ir.UnaryOp and type(v.operand) in (ir.IntConst, ir.FloatConst)):
                    raise DslError(f"Unsupported value type for attrs key '{self.string_value(k)}'", v)
            if type(v) is ir.StrConst:
                v = self.quoted(v)
            elif type(v) is ir.FloatConst:
                from tilemem.frontend.dsl.values import float_text
                v = ir.FloatConst(float_text(float(v.text)))
            items.append((self.quoted(k), v))
        return ir.DictExpr(tuple(items))

    def _bare_yield(self, stmts) -> bool:
        for s in stmts:
            if type(s) is ir.Yield and not s.targets:
                return True
            if type(s) in (ir.If,):
                if self._bare_yield(s.then_body) or self._bare_yield(s.else_body or []):
                    return True
            if type(s) is ir.With:
                if self._bare_yield(s.body):
                    return True
        return False

    def _while_for(self, s: ir.For):
        it = s.iter
        init_vals = []
        for k, v in it.kwargs:
            if k == "init_values":
                if type(v) not in (ir.TupleExpr, ir.ListExpr):
                    raise DslError("init_values must be a list or tuple", v)
                init_vals = [self.expr(x) for x in v.items]
            else:
                raise DslError(f"Unknown keyword argument '{k}' in pl.while_()", it)
        if it.args:
            raise DslError("pl.while_() takes no positional arguments; use init_values=(...)", it)
        if not init_vals:
            raise DslError("pl.while_() requires init_values", it)
        if s.loop_var is not None or not s.iter_args:
            raise DslError("pl.while_() target must be a tuple of iteration variables: for (a, b) in pl.while_(...)", s)
        if len(s.iter_args) != len(init_vals):
            raise DslError(f"Mismatch: {len(s.iter_args)} iter_args but {len(init_vals)} init_values", s)
        if not s.body:
            raise DslError("pl.while_() body cannot be empty", s)
        if self._bare_yield(s.body):
            raise DslError("Loop with init_values requires an assignment-form pl.yield_(...) — the LHS supplies "
                           "the post-loop binding name. Bare pl.yield_(...) is rejected here.", s)
        saved = (self.yield_vars, self.yield_types, self.yield_stmts, self.in_while)
        self.in_while = True
        self.loop_kinds.append("while")
        self.enter_scope()
        iter_vars = []
        for n, iv in zip(s.iter_args, init_vals):
            v = self.new_var(n, iv.type, iter_arg=True)
            iter_vars.append(v)
            self.define(n, v, s, allow_redef=True)
        first = s.body[0]
        self.yield_vars, self.yield_types, self.yield_stmts = [], {}, []
        self.blocks.append([])
        with self._loop_masks_errors("While", len(iter_vars)):
            if not (type(first) is ir.EvalStmt and _pl_call(first.expr, "cond")):
                raise DslError("First statement in pl.while_() body must be pl.cond(condition)", first)
            leading = self._drain(first)
            cexpr = first.expr
            if len(cexpr.args) != 1:
                raise DslError("pl.cond() takes exactly one argument", first)
            cond = self.expr(cexpr.args[0])
            cstmt = ir.EvalStmt(ir.Call(cexpr.func.rsplit(".", 1)[0] + ".cond", (cond.expr,), (), cexpr.line,
                                        cexpr.col), line=first.line, col=first.col)
            if leading:
                # pl.cond is the loop's condition, not a statement: its comments go to the next one
                self.comments.requeue_after(self.extent.end(first), _col0(first), leading)
            self.blocks[-1].append(cstmt)
            self.body(s.body[1:])
        self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        out_names = list(self.yield_vars)
        body = self.blocks.pop()
        self.exit_scope(False)
        self.loop_kinds.pop()
        self.yield_vars, self.yield_types, self.yield_stmts, self.in_while = saved
        self._check_bool(cond, "while", first)
        if out_names and len(out_names) != len(iter_vars):
            raise DslError(f"Failed to parse function '{self.raw.name.value}': While loop has "
                           f"{len(iter_vars)} iteration arguments but {len(out_names)} return variables. "
                           "They must match.", s)
        rvars = [self.new_var(n, iv.type) for n, iv in zip(out_names, iter_vars)] if out_names else \
            [self.new_var(f"{iv.hint}_out", iv.type) for iv in iter_vars]
        if out_names:
            y = _trailing_yield(body)
            if y is not None:
                y.targets = [v.key for v in rvars]
                y.target_types = [v.type for v in rvars]
        call = ir.Call(it.func, (), (("init_values", ir.TupleExpr(tuple(v.expr for v in init_vals))),),
                       it.line, it.col)
        loop = ir.For(None, [v.key for v in iter_vars], call, body, line=s.line, col=s.col)
        self.emit(loop)
        if out_names:
            for n, v in zip(out_names, rvars):
                self.define(n, v, s)

    def _with(self, s: ir.With):
        item = s.item
        if type(item) is not ir.Call or item.func.count(".") != 1:
            raise DslError("Unsupported context manager in with statement", s)
        name = item.func.split(".")[1]
        if s.as_name is not None and name not in ("at", "spmd"):
            raise DslError(f"`with pl.{name}(...) as ...:` is not supported — the `as` clause only applies to "
                           "`with pl.at(...) as tid:` and `with pl.spmd(...) as tid:`", s)
        manual = False
        if name == "scope":
            if item.args:
                raise DslError("pl.scope() takes only a 'mode=' keyword, not positional arguments", s)
            mode = None
            for k, v in item.kwargs:
                if k == "mode":
                    # extract_enum_value (parser/enum_utils.py): pl.ScopeMode.AUTO | MANUAL only
                    if type(v) is ir.NoneConst:
                        raise DslError("Expected pl.ScopeMode.<name>", v)
                    mode = _enum_kw(v, "ScopeMode", ("AUTO", "MANUAL"), "scope")
                else:
                    raise DslError(f"pl.scope() got an unexpected keyword '{k}'", s)
            manual = mode == "MANUAL"
            if mode in (None, "AUTO"):
                if self.auto_scope:
                    raise DslError("a hand-placed AUTO 'with pl.scope()' requires @pl.function(auto_scope=False)", s)
                if self.manual_depth:
                    raise DslError("an AUTO scope may not be nested inside a manual scope", s)
                new_item = ir.Call("pl.scope", (), (), item.line, item.col)
            else:
                new_item = ir.Call("pl.scope", (), (("mode", dotted("pl", "ScopeMode", mode)),),
                                   item.line, item.col)
        elif name == "manual_scope":
            if item.args or item.kwargs:
                raise DslError("pl.manual_scope() does not accept arguments", s)
            manual = True
            new_item = ir.Call("pl.scope", (), (("mode", dotted("pl", "ScopeMode", "MANUAL")),), item.line, item.col)
        elif name == "spmd":
            return self._spmd_with(s, item)
        elif name in _SCOPE_KWARGS:
            if name == "at":
                item = _at_positional(item)
            elif item.args:
                raise DslError(f"pl.{name}() takes keyword arguments only", item)
            kws = self._scope_kwargs(name, item)
            if name == "at":
                if not any(k == "level" for k, _ in item.kwargs):      # AP:3546-3551
                    raise DslError("pl.at() requires a level argument", item)
                kws = self._with_dumps(kws, _SCOPE_KWARGS["at"])
            new_item = ir.Call(f"pl.{name}", (), tuple(kws), item.line, item.col)
        else:
            raise DslError("Unsupported context manager in with statement", s)
        inner = name in ("at", "spmd")
        as_key = None
        if s.as_name is not None:
            tid = self.new_var(s.as_name, scalar("TASK_ID"))
            self.define(s.as_name, tid, s)
            as_key = tid.key
        if manual and self.manual_depth:
            raise DslError("a manual scope may not be nested inside another manual scope", s)
        self.incore_depth += inner
        self.manual_depth += manual
        self.cluster_depth += name == "cluster"
        self.user_splits.append(_user_split(item) if name == "at" else None)
        self.blocks.append([])
        self.body(s.body)
        self.user_splits.pop()
        if s.body:
            self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        body = self.blocks.pop()
        self.incore_depth -= inner
        self.manual_depth -= manual
        self.cluster_depth -= name == "cluster"
        self.emit(ir.With(new_item, as_key if name in _SCOPE_KWARGS else None, body, line=s.line, col=s.col))

    def _with_dumps(self, kws: list, order: tuple) -> list:
        """``kws`` with the tensors marked by ``pl.dump_tag`` so far merged into ``dumps``
        (forward-sticky: every scope that becomes a dispatch, ast_parser.py:5097-5147)."""
        tagged = [v for v in self.dump_tagged if isinstance(v.type, ir.TensorType)]
        if not tagged:
            return kws
        kws = list(kws)
        for i, (k, v) in enumerate(kws):
            if k == "dumps" and type(v) is ir.ListExpr:
                have = {x.id for x in v.items if type(x) is ir.Name}
                kws[i] = (k, ir.ListExpr(tuple(v.items) + tuple(ir.Name(t.key) for t in tagged
                                                                if t.key not in have)))
                return kws
        kws.append(("dumps", ir.ListExpr(tuple(ir.Name(t.key) for t in tagged))))
        pos = {k: i for i, k in enumerate(order)}
        return sorted(kws, key=lambda kv: pos.get(kv[0], len(order)))

    def _spmd_with(self, s: ir.With, item: ir.Call):
        """``with pl.spmd(n, ...) [as tid]:`` (ast_parser.py:4418-4580), built as PyPTO builds
        it -- an Spmd scope, around an InCore scope when the body does the per-block work
        itself (reads ``get_block_idx()``) or carries optimizations -- and in the shape
        PyPTO's printer gives it back (python_printer.cpp:2080-2190): ``for i in pl.spmd``
        when the InCore body starts with ``i = pl.tile.get_block_idx()``, the InCore
        statements inline under ``with pl.spmd(...) as tid:``, else the scopes as built."""
        item = _spmd_core_num(item)
        n = self.core_num_expr(item.args[0]).expr
        raw_opt = dict(item.kwargs).get("optimizations")
        has_opt = type(raw_opt) is ir.ListExpr and bool(raw_opt.items)
        carrier = _incore_carrier(s.body)
        if carrier is not None:
            if has_opt:
                twice = any(k == "optimizations" and type(v) is ir.ListExpr and v.items
                            for k, v in carrier.item.kwargs)
                where = ("is specified twice: on `pl.spmd(...)` and on the inner" if twice else
                         "belongs on the InCore scope, but the body already provides one as the inner")
                raise DslError(f"`optimizations=` {where} `pl.at(level=pl.Level.CORE_GROUP, ...)`", s)
            needs_incore = False
        else:
            inline = _reads_block_idx(s.body)
            ndisp = 0 if inline else _dispatch_count(s.body)
            if not inline and ndisp == 0:
                raise DslError("`with pl.spmd(...)` body neither reads the per-block index via "
                               "`pl.tile.get_block_idx()` nor dispatches a `self.<kernel>(...)` call, "
                               "so every block would run identical work.", s)
            if ndisp > 1:
                raise DslError(f"`with pl.spmd(...)` dispatch body launches {ndisp} kernels; only one "
                               "kernel dispatch per SPMD scope is supported.", s)
            needs_incore = inline or has_opt
        # an InCore scope built here takes the hint, the Spmd scope "<hint>_spmd" (ast_parser.py:586)
        if s.as_name is None:
            for k, v in item.kwargs:
                if k == "deps":     # no TaskId to hang the edges on (AP:4105-4131)
                    raise DslError("pl.spmd() does not accept 'deps=' here", v)
        self._spmd_in_cluster(s, item)
        kws = self._scope_kwargs("spmd", item, loop=needs_incore)
        opt = [kv for kv in kws if kv[0] == "optimizations"]
        hint = next((v.value for k, v in kws if k == "name_hint"), "")
        plain = [kv for kv in kws if kv[0] != "optimizations"]
        as_key = None
        if s.as_name is not None:
            tid = self.new_var(s.as_name, scalar("TASK_ID"))
            self.define(s.as_name, tid, s)
            as_key = tid.key
        self.incore_depth += 1
        body = self.block(s)
        self.incore_depth -= 1
        if needs_incore:
            at_kws = [("level", dotted("pl", "Level", "CORE_GROUP"))] + opt
            if hint:
                at_kws.append(("name_hint", ir.StrConst(hint[:-len("_spmd")], '"')))
            at_kws = self._with_dumps(at_kws, _SCOPE_KWARGS["at"])
            incore = ir.With(ir.Call("pl.at", (), tuple(at_kws)), None, body, line=s.line, col=s.col)
        elif len(body) == 1 and type(body[0]) is ir.With and body[0].item.func == "pl.at" and \
                _is_core_group(body[0].item):
            incore = body[0]
        else:
            incore = None
        line, col = s.line, s.col
        if incore is not None:
            inc_opt = [kv for kv in incore.item.kwargs if kv[0] == "optimizations"]
            ib = incore.body
            first = ib[0] if ib else None
            if as_key is None and type(first) is ir.Assign and type(first.value) is ir.Call and \
                    first.value.func == syntax_op("block_index") and len(first.targets) == 1:
                # the for-form: the leading block-index read is the loop var
                order = {k: i for i, k in enumerate(_SCOPE_KWARGS["spmd"])}
                fkws = sorted(plain + inc_opt, key=lambda kv: order[kv[0]])
                call = ir.Call(item.func.rsplit(".", 1)[0] + ".spmd", (n,), tuple(fkws), item.line, item.col)
                rest = ib[1:] or [ir.Pass(line=line, col=col)]
                self.emit(ir.For(first.targets[0], None, call, rest, line=line, col=col))
                return
            if as_key is not None and (inc_opt or _reads_block_idx_ir(ib)):
                order = {k: i for i, k in enumerate(_SCOPE_KWARGS["spmd"])}
                tkws = sorted(plain + inc_opt, key=lambda kv: order[kv[0]])
                self.emit(ir.With(ir.Call("pl.spmd", (n,), tuple(tkws), item.line, item.col), as_key,
                                  ib, line=line, col=col))
                return
            body = [incore] if needs_incore else body
        self.emit(ir.With(ir.Call("pl.spmd", (n,), tuple(plain), item.line, item.col), as_key, body,
                          line=line, col=col))

    # -- the function ------------------------------------------------------------------------------
    first_return = None
    auto_scope = True


def _strip_no_dep(args) -> tuple[list, list]:
    """The arguments with their ``pl.no_dep(x)`` markers peeled (nested ones too), and the
    positions that had one (AP:7491-7550: ``pl.no_dep`` or a bare ``no_dep``, one positional
    argument, no keywords)."""
    out, marked = [], []
    for i, a in enumerate(args):
        seen = False
        while type(a) is ir.Call and len(a.args) == 1 and not a.kwargs and a.func in ("pl.no_dep", "no_dep"):
            a, seen = a.args[0], True
        out.append(a)
        if seen:
            marked.append(i)
    return out, marked


def _call_attrs(user, no_dep: list) -> list:
    """A call's attrs as PyPTO prints them (python_printer.cpp: ``arg_directions`` first,
    then its other attrs in the order they were made: ``arg_direction_overrides`` from
    the ``pl.no_dep`` markers, which wins over a written one, then the written keys)."""
    dirs = [(k, v) for k, v in user if k.value == "arg_directions"]
    rest = [(k, v) for k, v in user if k.value != "arg_directions"]     # (call_attrs: in written order)
    if no_dep:
        rest = [(ir.StrConst("arg_direction_overrides", '"'), ir.ListExpr(tuple(ir.IntConst(i) for i in no_dep)))] + \
            [(k, v) for k, v in rest if k.value != "arg_direction_overrides"]
    return dirs + rest


# PyPTO's IR class of an expression, as its predicate message names it
_IR_CLASSES = {"+": "Add", "-": "Sub", "*": "Mul", "/": "FloatDiv", "//": "FloorDiv", "%": "FloorMod",
               "and": "And", "or": "Or", "<<": "BitShiftLeft", ">>": "BitShiftRight"}


def _ir_class(e) -> str:
    t = type(e)
    if t is ir.BinOp:
        return _IR_CLASSES.get(e.op, "BinaryExpr")
    if t is ir.UnaryOp:
        return {"-": "Neg", "not": "Not", "~": "BitNot"}.get(e.op, "UnaryExpr")
    if t is ir.Call:
        return "Cast" if e.func == "pl.cast" else "Call"
    return {ir.Name: "Var", ir.IntConst: "ConstInt", ir.FloatConst: "ConstFloat",
            ir.BoolConst: "ConstBool"}.get(t, t.__name__)


_UNSUPPORTED_EXPRS = (ast.IfExp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                      ast.JoinedStr, ast.Dict, ast.Set, ast.Starred, ast.NamedExpr, ast.Await, ast.Yield, ast.Slice)


def _reject_unsupported_expr(value, s) -> None:
    """PyPTO's 'Unsupported expression type: X' for the first expression kind in ``value``
    (Python syntax of an opaque line ``s``) its front end has no reading of, at that node."""
    for sub in ast.walk(value) if value is not None else ():
        if isinstance(sub, _UNSUPPORTED_EXPRS):
            raise DslError(f"Unsupported expression type: {type(sub).__name__}",
                           line=(s.line or 1) + sub.lineno - 1,
                           col=sub.col_offset + 1 + ((s.col or 1) - 1 if sub.lineno == 1 else 0))


def _shape_text(shape) -> str:
    """A nested unpacking target as Python's ``ast.unparse`` writes it: ``(a, b)``."""
    if type(shape) is str:
        return shape
    if type(shape) is tuple:
        return shape[0]
    inner = ", ".join(_shape_text(x) for x in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _type_dim(e):
    """A dim inside a type: a composite prints its integer leaves typed
    (``pl.const(v, pl.INDEX)``, pp:3010-3036)."""
    if type(e) is ir.IntConst:
        return e

    def leaves(x):
        t = type(x)
        if t is ir.IntConst:
            return ir.Call("pl.const", (x, dotted("pl", "INDEX")))
        if t is ir.BinOp:
            return ir.BinOp(x.op, leaves(x.left), leaves(x.right))
        if t is ir.UnaryOp:
            return ir.UnaryOp(x.op, leaves(x.operand))
        if t is ir.Call and x.func in ("pl.min", "pl.max"):
            return ir.Call(x.func, tuple(leaves(a) for a in x.args))
        return x
    return leaves(e)


# the keyword arguments of scope constructs, in printed order (python_printer.cpp:2025-2190)
_SCOPE_KWARGS = {
    "at": ("level", "role", "optimizations", "name_hint", "deps", "no_dep_args", "dumps",
           "allow_early_resolve", "windowize"),
    "spmd": ("sync_start", "name_hint", "optimizations", "deps", "allow_early_resolve", "predicate"),
    "cluster": ("name_hint",),
}


_SPLIT_MODES = ("NONE", "UP_DOWN", "LEFT_RIGHT")


def _at_positional(item: ir.Call) -> ir.Call:
    """``pl.at(level[, role])``: the positional form as keywords (ast_parser.py:3530-3541)."""
    if not item.args:
        return item
    if len(item.args) > 2:
        raise DslError(f"pl.at() takes at most 2 positional arguments, got {len(item.args)}", item)
    given = [k for k, _ in item.kwargs]
    for k in ("level", "role")[:len(item.args)]:
        if k in given:
            raise DslError(f"pl.at() got multiple values for argument '{k}'", item)
    kws = tuple(zip(("level", "role"), item.args)) + tuple(item.kwargs)
    return ir.Call(item.func, (), kws, item.line, item.col)


def _spmd_core_num(item: ir.Call) -> ir.Call:
    """``pl.spmd(core_num=n, ...)`` as ``pl.spmd(n, ...)`` (ast_parser.py:4186-4230)."""
    if len(item.args) > 1:
        raise DslError("pl.spmd() accepts at most one positional argument (core_num)", item.args[1])
    given = [v for k, v in item.kwargs if k == "core_num"]
    if item.args and given:
        raise DslError("pl.spmd() got multiple values for argument 'core_num'", given[0])
    if given:
        item = ir.Call(item.func, (given[0],), tuple(kv for kv in item.kwargs if kv[0] != "core_num"),
                       item.line, item.col)
    if not item.args:
        raise DslError("pl.spmd() requires core_num (first positional argument)", item)
    return item


def _is_core_group(item: ir.Call) -> bool:
    lv = dict(item.kwargs).get("level")
    return type(lv) is ir.Dotted and lv.parts[-1] == "CORE_GROUP"


def _incore_carrier(body):
    """The lone ``with pl.at(<CORE_GROUP>, ...):`` of a ``with pl.spmd`` body, if it is one
    (ast_parser.py:4362-4390)."""
    if len(body) != 1 or type(body[0]) is not ir.With:
        return None
    it = body[0].item
    if type(it) is not ir.Call or it.func.count(".") != 1 or not it.func.endswith(".at"):
        return None
    return body[0] if _is_core_group(_at_positional(it)) else None


def _slot_num(r, v, api: str) -> int:
    if type(v) is not ir.IntConst or v.value <= 0:
        raise DslError(f"{api} must be a positive integer literal", v)
    return v.value


def _user_split(at: ir.Call) -> Optional[str]:
    """The mode of a ``pl.split(MODE)`` the user wrote in an InCore ``pl.at``'s
    optimizations (NONE included: only the parser still sees it), else None."""
    kw = dict(at.kwargs)
    level = kw.get("level")
    if type(level) is not ir.Dotted or level.parts[-1] != "CORE_GROUP":
        return None
    opts = kw.get("optimizations")
    for e in opts.items if type(opts) is ir.ListExpr else ():
        if type(e) is ir.Call and e.func.rsplit(".", 1)[-1] == "split" and e.args and type(e.args[0]) is ir.Dotted:
            return e.args[0].parts[-1]
    return None


def _optimizations(r, lst: ir.ListExpr, owner: str) -> tuple:
    """``optimizations=[...]`` as PyPTO keeps it (a split mode and a slot count,
    ast_parser.py:3633-3720) and prints it back (python_printer.cpp:1943-1956):
    ``pl.split(MODE)`` for a mode other than NONE, then ``pl.cross_core_slot(slot_num=N)``."""
    mode = slot = None
    seen_split = seen_slot = from_split = False
    for e in lst.items:
        fn = e.func if type(e) is ir.Call else ""
        name = fn.rsplit(".", 1)[-1]
        if type(e) is not ir.Call or name not in ("split", "cross_core_slot") or \
                fn.split(".")[1:-1] not in ([], ["optimizations"]):
            raise DslError(f"Unsupported entry in {owner}(optimizations=[...])", e)
        if name == "split":
            if seen_split:
                raise DslError("Duplicate 'pl.split(...)' in optimizations=[...]", e)
            seen_split = True
            for k, v in e.kwargs:
                if k != "slot_num":
                    raise DslError(f"Unknown keyword argument '{k}' in pl.split()", e)
                if seen_slot:
                    raise DslError("optimizations=[...] sets the cross-core slot count twice: via the "
                                   "deprecated pl.split(slot_num=...) and via pl.cross_core_slot(...)", e)
                slot, from_split = _slot_num(r, v, "pl.split(slot_num=...)"), True
            if len(e.args) != 1:
                raise DslError(f"pl.split() takes exactly 1 positional argument, got {len(e.args)}", e)
            a = e.args[0]
            if type(a) is not ir.Dotted or len(a.parts) < 2 or a.parts[-2] != "SplitMode" \
                    or a.parts[-1] not in _SPLIT_MODES:
                raise DslError(f"Unknown SplitMode value: {r.source_of(a)}", a)
            mode = a.parts[-1]
        else:
            if seen_slot:
                raise DslError("Duplicate 'pl.cross_core_slot(...)' in optimizations=[...]", e)
            if from_split:
                raise DslError("optimizations=[...] sets the cross-core slot count twice: via the "
                               "deprecated pl.split(slot_num=...) and via pl.cross_core_slot(...)", e)
            if e.args:
                raise DslError(f"pl.cross_core_slot() takes no positional arguments, got {len(e.args)}", e)
            for k, v in e.kwargs:
                if k != "slot_num":
                    raise DslError(f"Unknown keyword argument '{k}' in pl.cross_core_slot()", e)
                slot = _slot_num(r, v, "pl.cross_core_slot(slot_num=...)")
            if slot is None:
                raise DslError("pl.cross_core_slot() requires the slot_num= keyword argument", e)
            seen_slot = True
    out = []
    if mode is not None and mode != "NONE":
        out.append(ir.Call("pl.split", (dotted("pl", "SplitMode", mode),), ()))
    if slot is not None:
        out.append(ir.Call("pl.cross_core_slot", (), (("slot_num", ir.IntConst(slot)),)))
    return tuple(out)


def _raw_nodes(stmts):
    """Every node of raw statements, at any depth (as ast.walk over the body)."""
    import dataclasses
    stack = list(stmts)
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            yield x
            stack.extend(getattr(x, f.name, None) for f in dataclasses.fields(x)
                         if f.name not in ("line", "col", "comments"))


def _raw_calls(stmts):
    """Every call in raw statements, at any depth."""
    return (x for x in _raw_nodes(stmts) if type(x) is ir.Call)


def _opaque_texts(stmts):
    """The text of every statement or expression kept verbatim, at any depth."""
    return (x.text for x in _raw_nodes(stmts) if type(x) in (ir.Opaque, ir.OpaqueStmt))


def _reads_block_idx(stmts) -> bool:
    """Whether a ``with pl.spmd`` body calls ``get_block_idx()`` anywhere, matched by name
    as PyPTO matches it (ast_parser.py:4339-4360)."""
    if any(c.func == "get_block_idx" or c.func.endswith(".get_block_idx") for c in _raw_calls(stmts)):
        return True
    return any(re.search(r"\bget_block_idx\s*\(", t) for t in _opaque_texts(stmts))


def _dispatch_count(stmts) -> int:
    """``self.<kernel>(...)`` calls in a body (ast_parser.py:4391-4418)."""
    return sum(1 for c in _raw_calls(stmts) if c.func.startswith("self.") and c.func.count(".") == 1)


def _reads_block_idx_ir(stmts) -> bool:
    """Whether built statements read ``tile.get_block_idx`` (python_printer.cpp:78-90)."""
    return any(c.func == syntax_op("block_index") for c in _raw_calls(stmts))


def _extent(lo, hi):
    """``hi - lo`` of a slice, folded when constant (``i*16+16 - i*16`` is 16)."""
    if type(lo) is ir.IntConst and type(hi) is ir.IntConst:
        return ir.IntConst(hi.value - lo.value)
    if type(hi) is ir.BinOp and hi.op == "+" and hi.left == lo:
        return hi.right
    if type(lo) is ir.IntConst and lo.value == 0:
        return hi
    return ir.BinOp("-", hi, lo)


# attr keys whose list holds ints / Vars (python/bindings/modules/ir.cpp:160-230, where the
# binding converts a list-valued attr by its key)
_INT_LIST_ATTRS = ("arg_direction_overrides",)
_VAR_LIST_ATTRS = ("manual_dep_edges", "compiler_manual_dep_edges", "arg_dir_override_vars", "dump_vars")


def _check_attr_list(r, key: str, v, fname: str) -> None:
    """A list-valued function attr holds one element kind, chosen by its key: ints for
    ``arg_direction_overrides``, Vars for the dependency / dump keys, else Vars (when the
    first element is one) or ArgDirections (``pl.adir.X``)."""
    def kind(x):
        if type(x) is ir.Name and r.lookup(x.id) is not None:
            return "var"
        if type(x) is ir.Dotted and len(x.parts) >= 2 and x.parts[-2] in ("adir", "ArgDirection"):
            return "adir"
        return "int" if type(x) is ir.IntConst else "other"
    kinds = [kind(x) for x in v.items]
    prefix = f"Failed to parse function '{fname}': "
    if key in _INT_LIST_ATTRS:
        bad, msg = "int", f"Unsupported list element type for key: {key} (expected int)"
    elif key in _VAR_LIST_ATTRS:
        bad, msg = "var", f"Unsupported list element type for key: {key} (expected Var)"
    elif kinds and kinds[0] == "var":
        bad, msg = "var", f"Mixed list element types for key: {key} (expected all Var, matching the first element)"
    else:
        bad, msg = "adir", (f"Unsupported list element type for key: {key}. A list-valued attr under an "
                            "arbitrary key may hold Var (a reference) or ArgDirection. Integer lists are "
                            f"accepted only for the reserved key '{_INT_LIST_ATTRS[0]}'.")
    if any(k != bad for k in kinds):
        raise DslError(prefix + msg, v)


def _attr_value(r, v):
    """A function / call attr value as PyPTO prints it (python_printer.cpp:820-907)."""
    t = type(v)
    if t is ir.StrConst:
        return r.quoted(v)
    if t is ir.Dotted and len(v.parts) >= 2:
        return dotted("pl", *v.parts[-2:])
    if t in (ir.IntConst, ir.BoolConst):
        return v
    if t is ir.FloatConst:
        from tilemem.frontend.dsl.values import float_text
        return ir.FloatConst(float_text(float(v.text)))
    if t is ir.UnaryOp and v.op == "-" and type(v.operand) in (ir.IntConst, ir.FloatConst):
        return r.expr(v).expr
    if t in (ir.ListExpr, ir.TupleExpr):
        return ir.ListExpr(tuple(_attr_value(r, x) for x in v.items))
    if t is ir.Name:
        return r.expr(v).expr
    if t is ir.Call and not v.args and not v.kwargs and v.func in (syntax_op("cluster_count_attr"),
                                                                 syntax_op("aiv_count_attr")):
        # a launch-width query (decorator.py _parse_launch_query_call): the op call itself
        return r.expr(v).expr
    raise DslError(f"Unsupported attr value: {r.source_of(v)}", v)


def _is_runtime_scope(item) -> bool:
    return type(item) is ir.Call and item.func.rsplit(".", 1)[-1] in ("scope", "manual_scope")


def _trailing_yield(body: list):
    """The yield that binds a loop's or branch's return vars (through trailing scopes)."""
    from tilemem.ir.walk import last_yield
    return last_yield(body)


def _auto_scope(s) -> bool:
    """``with pl.scope():`` -- a runtime scope in AUTO mode (as read: no ``mode=MANUAL``)."""
    return type(s) is ir.With and _is_runtime_scope(s.item) and not any(
        k == "mode" and type(v) is ir.Dotted and v.parts[-1] == "MANUAL" for k, v in s.item.kwargs)


def _printed_yield(body: list):
    """The yield PyPTO prints as ``rv: T = pl.yield_(...)``: the body's last statement,
    looked for inside an AUTO runtime scope only when that scope is the whole body, and in
    ``pl.split_aiv`` bodies (python_printer.cpp VisitStmtBody)."""
    while body:
        last = body[-1]
        if type(last) is ir.Yield:
            return last
        if type(last) is ir.With and _is_runtime_scope(last.item):
            if len(body) != 1 or not _auto_scope(last):
                return None
            body = last.body
            continue
        if type(last) is ir.For and last.kind == "split_aiv":
            body = last.body
            continue
        return None
    return None


def _as_printed(body: list) -> None:
    """What PyPTO's printer does not show of a loop's or branch's body, dropped once the
    names are given (tilemem's IR holds the printed text, as its printed-IR reading would
    read it; python_printer.cpp VisitStmtBody):

    * a yield ending a manual scope (or a scope among other statements) binds the return
      vars in PyPTO's IR but prints bare: its targets go (the return vars keep their
      printed names where they are used);
    * an AUTO runtime scope that is the whole body prints its header without the comments
      written above it."""
    from tilemem.ir.walk import statements
    for st, _ in statements(body):
        if type(st) is ir.If:
            arms = [st.then_body] + ([st.else_body] if st.else_body is not None else [])
        elif type(st) in (ir.For, ir.While):
            arms = [st.body]
        else:
            continue
        for arm in arms:
            y = _trailing_yield(arm)
            if y is not None and y.targets and y is not _printed_yield(arm):
                y.targets, y.target_types = [], []
            if len(arm) == 1 and _auto_scope(arm[0]):
                arm[0].comments = []


_STMTS = {
    ir.Assign: FunctionReader._assign,
    ir.EvalStmt: FunctionReader._eval,
    ir.Return: FunctionReader._return,
    ir.Yield: FunctionReader._yield,
    ir.For: FunctionReader._for,
    ir.While: FunctionReader._while,
    ir.If: FunctionReader._if,
    ir.With: FunctionReader._with,
    ir.Break: FunctionReader._break,
    ir.Continue: FunctionReader._continue,
    ir.Pass: FunctionReader._pass,
    ir.OpaqueStmt: FunctionReader._opaque,
}


# ----------------------------------------------------------------------------- functions

def _is_function_decorator(d) -> bool:
    if type(d) is ir.Call:
        f = d.func
        return f == "function" or f.endswith(".function")
    if type(d) is ir.Dotted:
        return d.parts[-1] == "function"
    return type(d) is ir.Name and d.id == "function"


def _enum_kw(v, enum: str, valid, fname: str):
    if type(v) is ir.NoneConst:
        return None
    if type(v) is not ir.Dotted or len(v.parts) < 2 or v.parts[-2] != enum or \
            (len(v.parts) == 3 and v.parts[0] not in ("pl",)) or len(v.parts) > 3:
        raise DslError(f"Expected pl.{enum}.<name>", v)
    name = LEVEL_ALIASES.get(v.parts[-1], v.parts[-1]) if enum == "Level" else v.parts[-1]
    if name not in valid:
        raise DslError(f"Unknown {enum} value: {v.parts[-1]}", v)
    return name


def _decorator_names(dec, ctx) -> None:
    """Python evaluates ``@pl.function(...)``'s arguments where the class is defined: a name
    it does not know there is its NameError (before PyPTO reads anything); a dict of
    attrs may not be a name tilemem cannot read (a constant dict around the program)."""
    if type(dec) is not ir.Call:
        return
    for _, v in dec.kwargs:
        for x in ir.subexpressions(v):
            if type(x) is ir.Name and x.id not in DTYPES and ctx.constants.get(x.id) is None:
                raise DslError(f"NameError: name '{x.id}' is not defined", x)


def _decorator(dec, fname: str):
    """(func_type, level, role, extra decorator kwargs) of ``@pl.function(...)``."""
    func_type, level, role, extra = "Opaque", None, None, []
    if type(dec) is ir.Call:
        if dec.args:
            raise DslError("function() takes 0 positional arguments", dec)
        for k, v in dec.kwargs:
            if k == "type":
                func_type = _enum_kw(v, "FunctionType", FUNCTION_TYPES, fname) or "Opaque"
            elif k == "level":
                level = _enum_kw(v, "Level", LEVELS, fname)
            elif k == "role":
                role = _enum_kw(v, "Role", ROLES, fname)
            elif k == "auto_scope":
                if type(v) is not ir.BoolConst:
                    raise DslError("`@pl.function(auto_scope=...)` must be a bool literal (True/False)", v)
                if not v.value:
                    extra.append(("auto_scope", ir.BoolConst(False)))
            elif k == "attrs":
                if type(v) is ir.NoneConst:
                    continue                # `is not None` gates the attrs (decorator.py:974)
                if type(v) is not ir.DictExpr:
                    # Python evaluates the decorator: a literal of another kind is
                    # _normalize_attrs' refusal (decorator.py:446-450)
                    kind = _PY_LITERAL_TYPES.get(type(v))
                    if kind is not None:
                        raise DslError(f"`@pl.function(attrs=...)` must be a dict, got {kind}", v)
                    raise DslError("@pl.function(attrs=...) must be a dict literal", v)
                extra.append(("__attrs__", v))
            elif k == "strict_ssa":
                pass
            else:
                raise DslError(f"@pl.function({k}=...) is not supported by tilemem's DSL reader", v)
    derived = DERIVED_LEVEL_ROLE.get(func_type)
    if derived is not None:
        if level is not None and level != derived[0]:
            raise DslError(f"Failed to parse function '{fname}': Function '{fname}' has func_type={func_type} which "
                           f"implies level={derived[0]}, but explicit level={level} was provided", dec)
        if role is not None and role != derived[1]:
            raise DslError(f"Failed to parse function '{fname}': Function '{fname}' has func_type={func_type} which "
                           f"implies role={derived[1]}, but explicit role={role} was provided", dec)
        level, role = derived
    return func_type, level, role, extra


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


# the Python type a literal evaluates to (the name Python's type(x).__name__ gives)
_PY_LITERAL_TYPES = {ir.ListExpr: "list", ir.TupleExpr: "tuple", ir.StrConst: "str", ir.IntConst: "int",
                     ir.FloatConst: "float", ir.BoolConst: "bool"}


def _static_int(e) -> Optional[int]:
    """An integer literal, or one negated (AP _static_int)."""
    if type(e) is ir.IntConst:
        return e.value
    if type(e) is ir.UnaryOp and e.op == "-" and type(e.operand) is ir.IntConst:
        return -e.operand.value
    return None


def _is_docstring(s) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def _is_func_attr(s) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
        isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "func_attr"


def _direction(ann):
    if type(ann) is ir.Subscript and len(ann.index) == 1:
        base = ann.value
        name = base.parts[-1] if type(base) is ir.Dotted else (base.id if type(base) is ir.Name else None)
        if name in ("Out", "InOut"):
            return name, ann.index[0]
    return "In", ann


def read_function(ctx: ProgramContext, rf, comments: CommentQueue, line_ends: dict,
                  stmt_ends: Optional[dict] = None) -> ir.Function:
    fname = rf.name.value
    dec = next(d for d in rf.decorators if _is_function_decorator(d))
    _decorator_names(dec, ctx)
    func_type, level, role, extra = _decorator(dec, fname)
    r = FunctionReader(ctx, rf, comments, line_ends, stmt_ends)
    r.func_type = func_type
    r.fname = fname
    # the decorator's own level= (PyPTO's _func_level; None when only derived from type=)
    r.explicit_level = next((_enum_kw(v, "Level", LEVELS, fname) for k, v in dec.kwargs if k == "level"), None) \
        if type(dec) is ir.Call else None
    r.auto_scope = not any(k == "auto_scope" for k, _ in extra)
    attr_items = []                 # (key, value, where: None for the decorator's attrs=, else the call)
    for k, v in extra:
        if k == "__attrs__":
            attr_items.extend((a, b, None) for a, b in v.items)
    extra = [(k, v) for k, v in extra if k != "__attrs__"]
    params = list(rf.params)
    if params and params[0][0].value == "self":
        params = params[1:]
    plist = []
    read_so_far: set = set()        # symbols earlier parameters' tensor types read
    for tok, ann in params:
        if ann is None:
            raise DslError(f"Parameter '{tok.value}' missing type annotation", None, tok.line, tok.column)
        direction, inner = _direction(ann)
        t = r.types.resolve(inner, param=True)
        if isinstance(t, list):
            raise DslError("Parameter type cannot be a tuple", inner)
        if direction == "InOut" and isinstance(t, ir.ScalarType):
            raise DslError("Scalar parameters cannot have InOut direction", inner)
        c = ctx.constants.get(tok.value)
        if isinstance(c, Dynamic) and isinstance(t, ir.ScalarType) and t.dtype == "INDEX":
            # the parameter IS the symbol from here on (AP:894-952): too late when an
            # earlier parameter's type already read it
            if c.name in read_so_far:
                raise DslError(f"Parameter '{tok.value}' shadows the dynamic symbol '{tok.value}', "
                               f"which an earlier parameter's type annotation already uses",
                               None, tok.line, tok.column)
            v = r.dynamic_var(c.name)
            v.dyn = False
            ctx.rebound.add(c.name)
        if isinstance(t, ir.TensorType):
            read_so_far |= _tensor_type_names(t)
            # a bare symbol in a tensor parameter's shape names that argument's extent
            r.param_dim_symbols.update(d.id for d in t.shape if type(d) is ir.Name and d.id in ctx.dynamics)
        v = r.new_var(tok.value, t)
        r.define(tok.value, v, allow_redef=True)
        plist.append(ir.Param(v.key, t, direction, tok.line, tok.column))
    rts: list = []
    returns_tuple = False
    if rf.ret is not None and type(rf.ret) is not ir.NoneConst:
        rt = r.types.resolve(rf.ret, param=True)     # evaluated by Python with the params
        if isinstance(rt, list):
            rts, returns_tuple = rt, True
        else:
            rts = [rt]
    body = list(rf.body)
    prologue = []
    i = 1 if body and _str_stmt(body[0]) else 0
    while i < len(body) and type(body[i]) is ir.EvalStmt and _pl_call(body[i].expr, "func_attr"):
        prologue.append(body.pop(i))
    for s in prologue:
        call = s.expr
        if len(call.args) != 1 or call.kwargs:
            raise DslError("pl.func_attr() takes exactly one positional dict argument (no keywords)", s)
        if type(call.args[0]) is not ir.DictExpr:
            raise DslError("pl.func_attr() argument must be a dict literal", call.args[0])
        attr_items.extend((a, b, s) for a, b in call.args[0].items)
    items = []
    seen: dict = {}
    place: dict = {}
    for k, v, where in attr_items:
        if type(k) is not ir.StrConst:
            if where is None and type(k) in (ir.IntConst, ir.FloatConst, ir.BoolConst, ir.NoneConst):
                shown = {ir.IntConst: lambda x: str(x.value), ir.FloatConst: lambda x: repr(float(x.text)),
                         ir.BoolConst: lambda x: str(x.value), ir.NoneConst: lambda x: "None"}[type(k)](k)
                raise DslError(f"`@pl.function(attrs=...)` keys must be strings, got {shown}", k)   # :452-456
            raise DslError("pl.func_attr() key must be a string literal", k)
        key = r.string_value(k)
        if key in seen:
            if where is not None and seen[key] is where:      # one dict (AP:1191-1196)
                raise DslError(f"Duplicate function attribute '{key}' in pl.func_attr({{...}})", k)
            if where is not None:       # IRBuilder::AddFunctionAttrs (builder.cpp:80-83), at the call
                raise DslError(f"Duplicate function attribute '{key}' in function '{fname}'. Each attribute "
                               "may be declared only once.", where)
        seen[key] = where
        if key == "split" and type(v) is ir.Dotted and v.parts[-1] == "NONE":
            continue                    # SplitMode.NONE is "no split": not stored
        if type(v) in (ir.ListExpr, ir.TupleExpr):
            _check_attr_list(r, key, v, fname)
        item = (ir.StrConst(key, '"'), _attr_value(r, v))
        if key in place:                # twice in the decorator's dict literal: Python keeps
            items[place[key]] = item    # the key's place and the last value
        else:
            place[key] = len(items)
            items.append(item)
    if items:
        r.blocks[-1].append(ir.EvalStmt(ir.Call("pl.func_attr", (ir.DictExpr(tuple(items)),))))
    rest = [x for x in body if not _str_stmt(x)]
    host_worker = role == "SubWorker" and level in _HOST_LEVELS
    if host_worker and rf.params and rf.params[0][0].value == "self":
        raise DslError(f"SubWorker function '{fname}' must not declare 'self'; declare it as a self-contained "
                       "function inside @pl.program.", dec)
    python = ctx.python_bodies.get(fname) if host_worker else None
    if python is not None:
        # a HOST SubWorker's Python body, kept as its text (the grammar saw `...` in its place)
        at = python[0] or rf.body[0].line
        r.blocks[-1].extend(ir.OpaqueStmt(line, line=at) for line in python[2].split("\n"))
    elif host_worker and len(rest) == 1 and type(rest[0]) is ir.EvalStmt \
            and type(rest[0].expr) is ir.Opaque and rest[0].expr.text == "...":
        # an abstract SubWorker: a runtime-bound callback, printed as its bare `...`
        # (decorator.py _is_abstract_subworker_body; python_printer.cpp)
        r.blocks[-1].append(ir.EvalStmt(ir.Opaque("..."), line=rest[0].line, col=rest[0].col))
    else:
        r.body(body)
    if rf.body:
        comments.discard_tail(rf.body[0].line or 1, _col0(rf.body[0]), None)
    fn_body = r.blocks[0]
    fn = ir.Function(fname, func_type, level, role, plist, rts, fn_body, extra, returns_tuple,
                     decorator="pl.function", line=rf.name.line, col=rf.name.column)
    effective = rts if rts else (r.first_return or [])
    n_in = sum(1 for p in plist if p.direction == "In")
    ctx.signatures[fname] = (len(plist), list(effective), list(rts), n_in,
                             [p.type for p in plist], [p.direction for p in plist])
    ctx.roles[fname] = role
    _declare_dynamics(ctx, fn)
    keep = frozenset(ctx.dynamics)
    fn = assign_names(fn, r.hints, keep)
    _as_printed(fn.body)
    return fn


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


def _type_names(t, acc: set):
    """The names a type's dims, views and strides read, as PyPTO's printer collects the
    dynamic dims of a program (python_printer.cpp:2795-2863): a Tensor's and a Tile's, a
    tuple's items; not a DistributedTensor's (its own type kind, which that walk skips)."""
    if t is None:
        return
    if isinstance(t, ir.TupleType):
        for i in t.items:
            _type_names(i, acc)
        return
    if isinstance(t, ir.TensorType) and t.kind != "pl.Tensor":
        return
    if isinstance(t, (ir.TileType, ir.TensorType)):
        exprs = list(t.shape)
        v = t.view
        if isinstance(t, ir.TileType) and v is not None:
            exprs += list(v.valid_shape or ()) + list(v.stride or ()) + ([v.start_offset] if v.start_offset else [])
        elif isinstance(t, ir.TensorType) and v is not None:
            exprs.append(v)
        for e in exprs:
            for x in ir.subexpressions(e):
                if type(x) is ir.Name:
                    acc.add(x.id)


def _tensor_type_names(t) -> set:
    """The names a tensor parameter's shape, valid shape and strides read (a
    DistributedTensor's too: _collect_type_symbol_ids, AP:308-334)."""
    from tilemem.frontend.dsl.types import view_parts
    valid, stride, _, _ = view_parts(t.view)
    out = set()
    for e in (*t.shape, *valid, *stride):
        for x in ir.subexpressions(e):
            if type(x) is ir.Name:
                out.add(x.id)
    return out


def _declare_dynamics(ctx: ProgramContext, fn: ir.Function) -> None:
    """Record the symbols of one function (read before its vars are named) that PyPTO's
    printer declares with a ``pl.dynamic`` line (python_printer.cpp:2866-2953): those its
    types read that are no parameter -- a symbol a scalar parameter has become by now is
    that parameter -- and, of those, the ones a tensor parameter's valid shape reads."""
    from tilemem.frontend.dsl.types import view_parts
    used: set = set()
    for p in fn.params:
        _type_names(p.type, used)
    for t in fn.return_types:
        _type_names(t, used)
    stack = [fn.body]
    while stack:
        for s in stack.pop():
            if type(s) is ir.Assign:
                _type_names(s.type, used)
            elif type(s) is ir.Yield:
                for t in s.target_types:
                    _type_names(t, used)
            for b in _bodies(s):
                stack.append(b)
    ctx.declared.update(n for n in used if n in ctx.dynamics and n not in ctx.rebound)
    for p in fn.params:
        if isinstance(p.type, ir.TensorType) and p.type.view is not None:
            for e in view_parts(p.type.view)[0]:
                ctx.declared.update(x.id for x in ir.subexpressions(e)
                                    if type(x) is ir.Name and x.id in ctx.rebound)


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
