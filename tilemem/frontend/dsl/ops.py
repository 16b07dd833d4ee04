"""Op calls of the DSL: ``pl.NAME(...)``, ``pl.tile.NAME(...)``, ``pl.tensor.NAME(...)``,
``pl.system.NAME(...)`` (spec: dsl.md §4.4, §5; source: ast_parser.py:8015-8681).

The wrappers (their signatures and what each one stores) are data, in ``ops.txt``
(:mod:`.wrappers`); this module binds a call to its wrapper's signature (:mod:`.binding`),
converts the arguments, builds the stored call, checks its operands (:mod:`.operand_rules`)
and asks the type rules for its result type: tile ops through :mod:`tilemem.ir.typerules`,
tensor ops through :mod:`.typerules_tensor`, scalar, system and distributed ops through
:mod:`.typerules_system`.
"""
from __future__ import annotations

import re
from typing import Optional

from tilemem import ir
from tilemem.frontend.pysource import DataTypeRef, EnumRef
from tilemem.frontend.dsl.binding import bind, construct_checks, requires
from tilemem.frontend.dsl.exprs import DT_NAME, const_value, make_binop
from tilemem.frontend.dsl.operand_rules import dtype_rules, form_rules, range_rules
from tilemem.frontend.dsl.operands import (
    is_scalar_like, is_tensor, is_tile, printed_dims, py_type_name, wrapper_kind,
)
from tilemem.frontend.dsl.typerules_system import SystemResultTypes
from tilemem.frontend.dsl.typerules_tensor import TensorResultTypes
from tilemem.frontend.dsl.values import (
    DTYPES, FLOAT_DTYPES, INT64_RANGE, INT_DTYPES, UNKNOWN, DslError, Enum, Py, Val, WrapperCrash,
    const_float, const_int, dotted, float_text, scalar,
)
from tilemem.frontend.dsl.wrappers import OpSpec, Param, printed_op, wrapper_table
from tilemem.ir import typerules, views
from tilemem.ir.optable import op_table

__all__ = ["OpCaller", "check_kwargs"]

# ----------------------------------------------------------------------------- conversions

_ENUM_KINDS = {"space": "MemorySpace", "tile_layout": "TileLayout", "tensor_layout": "TensorLayout",
               "pad": "PadValue", "atomic": "AtomicType", "pipe": "PipeType", "dtype": "DataType"}
# enums a Python int may stand for, their members in value order (ir/pipe.h PipeType, ir/comm.h AtomicType)
_ENUMS_BY_VALUE = {"pipe": ("MTE1", "MTE2", "MTE3", "M", "V", "S", "FIX", "ALL"), "atomic": ("None_", "Add")}
_MASK_PATTERNS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")   # MaskPattern: 1..7
_GATHER_CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")       # tile_ops.py _GATHER_COMPARE_CMP_MODES
_CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


_PAD_HINT = ("Use pl.PadValue.zero / pl.PadValue.max / pl.PadValue.min, "
             "or one of the literals 0, 0.0, math.inf, -math.inf.")


def _pad_value_refusal(v, num) -> None:
    """normalize_pad_value's refusal of a pad value (ir/op/_pad_value.py:28-83)."""
    import math
    if isinstance(v, Py) and isinstance(v.value, bool) or isinstance(v, Val) and type(v.expr) is ir.BoolConst:
        b = v.value if isinstance(v, Py) else v.expr.value
        raise DslError(f"fillpad pad_value cannot be bool ({b!r}). {_PAD_HINT}")
    if isinstance(num, int) and not isinstance(num, bool):
        raise DslError(f"fillpad pad_value only accepts the integer literal 0 (mapped to PadValue.zero); "
                       f"got {num!r}. {_PAD_HINT}")
    if isinstance(num, float):
        if math.isnan(num):
            raise DslError(f"fillpad pad_value cannot be NaN. {_PAD_HINT}")
        raise DslError(f"fillpad pad_value only accepts the float literals 0.0, math.inf, or -math.inf; "
                       f"got {num!r}. {_PAD_HINT}")
    if isinstance(v, Py) and isinstance(v.value, (str, list, tuple, type(None))):
        raise DslError(f"fillpad pad_value must be a PadValue or one of 0 / 0.0 / math.inf / -math.inf; "
                       f"got {type(v.value).__name__} {v.value!r}. {_PAD_HINT}")
    kind = {ir.TileType: "Tile", ir.TensorType: "Tensor", ir.ScalarType: "Scalar"}.get(type(v.type)) \
        if isinstance(v, Val) else None
    if kind is not None:           # the DSL's wrapper object, by its repr (language/typing/*.py __repr__)
        from tilemem.ir.printer import print_expr
        from tilemem.ir.typerules import message_form
        raise DslError(f"fillpad pad_value must be a PadValue or one of 0 / 0.0 / math.inf / -math.inf; "
                       f"got {kind} {kind}(expr={print_expr(message_form(v.expr))}). {_PAD_HINT}")


def _registered(ns: str, name: str) -> bool:
    """Whether PyPTO registers the op (the shipped op table): ``pl.NAME`` may be its tile or
    tensor op."""
    ops = op_table().ops
    names = (f"tile.{name}", f"tensor.{name}") if ns == "pl" else (f"{ns}.{name}",)
    return any(n in ops for n in names)


# the std::any a keyword's value becomes (bindings ConvertKwargsDict): an enum of these
# kinds is stored as its int; a dtype, memory space and the layouts stay themselves
_ENUMS_AS_INT = frozenset({"PipeType", "CoreType", "SplitMode", "NotifyOp", "WaitCmp", "AtomicType"})


def _attr_kind(e) -> str:
    """The C++ type a stored keyword's value has in the registry's kwargs."""
    cv = const_value(e) if type(e) in (ir.IntConst, ir.FloatConst, ir.BoolConst, ir.UnaryOp) else None
    if cv is not None:
        return {"BOOL": "bool", "INDEX": "int"}.get(cv[0], "double" if isinstance(cv[1], float) else "int")
    if type(e) is ir.StrConst:
        return "string"
    if type(e) is ir.ListExpr:
        return "list"
    if type(e) is ir.Dotted and e.parts[0] == "pl":
        if len(e.parts) == 2 and e.parts[1] in DTYPES:
            return "DataType"
        if len(e.parts) == 3:
            kind = "MemorySpace" if e.parts[1] == "Mem" else e.parts[1]
            return "int" if kind in _ENUMS_AS_INT else kind
    return "Expr"


