"""Reads one ``@pl.function`` method, statement by statement in source order: the
reader's state and plumbing, the statement dispatch and yields; each kind of statement
is a mixin of its own (``read_annotations``, ``read_calls``, ``read_assignments``,
``read_control``), the expressions and op calls are :mod:`.exprs` and :mod:`.ops`."""
from __future__ import annotations

import ast
import itertools
from typing import Optional

from tilemem import ir
from tilemem.frontend.comments import CommentQueue, Extents
from tilemem.frontend.dsl.context import ProgramContext, _col0, _pl_call, _str_stmt
from tilemem.frontend.dsl.exprs import ExprReader
from tilemem.frontend.dsl.ops import OpCaller
from tilemem.frontend.dsl.read_annotations import AnnotationReading
from tilemem.frontend.dsl.read_assignments import AssignmentReading
from tilemem.frontend.dsl.read_calls import CallReading
from tilemem.frontend.dsl.read_control import ControlFlowReading
from tilemem.frontend.dsl.statement_forms import _is_runtime_scope, _reject_unsupported_expr
from tilemem.frontend.dsl.types import TypeReader
from tilemem.frontend.dsl.values import DslError, Var, scalar



class FunctionReader(AnnotationReading, CallReading, AssignmentReading, ControlFlowReading,
                     ExprReader, OpCaller):
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

    # -- the function ------------------------------------------------------------------------------
    first_return = None
    auto_scope = True


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
