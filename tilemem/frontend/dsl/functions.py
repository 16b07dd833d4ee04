"""One ``@pl.function`` method read into an :class:`ir.Function`: its decorator (function
type, level, role, attributes), parameters and their directions, and its body by the
:class:`~tilemem.frontend.dsl.function_reader.FunctionReader`."""
from __future__ import annotations

from typing import Optional

from tilemem import ir
from tilemem.frontend.comments import CommentQueue
from tilemem.frontend.dsl.context import (
    FUNCTION_TYPES, LEVELS, ProgramContext, ROLES, _HOST_LEVELS, _bodies, _col0, _pl_call,
    _str_stmt,
)
from tilemem.frontend.dsl.function_reader import FunctionReader
from tilemem.frontend.dsl.naming import assign_names
from tilemem.frontend.dsl.statement_forms import (
    _PY_LITERAL_TYPES, _as_printed, _attr_value, _check_attr_list, _enum_kw,
)
from tilemem.frontend.dsl.values import DTYPES, DslError
from tilemem.frontend.pysource import Dynamic



# ----------------------------------------------------------------------------- functions

def _is_function_decorator(d) -> bool:
    if type(d) is ir.Call:
        f = d.func
        return f == "function" or f.endswith(".function")
    if type(d) is ir.Dotted:
        return d.parts[-1] == "function"
    return type(d) is ir.Name and d.id == "function"


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
    derived = ir.DERIVED_LEVEL_ROLE.get(func_type)
    if derived is not None:
        if level is not None and level != derived[0]:
            raise DslError(f"Failed to parse function '{fname}': Function '{fname}' has func_type={func_type} which "
                           f"implies level={derived[0]}, but explicit level={level} was provided", dec)
        if role is not None and role != derived[1]:
            raise DslError(f"Failed to parse function '{fname}': Function '{fname}' has func_type={func_type} which "
                           f"implies role={derived[1]}, but explicit role={role} was provided", dec)
        level, role = derived
    return func_type, level, role, extra


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