# the wrapper parameter kinds whose value reaches the registry as the user gave it (the
# other kinds convert and check it themselves: a dtype, an enum, a cast mode's name)
_PASSED_AS_GIVEN = frozenset({"expr", "int", "bool", "flag", "float", "num", "str", "any"})
# result rules whose wrapper, given a shape, builds the Call with its type itself
# (ir/op/tile_ops.py tpop_from_aic: `Call(op, [], kwargs, type)`): the registry never
# sees those kwargs
_BUILT_WITHOUT_REGISTRY = frozenset({"tpop"})


def check_kwargs(op: str, spec: "OpSpec", kws, b: dict) -> None:
    """op_registry.cpp ValidateKwargs: a value stored under an attribute the op declares
    must have the declared type (a dtype may be an int); an op declaring none is unchecked."""
    declared = op_table().kwarg_types.get(op)
    if not declared or (spec.result.split("(")[0] in _BUILT_WITHOUT_REGISTRY and b.get("shape") is not None):
        return
    kinds = {p.name: p.kind for p in spec.params}
    given = {key: param for key, param, mod in spec.kwargs
             if not (mod == "!" and kinds.get(param) == "bool")      # stored as True
             and "@" not in param and kinds.get(param) in _PASSED_AS_GIVEN}
    for key, e in kws:
        want = declared.get(key)
        if want is None or key not in given:
            continue            # not the user's value, or an argument the printer shows as a keyword
        # a positional literal is already an IR constant (an Expr), a keyword a Python value
        got = "Expr" if isinstance(b.get(given[key]), Val) else _attr_kind(e)
        if got == want or (want == "DataType" and got == "int"):
            continue
        if got == "list" and e.items:
            raise DslError(f"Unsupported list element type for key: {key}. A list-valued attr under an "
                           f"arbitrary key may hold Var (a reference) or ArgDirection.")
        if want in ("DataType", "MemorySpace", "TileLayout"):
            what = "DataType or int" if want == "DataType" else want
            raise DslError(f"Kwarg '{key}' for operator '{op}' expects {what}, but got incompatible type")
        raise DslError(f"Kwarg '{key}' for operator '{op}' has incompatible type")


