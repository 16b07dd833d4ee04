"""What the function reader's statement rules share: PyPTO's checks and spellings of
call attributes and no_dep markers, scope keywords and split modes, yields and printed
bodies, enum keywords and static integers."""
from __future__ import annotations

import ast
import re
from typing import Optional

from tilemem import ir
from tilemem.frontend.dsl.context import LEVEL_ALIASES
from tilemem.frontend.dsl.values import DslError, dotted
from tilemem.frontend.dsl.wrappers import syntax_op



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