class OpCaller(TensorResultTypes, SystemResultTypes):
    """Mixin of the function reader: op calls."""

    # -- arguments as PyPTO parses them --------------------------------------------
    def op_positional(self, e):
        """ast_parser._parse_op_positional_arg: dtypes and enums are values, the rest
        expressions."""
        if type(e) is ir.Dotted:
            if e.parts[-1] in DTYPES and len(e.parts) >= 2:
                return Enum("DataType", e.parts[-1])
            en = self.enum_value(e)
            if en is not None:
                return en
        elif type(e) is ir.Name and self.lookup(e.id) is None:
            if e.id in DTYPES:
                return Enum("DataType", e.id)
            c = self.closure(e.id)
            if isinstance(c, DataTypeRef):           # DT = pl.FP32 around the program
                return Enum("DataType", c.name)
            if isinstance(c, EnumRef):               # PAD = pl.PadValue.max around the program
                return self.op_positional(ir.Dotted(c.parts, e.line, e.col))
        return self.expr(e)

    def op_keyword(self, key: str, e):
        """ast_parser._parse_op_kwargs."""
        if key == "dtype":
            return Enum("DataType", self.types.dtype(e))
        t = type(e)
        if t is ir.IntConst:
            return Py(e.value)
        if t is ir.FloatConst:
            return Py(float(e.text))
        if t is ir.BoolConst:
            return Py(e.value)
        if t is ir.StrConst:
            return Py(self.string_value(e))
        if t is ir.NoneConst:
            return Py(None)
        if t is ir.UnaryOp and e.op == "-" and type(e.operand) in (ir.IntConst, ir.FloatConst):
            v = e.operand.value if type(e.operand) is ir.IntConst else float(e.operand.text)
            return Py(-v)
        if t is ir.Name:
            if self.lookup(e.id) is not None:
                return self.expr(e)
            c = self.closure(e.id)
            if c is None:
                if e.id in DTYPES:
                    return Enum("DataType", e.id)
                # the keyword's value is evaluated as Python (expr_evaluator.py:96-100)
                raise DslError(f"Cannot resolve expression '{e.id}': name '{e.id}' is not defined", e)
            if isinstance(c, DataTypeRef):           # DT = pl.FP32 around the program
                return Enum("DataType", c.name)
            if isinstance(c, EnumRef):               # PAD = pl.PadValue.max around the program
                return self.op_keyword(key, ir.Dotted(c.parts, e.line, e.col))
            return Py(c) if not isinstance(c, list) else Py(list(c))
        if t is ir.Dotted:
            if e.parts[-1] in DTYPES:
                return Enum("DataType", e.parts[-1])
            if len(e.parts) >= 2 and e.parts[-2] == "MaskPattern" and e.parts[-1] in _MASK_PATTERNS:
                return Py(_MASK_PATTERNS.index(e.parts[-1]) + 1)    # plain ints (language/op/tile_ops.py)
            en = self.enum_value(e)
            if en is not None:
                return en
            if e.parts[-1] == "AUTO" and len(e.parts) == 2:
                return Py(-1)           # ir/op/system_ops.py AUTO: "let the compiler place it"
            if len(e.parts) == 2 and e.parts[0] == "math" and e.parts[1] in ("inf", "pi", "e"):
                import math
                return Py(getattr(math, e.parts[1]))
            raise DslError(f"Cannot resolve keyword value {e.text}", e)
        if t is ir.ListExpr or t is ir.TupleExpr:
            if all(type(x) is ir.IntConst or (type(x) is ir.Name and self.lookup(x.id) is None
                                              and isinstance(self.closure(x.id), int)) for x in e.items):
                return Py([x.value if type(x) is ir.IntConst else self.closure(x.id) for x in e.items])
            return self.expr(e)
        return self.expr(e)

    def enum_value(self, e: ir.Dotted) -> Optional[Enum]:
        parts = e.parts
        if len(parts) >= 2:
            kind = parts[-2]
            if kind in ("Mem", "MemorySpace"):
                return Enum("MemorySpace", parts[-1])
            if kind in ("TileLayout", "TensorLayout", "PadValue", "AtomicType", "PipeType", "CompactMode",
                        "SplitMode", "ScopeMode", "Level", "Role", "FunctionType", "NotifyOp", "WaitCmp",
                        "ReduceOp"):
                return Enum(kind, parts[-1])
            if kind in ("pl",) and parts[-1] in ("ND", "NZ", "DN", "MX_A_ZZ", "MX_B_NN"):
                return Enum("TensorLayout", parts[-1])
        return None

    # -- entry ----------------------------------------------------------------------
    def op_call(self, ns: str, name: str, call: ir.Call) -> Val:
        spec = wrapper_table().get(ns, name)
        module = OpSpec(ns, name).module
        if spec is None:
            spec = self.extra_op(ns, name)
        if spec is None:
            if _registered(ns, name):
                raise DslError(f"{module}.{name} is a PyPTO op that tilemem's DSL reading does not "
                               f"read yet", call)
            if ns == "pl":
                raise DslError(f"Unknown operation 'pl.{name}'", call)
            if module.split(".")[0] == "pld":
                raise DslError(f"Unknown distributed operation '{module}.{name}'", call)
            raise DslError(f"Unknown {module} operation: {name}", call)
        if spec.construct:
            construct_checks(spec, call)
        args = [self.op_positional(a) for a in call.args]
        kwargs = []
        attrs = None
        deps = {p.name for p in spec.params if p.kind == "deps"}
        for k, v in call.kwargs:
            if k == "attrs":
                attrs = v
                continue
            if k in deps:
                # the entries PyPTO keeps (AP:6856-6977, 8553): None dropped, a comprehension
                # unrolled, per-element entries gathered into the _submit_deps_buf built here
                kept = self.deps_list(v, spec.qualified, call) or ir.ListExpr((), v.line, v.col)
                kwargs.append((k, Val(kept, ir.TupleType(()))))
                continue
            kwargs.append((k, self.op_keyword(k, v)))
        try:
            val = self.invoke(spec, args, kwargs, call)
        except DslError as err:
            if err.line is None:
                msg = err.message
                if call is getattr(self, "parser_built_call", None):
                    # the parser's own op (a subscript's slice / assemble, AP:2224-2450, 9171-9240)
                    # goes to ir_op directly; parse_function wraps the deducer's error
                    msg = f"Failed to parse function '{self.fname}': {msg}"
                elif isinstance(err, WrapperCrash):
                    msg = f"Error in {module} operation '{name}': {msg}"
                elif not msg.startswith(f"pl.{name}") and not msg.startswith(f"{module}.{name}"):
                    msg = f"{module} operation '{name}': {msg}"
                raise DslError(msg, call) from None
            raise
        if attrs is not None and isinstance(val.expr, ir.Call):
            val = Val(ir.replace(val.expr, kwargs=val.expr.kwargs + (("attrs", self.attrs_dict(attrs)),)),
                      val.type, val.var)
        return val

    def _forms(self, spec: OpSpec, b: dict, args, kwargs, call_wrapper) -> Val:
        """A multi-form wrapper (``dispatch forms()``): the form its given keywords pick and
        the wrapper's checks on them, in its words (forms.txt); the form's own wrapper is
        called with the arguments it takes (PyPTO passes each form only its own)."""
        rows = form_rules()[f"{spec.ns}.{spec.name}"]
        forms = [r for r in rows if r.kind == "form"]

        def given(p: str) -> bool:
            v = b.get(p)
            return v is not None and not (isinstance(v, Py) and v.value is None)

        chosen = [f for f in forms if any(given(p) for p in f.params)]
        if len(chosen) > 1:
            raise DslError(next(r.text for r in rows if r.kind == "mixed"))
        form = chosen[0] if chosen else forms[-1]
        for r in rows:
            if r.form != form.form or r.kind == "form":
                continue
            if r.kind == "requires" and not all(given(p) for p in r.params) \
                    or r.kind == "forbids" and any(given(p) for p in r.params) \
                    or r.kind == "none" and not chosen:
                raise DslError(r.text)
        tns, tname = form.text.rsplit(".", 1)
        takes = {p.name for p in wrapper_table().get(tns, tname).params}
        return call_wrapper(form.text, args, [(k, v) for k, v in kwargs if k in takes])

    def extra_op(self, ns: str, name: str) -> Optional[OpSpec]:
        """An op declared by a ``--rules`` file (no wrapper: stored as written)."""
        full = f"{ns}.{name}"
        if ns in ("tile", "tensor", "system") and full in self.ctx.declared_ops:
            return OpSpec(ns, name, [], True, irop=full, args=["*"], result="declared")
        return None

    def invoke(self, spec: OpSpec, args: list, kwargs: list, node) -> Val:
        if spec.rule is not None and spec.rule.startswith("dispatch:"):
            b = bind(spec, args, kwargs, spec.name)
            return self.dispatch(spec, b, args, kwargs, node)
        if spec.result == "declared":
            return self._declared(spec, args, kwargs, node)
        b = bind(spec, args, kwargs, spec.name)
        return self.store(spec, b, node)

    def _declared(self, spec, args, kwargs, node) -> Val:
        pos = [self._as_expr(a) for a in args]
        kws = tuple((k, self._kw_expr(k, v)) for k, v in kwargs)
        call = ir.Call(f"pl.{spec.ns}.{spec.name}", tuple(pos), kws, *self._pos(node))
        return Val(call, self.result_type(call, "declared", spec, {}))

    # -- dispatch of pl.NAME -------------------------------------------------------------
    def dispatch(self, spec: OpSpec, b: dict, args, kwargs, node) -> Val:
        rule = spec.rule.split(":", 1)[1]
        ra = spec.rule_args
        first = b.get(spec.params[0].name) if spec.params else None
        table = wrapper_table()

        def call_wrapper(target: str, pass_args=None, pass_kwargs=None):
            tns, tname = target.rsplit(".", 1)
            tspec = table.get(tns, tname)
            return self.invoke(tspec, args if pass_args is None else pass_args,
                               kwargs if pass_kwargs is None else pass_kwargs, node)

        if rule == "binary":
            lhs, rhs = b["lhs"], b["rhs"]
            tile_op, scalar_op = ra[0], ra[1]
            tensor_op = ra[2] if len(ra) > 2 else None
            if is_tensor(lhs) and (is_tensor(rhs) or is_scalar_like(rhs)):
                if tensor_op is None:
                    raise DslError(f"pl.{spec.name}: expected Tile operands for this operation")
                return call_wrapper(tensor_op)
            if is_tile(lhs) and is_tile(rhs):
                return call_wrapper(tile_op)
            if is_tile(lhs) and is_scalar_like(rhs):
                return call_wrapper(scalar_op)
            if is_scalar_like(lhs) and is_scalar_like(rhs) and len(ra) > 3:
                hp = b.get("high_precision")
                if hp is not None and (not isinstance(hp, Py) or hp.value):
                    raise DslError("pl.div: high_precision is only supported for Tensor or Tile division")
                return make_binop(ra[3], self._as_val(lhs), self._as_val(rhs), node)
            self._dispatch_error(spec.name, [lhs, rhs])
        if rule == "region":
            # a list in the optional slot ra[0] is the region that follows it (pld.tile.put)
            v = b.get(ra[0])
            listed = isinstance(v, Py) and isinstance(v.value, (list, tuple)) or \
                isinstance(v, Val) and type(v.expr) is ir.ListExpr
            return call_wrapper(ra[1] if listed else ra[2])
        if rule == "forms":
            return self._forms(spec, b, args, kwargs, call_wrapper)
        if rule == "form":
            # one wrapper with two stored forms: the first when parameter ra[0] is given
            # (mrgsort's block_len, scatter's mask_pattern), else the second
            return call_wrapper(ra[1] if b.get(ra[0]) is not None else ra[2])
        if rule in ("unary", "reduce", "matmul"):
            tile_op = ra[0] if ra else None
            tensor_op = ra[1] if len(ra) > 1 else None
            if rule == "matmul":
                operands = [v for p, v in b.items() if p in ("acc", "lhs", "rhs")]
                if all(is_tile(v) for v in operands):
                    for flag in ("a_trans", "b_trans", "c_matrix_nz"):
                        if b.get(flag) not in (None, False) and not (isinstance(b.get(flag), Py) and b[flag].value is False):
                            raise DslError(f"pl.{spec.name}: {flag}=True is not supported for Tile operands")
                    keep = [(k, v) for k, v in kwargs if k not in ("a_trans", "b_trans", "c_matrix_nz", "out_dtype")]
                    pos = [a for a in args][:len([p for p in table.get(*tile_op.split('.', 1)).params if not p.kwonly])]
                    val = call_wrapper(tile_op, pos, keep)
                    od = b.get("out_dtype")
                    deduced = getattr(val.type, "dtype", None)
                    if od is not None and deduced is not None and \
                            not (isinstance(od, Enum) and od.kind == "DataType" and od.name == deduced):
                        # unified_ops.py _check_tile_out_dtype: the Cube accumulator fixes the dtype
                        shown = DT_NAME.get(od.name, od.name) if isinstance(od, Enum) else self._shown(od)
                        raise DslError(f"pl.matmul: out_dtype={shown} is not supported for Tile operands — the Cube "
                                       f"accumulator fixes the result dtype, deduced as {DT_NAME.get(deduced, deduced)} "
                                       "here. Convert the result explicitly with pl.cast(result, <dtype>), or let "
                                       "pl.tile.store narrow it on the way to GM.")
                    return val
                if all(is_tensor(v) for v in operands) and tensor_op:
                    return call_wrapper(tensor_op)
                self._dispatch_error(spec.name, operands)
            if is_tile(first):
                if rule == "reduce" and b.get("tmp_tile") is None and requires(table.get(*tile_op.rsplit(".", 1)),
                                                                                  "tmp_tile"):
                    raise DslError(f"pl.{spec.name}: Tile inputs require tmp_tile")
                return call_wrapper(tile_op)
            if is_tensor(first) and tensor_op and tensor_op != "scalar_cast":
                if rule == "reduce" and b.get("tmp_tile") is not None:
                    raise DslError(f"pl.{spec.name}: Tensor inputs must not pass tmp_tile — the scratch tile is "
                                   "allocated during Tensor-to-Tile lowering")
                if rule == "reduce":
                    return call_wrapper(tensor_op, [args[0]], [(k, v) for k, v in kwargs if k != "tmp_tile"])
                return call_wrapper(tensor_op)
            if "scalar_cast" in ra and isinstance(first, Val) and isinstance(first.type, ir.ScalarType):
                mode = b.get("mode")
                if mode is not None and mode != "round" and not (isinstance(mode, Py) and mode.value == "round"):
                    shown = mode.value if isinstance(mode, Py) else mode
                    raise DslError(f"pl.cast: Scalar inputs do not support non-default mode, got mode={shown!r}")
                dt = self._dtype_arg(b["target_type"])
                return Val(ir.Call("pl.cast", (first.expr, dotted("pl", dt)), (), *self._pos(node)), scalar(dt))
            if ("named" in ra or "named_dst" in ra) and (isinstance(first, (Py, Enum)) or (
                    isinstance(first, Val) and (isinstance(first.type, ir.ScalarType)
                                                or type(first.expr) is ir.ListExpr))):
                # the wrapper's own refusal (unified_ops.py: pl.exp, pl.reshape, ...), naming the
                # argument's Python type (a DSL Scalar, a literal's IR constant, a list, an enum)
                kind = wrapper_kind(first)
                where = " destination" if "named_dst" in ra else ""
                raise DslError(f"pl.{spec.name}: expected Tensor or Tile{where}, got {kind}")
            self._dispatch_error(spec.name, [first])
        raise DslError(f"pl.{spec.name}: unsupported dispatch")   # pragma: no cover

    def _dispatch_error(self, name: str, operands) -> None:
        kinds = []
        for v in operands:
            if is_tensor(v):
                kinds.append("Tensor")
            elif is_tile(v):
                kinds.append("Tile")
            else:
                kinds.append(wrapper_kind(v))
        types = ", ".join(kinds)
        if "Tensor" in kinds and "Tile" in kinds:
            raise DslError(f"pl.{name}: cannot mix Tensor and Tile arguments ({types}). All operands must be the "
                           "same type level — either all Tensor or all Tile")
        raise DslError(f"pl.{name}: expected Tensor or Tile operands, got ({types})")

    # -- building the stored call ----------------------------------------------------------
    def _pos(self, node):
        return getattr(node, "line", None), getattr(node, "col", None)

    def _as_val(self, v) -> Val:
        if isinstance(v, Val):
            return v
        if isinstance(v, Py):
            if isinstance(v.value, bool):
                from tilemem.frontend.dsl.values import const_bool
                return const_bool(v.value)
            if isinstance(v.value, int):
                return const_int(v.value)
            if isinstance(v.value, float):
                return const_float(v.value)
        raise DslError(f"expected an expression, got {v!r}")

    def _as_expr(self, v) -> ir.Expr:
        if isinstance(v, Enum):
            return self._enum_expr(v)
        if isinstance(v, Py) and isinstance(v.value, list):
            return self._py_list_expr(v.value)
        return self._as_val(v).expr

    def _py_list_expr(self, values: list) -> ir.ListExpr:
        """The list of a Python list value; a long one of int64s or of floats held as
        arrays (a list is as long as its line: no node per element)."""
        if len(values) > ir.IntItems.COMPACT_AT and all(type(x) is int and x in INT64_RANGE for x in values):
            return ir.ListExpr(ir.IntItems(values))
        if len(values) > ir.FloatItems.COMPACT_AT and all(type(x) is float for x in values):
            return ir.ListExpr(ir.FloatItems(self._as_val(Py(x)).expr.text for x in values))
        return ir.ListExpr(tuple(self._as_val(Py(x)).expr for x in values))

    def _enum_expr(self, v: Enum) -> ir.Expr:
        if v.kind == "DataType":
            return dotted("pl", v.name)
        if v.kind == "MemorySpace":
            return dotted("pl", "Mem", v.name)
        return dotted("pl", v.kind, v.name)

    def _dtype_arg(self, v) -> str:
        if isinstance(v, Enum) and v.kind == "DataType":
            return v.name
        raise DslError(f"expected a dtype such as pl.FP32, got {self._shown(v)}")

    def _shown(self, v) -> str:
        if isinstance(v, Val):
            from tilemem.ir.printer import print_expr
            from tilemem.ir.typerules import message_form
            return print_expr(message_form(v.expr))
        if isinstance(v, Py):
            return repr(v.value)
        if isinstance(v, Enum):
            return f"{v.kind}.{v.name}"
        return repr(v)

    def _list_arg(self, v, what: str) -> ir.Expr:
        """A shape / offset list: a MakeTuple of INDEX expressions (the dtypes of its
        elements are checked per op: dtypes.txt's `N[]` rows)."""
        if isinstance(v, Py) and isinstance(v.value, list):
            return self._py_list_expr(v.value)
        if isinstance(v, Val):
            if isinstance(v.type, ir.TupleType) and type(v.expr) is ir.ListExpr:
                return v.expr
            if isinstance(v.type, ir.ScalarType):        # a scalar index is wrapped in a list
                return ir.ListExpr((v.expr,))
        if isinstance(v, Py) and isinstance(v.value, int) and not isinstance(v.value, bool):
            return ir.ListExpr((ir.IntConst(v.value),))
        raise DslError(f"{what} must be a list, got {self._shown(v)}")

    def _convert(self, p: Param, v, b: dict, spec: OpSpec):
        """The stored form of argument ``v`` of parameter ``p`` (None: absent)."""
        if v is None or (isinstance(v, Py) and v.value is None):
            return None
        k = p.kind
        if k in ("expr", "deps"):
            if isinstance(v, Enum):
                return self._enum_expr(v)
            if isinstance(v, Py) and isinstance(v.value, list):
                return self._list_arg(v, p.name)
            return self._as_val(v).expr
        if k == "list":
            return self._list_arg(v, p.name)
        if k == "any":
            return self._kw_expr(p.name, v)
        if k == "pred":
            # language/typing/scalar.py predicate_to_expr: a Python bool is a BOOL constant,
            # an expression passes; any other Python value reaches the builder, which rejects it
            if isinstance(v, Py) and isinstance(v.value, bool):
                return const_int(int(v.value), "BOOL").expr
            if isinstance(v, Py):
                raise DslError(f"{spec.name}(): {p.name} must be a bool or a scalar expression, "
                               f"got {type(v.value).__name__} (create_op_call(): incompatible function arguments)")
            return self._as_val(v).expr
        if k == "axis":
            return self._axis_arg(p.name, v)
        if k in ("coalesce", "gather_oob"):
            names = ("row", "elem") if k == "coalesce" else ("undefined", "clamp", "wrap", "zero")
            # a Python value (a keyword, the default); a positional literal is already an IR
            # constant, which the builder rejects
            x = v.value if isinstance(v, Py) else v if isinstance(v, (str, int)) else None
            if x is None:
                x = self._shown(v)
            if isinstance(x, str) and x in names:
                return ir.IntConst(names.index(x))
            if isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(names):
                return ir.IntConst(x)
            allowed = ", ".join(f"'{n}'" for n in names)
            ints = "0, or 1" if k == "coalesce" else "or int 0-3"
            raise DslError(f"mgather {k} must be {allowed}, {ints}, got {x!r}" if isinstance(x, (str, int))
                           else f"mgather {k} must be {allowed}, {ints}, got {x}")
        if k == "vec_or_mat":
            if isinstance(v, Enum) and v.kind == "MemorySpace" and v.name in ("Vec", "Mat"):
                return None if v.name == "Vec" else self._enum_expr(v)
            raise DslError(f"mgather target_memory must be MemorySpace.Vec or MemorySpace.Mat, got {self._shown(v)}")
        if k == "seq":
            # _normalize_intlike (distributed/op/_utils.py): iterated as a Python sequence
            if isinstance(v, Py) and not isinstance(v.value, (list, tuple)):
                raise DslError(f"'{type(v.value).__name__}' object is not iterable")
            if isinstance(v, Val) and type(v.expr) in (ir.IntConst, ir.FloatConst, ir.BoolConst):
                # a positional literal reaches the wrapper as the IR constant the parser made of it
                shown = {ir.IntConst: "ConstInt", ir.FloatConst: "ConstFloat", ir.BoolConst: "ConstBool"}
                raise DslError(f"'{shown[type(v.expr)]}' object is not iterable")
            if isinstance(v, Val) and isinstance(v.type, ir.ScalarType):
                raise DslError("'Scalar' object is not iterable")
            return self._list_arg(v, p.name)
        if k in _ENUM_KINDS:
            kind = _ENUM_KINDS[k]
            if k in _ENUMS_BY_VALUE and isinstance(v, Py) and isinstance(v.value, int):
                # the registry stores these enums as ints: a Python int is the member of that value
                # (a bool is one for atomic; pipe's attr type refuses it)
                members = _ENUMS_BY_VALUE[k]
                op = spec.irop or spec.ns + "." + spec.name
                if k == "pipe" and isinstance(v.value, bool):
                    raise DslError(f"Kwarg '{p.name}' for operator '{op}' has incompatible type")
                if not 0 <= v.value < len(members):
                    raise DslError(f"{op} {p.name} is invalid: {v.value}" if k == "pipe" else
                                   f"The operator {op} atomic kwarg must be AtomicType.None_ or AtomicType.Add, "
                                   f"but got int {int(v.value)}")
                v = Enum(kind, members[int(v.value)])
            if k == "pad" and isinstance(v, Enum) and v.kind == kind and v.name == "null" and p.default is not None:
                # normalize_pad_value refuses null; a wrapper whose default is None (slice)
                # passes null through unnormalized (ir/op/tile_ops.py, tensor_ops.py)
                raise DslError(f"fillpad pad_value cannot be PadValue.null \u2014 that means no padding mode. "
                               f"{_PAD_HINT}")
            if isinstance(v, Enum) and v.kind == kind:
                if k == "space" and v.name not in views.SPACES:
                    raise DslError(f"Unknown memory space: {v.name}")
                if p.allowed and v.name not in p.allowed:
                    names = " or ".join(f"{kind}.{a}" for a in p.allowed)
                    raise DslError(f"{p.name} for {spec.irop or spec.ns + '.' + spec.name} must be {names}, "
                                   f"got {kind}.{v.name}")
                return self._enum_expr(v)
            num = v.value if isinstance(v, Py) else (const_value(v.expr) or (None, None))[1] \
                if isinstance(v, Val) and type(v.expr) in (ir.IntConst, ir.FloatConst, ir.UnaryOp) else None
            if k == "pad" and isinstance(num, (int, float)) and not isinstance(num, bool):
                import math
                if num == 0:
                    return dotted("pl", "PadValue", "zero")
                if num == math.inf:
                    return dotted("pl", "PadValue", "max")
                if num == -math.inf:
                    return dotted("pl", "PadValue", "min")
            if k == "pad":
                _pad_value_refusal(v, num)
            if k == "atomic" and isinstance(v, Enum) and v.kind == "AtomicType":
                return self._enum_expr(v)
            raise DslError(f"argument '{p.name}' must be a {kind}, got {self._shown(v)}")
        if k == "enumint":
            # an enum stored as its integer value (`op=pld.NotifyOp.Set` -> `op=1`):
            # allowed = (the enum, its members in value order)
            kind, members = p.allowed[0], p.allowed[1:]
            if isinstance(v, Enum) and v.kind == kind and v.name in members:
                return ir.IntConst(members.index(v.name))
            raise DslError(f"argument '{p.name}' must be a {kind}, got {self._shown(v)}")
        if k in ("int", "bool", "flag", "float", "num", "str"):
            if isinstance(v, Py):
                val = v.value
            elif isinstance(v, Val) and type(v.expr) in (ir.IntConst, ir.FloatConst, ir.BoolConst):
                cv = const_value(v.expr)
                val = cv[1]
            else:
                raise DslError(f"incompatible function arguments: '{p.name}' must be a Python {k}, got "
                               f"{self._shown(v)}")
            if k in ("bool", "flag") and not isinstance(val, (int, float, str)):
                return ir.BoolConst(bool(val))      # a list: only its truth is read (`k!`)
            if k == "str":
                if not isinstance(val, str):
                    raise DslError(f"argument '{p.name}' must be a string, got {val!r}")
                return ir.StrConst(val, "'")
            if k == "float" and isinstance(val, int):
                try:
                    val = float(val)    # the wrapper stores float(value): a C++ double
                except OverflowError:   # Python's float() of an int past the double range
                    raise DslError(f"argument '{p.name}': int too large to convert to float") from None
            if isinstance(val, bool):
                return ir.BoolConst(val)
            if isinstance(val, int):
                return ir.IntConst(val)
            if not isinstance(val, float):
                # a keyword's Python list or string where a number goes: the attribute
                # binding's TypeError (it crashed formatting the value as a float)
                raise DslError(f"incompatible function arguments: '{p.name}' must be a Python {k}, got "
                               f"{type(val).__name__}")
            return ir.FloatConst(float_text(val))
        if k == "cmpmode":
            # ir/op/tile_ops.py resolve_gather_compare_cmp_mode: a name or its number
            x = v.value if isinstance(v, Py) else None
            if isinstance(x, str):
                if x not in _GATHER_CMP_MODES:
                    raise DslError(f"Invalid cmp_mode {x!r}: expected one of {list(_GATHER_CMP_MODES)} or int 0-5")
                return ir.IntConst(_GATHER_CMP_MODES.index(x))
            if isinstance(x, int) and not isinstance(x, bool):
                if not 0 <= x < len(_GATHER_CMP_MODES):
                    raise DslError(f"Invalid cmp_mode {x}: int must be in [0, {len(_GATHER_CMP_MODES) - 1}]")
                return ir.IntConst(x)
            raise DslError(f"Invalid cmp_mode {self._shown(v)}: expected str or int 0-5")
        if k == "castmode":
            if isinstance(v, Py) and isinstance(v.value, int) and not isinstance(v.value, bool):
                if not 0 <= v.value <= 6:
                    raise DslError(f"Invalid rounding mode {v.value}. Expected int in range [0, 6].")
                return ir.StrConst(_CAST_MODES[v.value], "'")
            if isinstance(v, Py) and isinstance(v.value, str):
                if v.value not in _CAST_MODES:
                    raise DslError(f"Invalid rounding mode '{v.value}'. Expected one of {list(_CAST_MODES)}.")
                return ir.StrConst(v.value, "'")
            raise DslError(f"Invalid rounding mode {self._shown(v)!s}. Expected str name or int in range [0, 6].")
        if k in ("scalar", "slope", "sels"):
            return self._scalar_operand(k, v, b, spec)
        if k == "event":
            # _create_cross_core_sync_op: a Python int event id is an attribute (stored as
            # a keyword), an expression a positional operand
            if isinstance(v, Py) and isinstance(v.value, int) and not isinstance(v.value, bool):
                return None if b.get("__event_kw__") is None else ir.IntConst(v.value)
            if isinstance(v, Py):
                raise DslError(f"{spec.irop} {p.name} must be int or Expr, got {type(v.value).__name__}")
            return None if b.get("__event_kw__") else self._as_val(v).expr
        if k == "pipebuf":
            # ir/op/system_ops.py _consumer_buf_operand: an expression passes, a Python int
            # (the default 0, AUTO) is an INT32 constant
            if isinstance(v, Py) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
                return const_int(int(v.value), "INT32").expr
            return self._as_val(v).expr
        raise DslError(f"unsupported argument kind {k}")   # pragma: no cover

    def _axis_arg(self, name: str, v) -> ir.Expr:
        """_normalize_axis_const (ir/op/tile_ops.py) and tensor.transpose's axes: a Python
        int (a keyword; a bool is one) or an integer constant; the TypeError names the class
        of anything else as PyPTO's builder sees it (a positional float stays a ConstFloat,
        other expressions reach it wrapped as the DSL's Scalar/Tile/Tensor)."""
        if isinstance(v, Py):
            if isinstance(v.value, int):
                return ir.IntConst(int(v.value))
            got = type(v.value).__name__
        else:
            val = self._as_val(v)
            cv = const_value(val.expr)
            if cv is not None and cv[0] == "INDEX" and isinstance(cv[1], int):
                return val.expr
            got = {ir.FloatConst: "pypto.pypto_core.ir.ConstFloat"}.get(type(val.expr)) or \
                {"tile": "pypto.language.typing.tile.Tile", "tensor": "pypto.language.typing.tensor.Tensor"}.get(
                    ir.type_kind(val.type), "pypto.language.typing.scalar.Scalar")
        raise DslError(f"{name} must be int or ConstInt, got <class '{got}'>")

    def _scalar_operand(self, kind: str, v, b: dict, spec: OpSpec) -> ir.Expr:
        """ir/utils.py:316-431: an untyped constant (an INDEX literal) takes the dtype of
        the paired tile/tensor; other constants and typed scalars stay; an INDEX scalar
        value is rejected."""
        # sels: the source tile's dtype, and no other (a src that is not a tile has none:
        # its deducer rejects it); otherwise the first tile/tensor operand's
        names = ("src",) if kind == "sels" else [p.name for p in spec.params]
        operand = next((x for x in map(b.get, names) if is_tile(x) or is_tensor(x)), None)
        target = operand.type.dtype if operand is not None else None
        val = self._as_val(v)
        cv = const_value(val.expr)
        if kind == "slope":
            if cv is not None and cv[0] == "INDEX":
                return const_float(float(cv[1]), "FP32").expr
            self._reject_index(val, target)
            return val.expr
        if kind == "sels":
            # without a tile source there is no dtype to re-stamp to: the source's own
            # check rejects the call (PyPTO: src.unwrap() of a non-tile)
            if cv is not None and cv[0] != "BOOL" and target is not None:
                dt = target
                # _normalize_scalar_operand(retype_constants=True): a constant is re-stamped
                # to the source dtype, which a fraction (2.5, inf) cannot be in an integer one
                if dt in INT_DTYPES and isinstance(cv[1], float) and not cv[1].is_integer():
                    raise DslError(f"Cannot retype non-integral floating-point constant {cv[1]} to integer "
                                   f"dtype {DT_NAME.get(dt, dt)}; use an integral value or an explicit cast")
                if dt in ("UINT8", "UINT16", "UINT32"):
                    dt = "INT" + dt[4:]
                    bits = int(dt[3:])
                    value = int(cv[1])
                    if value >= 1 << (bits - 1):
                        value -= 1 << bits
                    return const_int(value, dt).expr
                return self._const_at(cv[1], dt)
            self._reject_index(val, target)
            return val.expr
        if cv is not None and cv[0] == "INDEX" and type(val.expr) is ir.IntConst:
            if target is None:
                return const_int(cv[1], "INT32").expr
            return self._const_at(cv[1], target)
        self._reject_index(val, target)
        return val.expr

    def _const_at(self, value, dtype: str) -> ir.Expr:
        if dtype in FLOAT_DTYPES:
            return const_float(float(value), dtype).expr
        return const_int(int(value), dtype).expr

    def _reject_index(self, val: Val, target) -> None:
        if isinstance(val.type, ir.ScalarType) and val.type.dtype == "INDEX":
            hint = f"pl.cast(<value>, pl.{target})" if target in INT_DTYPES and target != "INDEX" else \
                "pl.cast(<value>, pl.INT32)"
            raise DslError("Scalar operand has dtype `index`, which tile/tensor scalar instructions do not accept. "
                           f"Convert it explicitly, e.g. {hint}.")

    def _retyped(self, e: ir.Expr, dt: str) -> ir.Expr:
        cv = const_value(e)
        if cv is None or cv[0] == "BOOL" and dt != "BOOL":
            return e
        if dt == "BOOL":
            return const_int(1 if cv[1] else 0, "BOOL").expr
        if dt in INT_DTYPES and isinstance(cv[1], float):
            return e        # _normalize_const_to_dtype: a float on an integer dtype stays a float
        return self._const_at(cv[1], dt)

    def store(self, spec: OpSpec, b: dict, node) -> Val:
        pm = {p.name: p for p in spec.params}
        irop = spec.irop
        args: list = []
        if spec.rule == "binary_or_scalar":
            lhs, rhs = b["lhs"], b["rhs"]
            if is_tile(rhs) or is_tensor(rhs):
                irop = spec.rule_args[0]
                args = [self._as_val(lhs).expr, self._as_val(rhs).expr]
            else:
                irop = spec.rule_args[1]
                args = [self._as_val(lhs).expr, self._scalar_operand("scalar", rhs, b, spec)]
        elif spec.rule == "syncall":
            mode = b.get("mode").value if isinstance(b.get("mode"), Py) else "hard"
            core = b.get("core_type").value if isinstance(b.get("core_type"), Py) else "mix"
            # the wrapper's checks, in its order (language/op/system_ops.py syncall)
            if mode == "hard" and (b.get("gm_workspace") is not None or b.get("used_cores") is not None):
                raise DslError("syncall(mode='hard') takes no gm_workspace/used_cores; pass mode='soft' to use the "
                               "GM-polling barrier")
            if mode not in ("hard", "soft"):
                raise DslError(f"syncall mode must be 'hard' or 'soft', got {mode!r}")
            if mode == "soft":
                soft_types = ("aiv_only", "aic_only", "mix")
                if core not in soft_types:
                    raise DslError(f"soft syncall core_type must be one of {soft_types}, got {core!r}")
                ws = b.get("gm_workspace")
                if ws is None:
                    raise DslError("soft syncall requires gm_workspace (a shared, zero-initialized GM INT32 tensor)")
                if not is_tensor(ws):
                    raise DslError(f"soft syncall gm_workspace must be a Tensor, got {py_type_name(ws)}")
                used = b.get("used_cores")
                if used is None:
                    raise DslError("soft syncall requires explicit used_cores; pass 0 only when the device launch "
                                   "configuration matches the runtime's logical grid")
                if isinstance(used, Py) and isinstance(used.value, (str, list, tuple)) or isinstance(used, Val) and \
                        isinstance(used.type, (ir.TileType, ir.TensorType)):
                    raise DslError("soft syncall used_cores must be a non-negative Python int or an INT32 scalar, "
                                   f"got {py_type_name(used)}")
                if isinstance(used, Py) and type(used.value) is bool:
                    used = Py(int(used.value))          # an int to the wrapper: ConstInt(True) is 1
                    b["used_cores"] = used
                kws = [("mode", ir.StrConst("soft", '"')), ("core_type", ir.StrConst(core, '"')),
                       ("gm_workspace", self._as_val(ws).expr),
                       ("used_cores", self._as_val(used).expr if used is not None else ir.IntConst(0))]
            else:
                kws = [("core_type", ir.StrConst(core, "'"))]
            return self._finish(spec, spec.irop, [], kws, b, node)
        elif spec.rule == "slice":
            irop = f"{spec.ns}.slice"
            args = [self._convert(pm[spec.params[0].name], b[spec.params[0].name], b, spec),
                    self._list_arg(b["shape"], "shape"), self._list_arg(b["offset"], "offset")]
            vs = self._convert(pm["valid_shape"], b.get("valid_shape"), b, spec)
            dd = self._convert(pm["drop_dims"], b.get("drop_dims"), b, spec)
            if dd is not None and dd.items:
                args.append(vs if vs is not None else ir.ListExpr(()))
                args.append(dd)
            elif vs is not None:
                args.append(vs)
            pad = self._convert(pm["pad_value"], b.get("pad_value"), b, spec)
            kws = [("pad_value", pad)] if pad is not None else []
            for key, param, mod in spec.kwargs:
                self._store_kw(kws, key, pm[param], b.get(param), mod, b, spec)
            return self._finish(spec, irop, args, kws, b, node)
        else:
            for item in spec.args:
                optional = item.endswith("?")
                if optional:
                    item = item[:-1]
                retype = None
                if "@" in item:
                    item, retype = item.split("@", 1)
                    v = b.get(item)
                    if isinstance(v, Py) and isinstance(v.value, (list, tuple, str)):
                        # re-stamped as ConstInt(v, DT) / _normalize_expr: a number or an expression
                        raise DslError(f"{spec.name}(): {item} must be a number or a scalar expression, "
                                       f"got {type(v.value).__name__}")
                elif "#" in item:
                    item, retype = item.split("#", 1)
                    v = b.get(item)
                    if isinstance(v, Py) and isinstance(v.value, (list, tuple, str)):
                        # _normalize_expr takes a number or an expression
                        raise DslError(f"Cannot convert {type(v.value)} to IR expression")
                    if not (isinstance(v, Py) and type(v.value) is int):
                        # an IR expression (a positional literal) stays as read; a Python float
                        # is _normalize_expr's FP32 constant (peer=2.5 prints 2.5)
                        retype = None
                names = item.split("|")
                value = None
                for n in names:
                    value = self._convert(pm[n], b.get(n), b, spec)
                    if value is not None:
                        break
                if value is None:
                    if optional:
                        continue
                    raise DslError(f"{spec.name}(): argument '{names[0]}' must not be None")
                if retype is not None:
                    dt = retype if retype in DTYPES else self._dtype_arg(b[retype])
                    value = self._retyped(value, dt)
                args.append(value)
        kws: list = []
        for key, param, mod in spec.kwargs:
            if "@" in param:
                param, retype = param.split("@", 1)
                v = b.get(param)
                if isinstance(v, Py) and type(v.value) is int:
                    # a Python int stays a ConstInt even of a float dtype, printed `value=1`
                    kws.append((key, ir.IntConst(v.value)))
                    continue
                e = self._convert(pm[param], v, b, spec)
                e = self._retyped(e, self._dtype_arg(b[retype]))
                if type(e) is ir.Call and e.func == "pl.const":
                    e = e.args[0]
                kws.append((key, e))
                continue
            self._store_kw(kws, key, pm[param], b.get(param), mod, b, spec)
        return self._finish(spec, irop, args, kws, b, node)

    def _store_kw(self, kws, key, p: Param, v, mod, b, spec):
        if p.kind == "event":
            b = dict(b, __event_kw__=True)
        e = self._convert(p, v, b, spec)
        if e is None:
            if mod in ("?", "!"):
                return
            raise DslError(f"{spec.name}(): argument '{p.name}' is required")
        if mod == "!":
            cv = const_value(e)
            if cv is not None and not cv[1]:
                return
            if type(e) is ir.Dotted and e.parts[-1] in ("None_",):
                return
            if p.kind == "bool":
                # `kwargs = {"k": True} if k else {}`: stored as True whatever was passed
                e = ir.BoolConst(True)
        kws.append((key, e))

    def _finish(self, spec, irop, args, kws, b, node) -> Val:
        check_kwargs(irop, spec, kws, b)
        func = printed_op(irop)
        call = ir.Call(func, tuple(args), tuple(kws), *self._pos(node))
        result = spec.result
        if spec.rule == "binary_or_scalar":
            # the stored op's own deducer types it (tensor.sub storing tensor.subs: subs's rule)
            own = wrapper_table().get(*irop.rsplit(".", 1))
            result = own.result if own is not None else result
        val = Val(call, self.result_type(call, result, spec, b))
        for rule in dtype_rules().get(irop, ()):
            rule.check(call, val.type, self.type_of_expr)
        for rule in range_rules().get(irop, ()):
            rule.check(call, self.type_of_expr)
        return val

    def _kw_expr(self, key, v) -> ir.Expr:
        if isinstance(v, Enum):
            return self._enum_expr(v)
        if isinstance(v, Py):
            x = v.value
            if isinstance(x, bool):
                return ir.BoolConst(x)
            if isinstance(x, int):
                return ir.IntConst(x)
            if isinstance(x, float):
                return ir.FloatConst(float_text(x))
            if isinstance(x, str):
                return ir.StrConst(x, "'")
            if isinstance(x, list):
                return ir.ListExpr(tuple(self._kw_expr(key, Py(i)) for i in x))
        return self._as_val(v).expr

    # -- result types -------------------------------------------------------------------------
    def result_type(self, call: ir.Call, rule: str, spec: OpSpec, b: dict):
        if rule in ("tile", "tile_region", "declared"):
            stored = [re.split(r"[?@#|]", a, maxsplit=1)[0] for a in spec.args]
            args = [typerules.ArgInfo(self._index_items(a) if i < len(stored) and stored[i] in ("offsets", "offset")
                                      else a, self.type_of_expr(a)) for i, a in enumerate(call.args)]
            try:
                t = typerules.derive_result_type(call.op, args, dict(call.kwargs)) if call.op else None
            except typerules.DeductionError as e:
                if rule == "declared":
                    return UNKNOWN
                raise DslError(str(e)) from None
            except (ValueError, TypeError, KeyError, IndexError) as e:
                if rule == "declared":
                    return UNKNOWN
                raise DslError(f"cannot deduce the result type: {e}") from None
            if t is None:
                if rule == "declared":
                    return UNKNOWN      # an op of the user's: its annotation gives the type
                raise DslError(f"{spec.qualified}: unsupported operand types")
            return t
        m = re.match(r"(\w+)(?:\((.*)\))?$", rule)
        name, arg = m.group(1), m.group(2)
        f = getattr(self, f"_rt_{name}")
        return printed_dims(f(call, arg, spec, b))

    def _index_items(self, e):
        """Offsets as the deducer's index arithmetic sees them: an integer scalar var of
        another dtype than INDEX is promoted, ``pl.cast(r, pl.INDEX)`` (what PyPTO prints in
        a valid_shape derived from it; a requested valid_shape keeps the var as given)."""
        if type(e) is not ir.ListExpr:
            return e
        items = []
        for x in e.items:
            t = self.type_of_expr(x) if type(x) is ir.Name else None
            if isinstance(t, ir.ScalarType) and t.dtype in INT_DTYPES and t.dtype != "INDEX":
                x = ir.Call("pl.cast", (x, dotted("pl", "INDEX")))
            items.append(x)
        return ir.ListExpr(tuple(items))

    def type_of_key(self, key: str):
        return self.key_types.get(key)

    def type_of_expr(self, e):
        """The type of an argument expression: a var's, or that of the expression it was
        read from (a nested call)."""
        if type(e) is ir.Name:
            return self.key_types.get(e.id)
        got = self.expr_types.get(id(e))
        return got[1] if got is not None and got[0] is e else None

    def _arg_type(self, call, i):
        return self.type_of_expr(call.args[i])

