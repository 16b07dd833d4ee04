"""Op calls of the DSL: ``pl.NAME(...)``, ``pl.tile.NAME(...)``, ``pl.tensor.NAME(...)``,
``pl.system.NAME(...)`` (spec: dsl.md §4.4, §5; source: ast_parser.py:8015-8681).

The wrappers (their signatures and what each one stores) are data, in ``ops.txt``;
this module binds a call to its wrapper's signature the way Python does (with
Python's own messages for a wrong number of arguments or an unknown keyword),
converts the arguments, builds the stored call and asks the type rules for its
result type: tile ops through :mod:`tilemem.ir.typerules`, tensor and system ops
through the small rules below.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from typing import Optional

from tilemem import ir
from tilemem.frontend.pysource import DataTypeRef, EnumRef
from tilemem.frontend.dsl.exprs import DT_NAME, const_value, make_binop
from tilemem.frontend.dsl.types import tile_type
from tilemem.frontend.dsl.values import (
    DTYPE_BITS, DTYPES, FLOAT_DTYPES, INT64_RANGE, INT_DTYPES, UNKNOWN, DslError, Enum, Py, Val, WrapperCrash, const_float,
    const_int, dotted, scalar,
)
from tilemem.ir import typerules, views

__all__ = ["OpTable", "op_table", "OpCaller", "syntax_op", "dtype_rules", "range_rules"]

_NO = object()          # "argument not given"


@dataclass
class Param:
    name: str
    kind: str = "expr"
    default: object = _NO       # a Python value, an Enum, or _NO (required)
    kwonly: bool = False
    allowed: tuple = ()         # `space[Vec, Mat]`: the only members the builder accepts


@dataclass
class OpSpec:
    ns: str
    name: str
    params: list = field(default_factory=list)
    varargs: bool = False
    irop: Optional[str] = None          # None for dispatch rules
    args: list = field(default_factory=list)      # stored positional specs
    kwargs: list = field(default_factory=list)    # (key, param, modifier)
    result: str = "tile"
    rule: Optional[str] = None          # a store rule (binary_or_scalar, slice) or a dispatch rule
    rule_args: list = field(default_factory=list)
    construct: bool = False             # a parser construct: its call checked by its syntax first

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def module(self) -> str:
        """``pl``, ``pl.tile``, ..., ``pld``, ``pld.system`` (a pld namespace is spelled in full)."""
        return "pl" if self.ns == "pl" else self.ns if self.ns.split(".")[0] == "pld" else f"pl.{self.ns}"


# ----------------------------------------------------------------------------- the table

_ENUM_DEFAULTS = {
    "Vec": Enum("MemorySpace", "Vec"), "Mat": Enum("MemorySpace", "Mat"),
    "zero": Enum("PadValue", "zero"), "ND": Enum("TensorLayout", "ND"), "None_": Enum("AtomicType", "None_"),
    "Sum": Enum("ReduceOp", "Sum"),
}


def _parse_signature(sig: str) -> tuple[list[Param], bool]:
    fn = ast.parse(f"def f({sig}): pass").body[0]
    a = fn.args
    params: list[Param] = []

    def conv(default):
        if default is None:
            return _NO
        if isinstance(default, ast.Name):
            if default.id in DTYPES:
                return Enum("DataType", default.id)
            return _ENUM_DEFAULTS[default.id]
        return ast.literal_eval(default)

    pos = a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for p, d in zip(pos, defaults):
        params.append(Param(p.arg, _kind(p.annotation)[0], conv(d), allowed=_kind(p.annotation)[1]))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append(Param(p.arg, _kind(p.annotation)[0], conv(d), kwonly=True, allowed=_kind(p.annotation)[1]))
    return params, a.vararg is not None


def _kind(ann) -> tuple[str, tuple]:
    if ann is None:
        return "expr", ()
    if isinstance(ann, ast.Name):
        return ann.id, ()
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name):
        items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return ann.value.id, tuple(x.id for x in items)
    raise ValueError(ast.unparse(ann))


_LINE = re.compile(r"^([\w.]+)\.(\w+)\((.*)\)\s*=>\s*(.*?)\s*(?::\s*(\w+(?:\([^)]*\))?))?$")
_ALIAS = re.compile(r"^([\w.]+)\.(\w+)\s*=\s*([\w.]+)\.(\w+)$")
_STORE = re.compile(r"^([\w.]+)\((.*?)\)\s*(?:\{(.*)\})?$")


class OpTable:
    def __init__(self, text: str):
        self.specs: dict[tuple[str, str], OpSpec] = {}
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                self._add(line)
            except Exception as e:   # pragma: no cover - a broken table is a bug of tilemem
                raise RuntimeError(f"ops.txt:{lineno}: {e}") from None

    def _add(self, line: str) -> None:
        m = _ALIAS.match(line)
        if m:
            target = self.specs[(m.group(3), m.group(4))]
            self.specs[(m.group(1), m.group(2))] = target
            return
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"cannot read {line!r}")
        ns, name, sig, store, result = m.groups()
        params, varargs = _parse_signature(sig)
        spec = OpSpec(ns, name, params, varargs, result=result or "tile")
        if store.startswith("construct "):
            spec.construct = True
            store = store[len("construct "):].strip()
        if store.startswith("dispatch "):
            rm = re.match(r"dispatch (\w+)\((.*)\)$", store)
            spec.rule = "dispatch:" + rm.group(1)
            spec.rule_args = [x.strip() for x in rm.group(2).split(",") if x.strip()]
            self.specs[(ns, name)] = spec
            return
        kw_text = None
        if store.startswith("slice"):
            spec.rule = "slice"
            rest = store[len("slice"):].strip()
            if rest.startswith("{"):
                kw_text = rest[1:-1]
        elif store.startswith("syncall("):
            spec.rule = "syncall"
            spec.irop = store[len("syncall("):-1].strip()
        elif store.startswith("binary_or_scalar("):
            rm = re.match(r"binary_or_scalar\(([\w.]+), ([\w.]+)\)\s*(?:\{(.*)\})?$", store)
            spec.rule = "binary_or_scalar"
            spec.rule_args = [rm.group(1), rm.group(2)]
            kw_text = rm.group(3)
        else:
            sm = _STORE.match(store)
            if not sm:
                raise ValueError(f"cannot read the stored form {store!r}")
            spec.irop = sm.group(1)
            spec.args = [x.strip() for x in sm.group(2).split(",") if x.strip()]
            kw_text = sm.group(3)
        if kw_text:
            for item in (x.strip() for x in kw_text.split(",") if x.strip()):
                mod = ""
                if item[-1] in "?!":
                    item, mod = item[:-1], item[-1]
                key, _, param = item.partition("=")
                spec.kwargs.append((key, param or key, mod))
        self.specs[(ns, name)] = spec

    def get(self, ns: str, name: str) -> Optional[OpSpec]:
        return self.specs.get((ns, name))

    @functools.cached_property
    def region_ops(self) -> frozenset:
        """The stored ops (``pl.tile.load``) whose result is a `tile_region`."""
        return frozenset(f"pl.{s.irop}" for s in self.specs.values() if s.result == "tile_region" and s.irop)


@functools.lru_cache(maxsize=1)
def op_table() -> OpTable:
    import importlib.resources
    return OpTable((importlib.resources.files(__package__) / "ops.txt").read_text(encoding="utf-8"))


def syntax_op(role: str) -> str:
    """The op (as printed: ``pl.array.create``) the front end itself builds for a piece of
    Python syntax, by its role in ops.txt's ``syntax.ROLE = NS.NAME`` rows."""
    return _printed_op(op_table().get("syntax", role).irop)


# ----------------------------------------------------------------------------- dtype rules

_INT = frozenset(INT_DTYPES - {"INDEX"})        # DataType::IsInt


@dataclass(frozen=True)
class DtypeRule:
    """One row of ``dtypes.txt``: the dtypes an operand of a stored op may have."""
    operand: object                 # an int (a stored positional argument), "N[]" (each element of
                                    # tuple argument N, or of tuple kwarg N) or "result"
    when: Optional[str]             # a kwarg that must be stored and true, or None
    allowed: frozenset              # dtype names; empty when ``same_as`` is set
    message: str
    when_operand: Optional[tuple] = None    # (operand, dtypes, negated): only when that operand has
                                            # one of them (none of them, when negated)
    same_as: object = None          # the operand (or "result") whose dtype this one must equal
                                    # (or be one of ``allowed``)

    def check(self, call: ir.Call, result, type_of) -> None:
        if self.when is not None:
            e = dict(call.kwargs).get(self.when, ir.BoolConst(False))
            if type(e) is ir.Dotted:
                if e.parts[-1] == "None_":  # an enum kwarg (atomic=pl.AtomicType.Add) is true but for None_
                    return
            else:
                cv = const_value(e)
                if cv is None or not cv[1]:
                    return
        if self.when_operand is not None:
            other = self._dtype(self.when_operand[0], call, result, type_of)
            if (other in self.when_operand[1]) == self.when_operand[2]:
                return
        if isinstance(self.operand, str) and self.operand.endswith("[]"):
            self._check_items(call, type_of)
            return
        dt = self._dtype(self.operand, call, result, type_of)
        if dt is None:
            return
        if self.same_as is not None:
            want = self._dtype(self.same_as, call, result, type_of)
            if want is None or dt == want or dt in self.allowed:
                return
        elif dt in self.allowed:
            return
        raise DslError(re.sub(r"\{dt(\d+|result)\}", lambda m: DT_NAME.get(
            self._dtype(m.group(1) if m.group(1) == "result" else int(m.group(1)), call, result, type_of), "?"),
            self.message)
            .replace("{got}", DT_NAME.get(dt, dt)))

    def _check_items(self, call, type_of) -> None:
        """Every element of a tuple operand (a shape, offset or index list)."""
        i = self.operand[:-2]
        if i.isdigit():
            e = call.args[int(i)] if int(i) < len(call.args) else None
        else:
            e = dict(call.kwargs).get(i)            # a tuple stored as a kwarg (gather_row's valid_shape)
        for n, x in enumerate(e.items if type(e) is ir.ListExpr else ()):
            dt = getattr(type_of(x), "dtype", None)
            if dt is None and const_value(x) is not None:
                dt = const_value(x)[0]
            if dt is not None and dt not in self.allowed:
                raise DslError(self.message.replace("{got}", DT_NAME.get(dt, dt)).replace("{i}", str(n)))

    @staticmethod
    def _dtype(operand, call, result, type_of) -> Optional[str]:
        if operand == "result":
            return getattr(result, "dtype", None)
        if isinstance(operand, str):
            e = dict(call.kwargs).get(operand)
            if e is None:
                return None
        elif operand >= len(call.args):
            return None
        else:
            e = call.args[operand]
        dt = getattr(type_of(e), "dtype", None)
        if dt is None and const_value(e) is not None:
            dt = const_value(e)[0]          # a constant the reader built (a re-stamped literal)
        if dt is None and type(e) is ir.Dotted and len(e.parts) == 2 and e.parts[1] in DTYPES:
            dt = e.parts[1]                 # a dtype kwarg (count_dtype=pl.INT32): the dtype it names
        return dt


def _dtype_names(words: str, where: str) -> frozenset:
    names = set()
    for w in words.replace(",", " ").split():
        names |= _INT if w == "int" else {w}
    if not names <= set(DTYPES):
        raise RuntimeError(f"{where}: unknown dtype in {words!r}")  # pragma: no cover
    return frozenset(names)


def _operand(w: str):
    if w.endswith("[]"):
        if not w[:-2].isidentifier():
            int(w[:-2])
        return w
    return int(w) if w.isdigit() else w         # an index, `result` or a stored kwarg's name


def _check_table_rows(name: str):
    """The rows of a ``HEAD : ALLOWED : MESSAGE`` check table of this package
    (``dtypes.txt``, ``ranges.txt``; blank and ``#`` lines skipped): (where, raw, head,
    allowed, message) each, ``where`` the table's ``name:line``."""
    import importlib.resources
    text = (importlib.resources.files(__package__) / name).read_text(encoding="utf-8")
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        head, allowed, message = (x.strip() for x in raw.split(" : ", 2))
        yield f"{name}:{lineno}", raw, head, allowed, message


@dataclass(frozen=True)
class FormRow:
    """A row of ``forms.txt``: a form of a multi-form wrapper, or a check on its forms."""
    form: str               # the form's name (`*`: the wrapper's, for `mixed`)
    kind: str               # form, mixed, requires, forbids, none
    params: tuple
    text: str               # the wrapper a `form` calls; else the message


@functools.lru_cache(maxsize=1)
def form_rules() -> dict:
    """wrapper (``tensor.gather``: its ops.txt row) -> its :class:`FormRow` rows, in order."""
    rules: dict = {}
    for where, raw, head, params, text in _check_table_rows("forms.txt"):
        words = head.split()
        if len(words) != 3 or words[2] not in ("form", "mixed", "requires", "forbids", "none"):
            raise RuntimeError(f"{where}: cannot read {raw!r}")   # pragma: no cover
        rules.setdefault(words[0], []).append(FormRow(words[1], words[2],
                                                      tuple(p for p in params.split() if p != "-"), text))
    return rules


@functools.lru_cache(maxsize=1)
def dtype_rules() -> dict:
    """stored op (``tile.log``) -> its :class:`DtypeRule` rows, from ``dtypes.txt``."""
    rules: dict = {}
    for where, raw, head, allowed, message in _check_table_rows("dtypes.txt"):
        words = head.split()
        if len(words) not in (2, 4) or (len(words) == 4 and words[2] != "if"):
            raise RuntimeError(f"{where}: cannot read {raw!r}")   # pragma: no cover
        when = when_operand = None
        if len(words) == 4:
            if "=" in words[3]:
                other, dts = words[3].split("=", 1)
                negated = other.endswith("!")
                when_operand = (_operand(other.rstrip("!")), _dtype_names(dts, where), negated)
            else:
                when = words[3]
        same_as = _operand(allowed[1:].split()[0]) if allowed.startswith("=") else None
        extra = allowed.split(None, 1)[1] if same_as is not None and " " in allowed else ""
        names = (_dtype_names(extra, where) if extra else frozenset()) if same_as is not None \
            else _dtype_names(allowed, where)
        rules.setdefault(words[0], []).append(
            DtypeRule(_operand(words[1]), when, names, message, when_operand, same_as))
    return rules


# ----------------------------------------------------------------------------- value rules

_BOUND = re.compile(r"(-?)(?:(\d+)|rank(\d+)|dim(\d+)\.(\d+))([+-]\d+)?$")


def _bound(term: str, call: ir.Call, type_of) -> Optional[int]:
    """A ``ranges.txt`` bound: an integer, ``rankK`` or ``dimK.I`` (+/-N), possibly negated;
    None when operand K's rank, or its dimension I as a constant, is unknown."""
    m = _BOUND.match(term.strip())
    if m is None:
        raise RuntimeError(f"ranges.txt: cannot read bound {term!r}")   # pragma: no cover
    neg, num, k, dk, di, off = m.groups()
    if num is not None:
        v = int(num)
    else:
        k = int(k if k is not None else dk)
        e = call.args[k] if k < len(call.args) else None
        shape = getattr(type_of(e), "shape", None) if e is not None else None
        if shape is None:
            return None
        if di is None:
            v = len(shape)
        else:
            cv = const_value(shape[int(di)]) if int(di) < len(shape) else None
            if cv is None or not isinstance(cv[1], int) or isinstance(cv[1], bool):
                return None
            v = cv[1]
    v = -v if neg else v
    return v + int(off) if off else v


@dataclass(frozen=True)
class RangeRule:
    """One row of ``ranges.txt``: the constant values a stored kwarg or operand may take."""
    what: object                    # a kwarg name, or a stored positional argument's index
    values: tuple                   # alternatives: ("one", A) | ("range", A or "", B or "") | ("mult", N)
    message: str

    def check(self, call: ir.Call, type_of) -> None:
        if isinstance(self.what, int):
            e = call.args[self.what] if self.what < len(call.args) else None
        else:
            e = dict(call.kwargs).get(self.what)
        cv = const_value(e) if e is not None else None
        if cv is None or isinstance(cv[1], (bool, float)):
            return                  # not a constant integer: nothing to check here
        got = cv[1]
        for alt in self.values:
            if alt[0] == "mult":
                if got > 0 and got % alt[1] == 0:
                    return
                continue
            bounds = [_bound(t, call, type_of) if t else None for t in alt[1:]]
            if any(t and b is None for t, b in zip(alt[1:], bounds)):
                return              # a rank the reader does not know: left to PyPTO
            lo, hi = bounds if alt[0] == "range" else (bounds[0], bounds[0])
            if (lo is None or got >= lo) and (hi is None or got <= hi):
                return
        msg = re.sub(r"\{([^{}]+)\}", lambda m: str(got) if m.group(1) == "got"
                     else str(_bound(m.group(1), call, type_of)), self.message)
        raise DslError(msg)


@functools.lru_cache(maxsize=1)
def range_rules() -> dict:
    """stored op (``tile.random``) -> its :class:`RangeRule` rows, from ``ranges.txt``."""
    rules: dict = {}
    for _where, _raw, head, values, message in _check_table_rows("ranges.txt"):
        op, what = head.split()
        alts = []
        for a in values.split("|"):
            a = a.strip()
            if a.startswith("*"):
                alts.append(("mult", int(a[1:])))
            elif ".." in a:
                alts.append(("range", *(t.strip() for t in a.split("..", 1))))
            else:
                alts.append(("one", a))
        rules.setdefault(op, []).append(RangeRule(int(what) if what.isdigit() else what, tuple(alts), message))
    return rules


# ----------------------------------------------------------------------------- binding

def _requires(spec: OpSpec, name: str) -> bool:
    """Whether ``spec``'s wrapper has a parameter ``name`` without a default."""
    return any(p.name == name and p.default is _NO for p in spec.params)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def bind(spec: OpSpec, args: list, kwargs: list[tuple[str, object]], fname: str) -> dict:
    """Python's argument binding, with Python's TypeError messages."""
    positional = [p for p in spec.params if not p.kwonly]
    out: dict = {}
    if len(args) > len(positional) and not spec.varargs:
        lo = sum(1 for p in positional if p.default is _NO)
        hi = len(positional)
        takes = f"{hi}" if lo == hi else f"from {lo} to {hi}"
        word = "argument" if hi == 1 and lo == hi else "arguments"
        was = "was" if len(args) == 1 else "were"
        raise DslError(f"{fname}() takes {takes} positional {word} but {len(args)} {was} given")
    for p, a in zip(positional, args):
        out[p.name] = a
    names = {p.name for p in spec.params}
    for k, v in kwargs:
        if k not in names:
            raise DslError(f"{fname}() got an unexpected keyword argument '{k}'")
        if k in out:
            raise DslError(f"{fname}() got multiple values for argument '{k}'")
        out[k] = v
    missing_pos = [p.name for p in positional if p.name not in out and p.default is _NO]
    if missing_pos:
        quoted = [f"'{n}'" for n in missing_pos]
        lst = quoted[0] if len(quoted) == 1 else (", ".join(quoted[:-1]) + f" and {quoted[-1]}")
        raise DslError(f"{fname}() missing {_plural(len(missing_pos), 'required positional argument')}: {lst}")
    missing_kw = [p.name for p in spec.params if p.kwonly and p.name not in out and p.default is _NO]
    if missing_kw:
        quoted = [f"'{n}'" for n in missing_kw]
        lst = quoted[0] if len(quoted) == 1 else (", ".join(quoted[:-1]) + f" and {quoted[-1]}")
        raise DslError(f"{fname}() missing {_plural(len(missing_kw), 'required keyword-only argument')}: {lst}")
    for p in spec.params:
        if p.name not in out:
            d = p.default
            out[p.name] = None if d is _NO or d is None else (d if isinstance(d, Enum) else Py(d))
    return out


def _construct_checks(spec: OpSpec, call: ir.Call) -> None:
    """The checks PyPTO's parser makes on the call of a parser construct (``construct`` in
    ops.txt) before it reads any argument, in its words and order, at the call
    (ast_parser.py:8528-8550, ``_parse_task_dummy``)."""
    what = spec.qualified
    if call.args:
        raise DslError(f"{what} must not use positional arguments", call)
    names = {p.name for p in spec.params}
    for k, _ in call.kwargs:
        if k not in names and k != "attrs":
            raise DslError(f"{what} does not accept keyword argument '{k}'", call)
    given = {k for k, _ in call.kwargs}
    for p in spec.params:
        if p.default is _NO and p.name not in given:
            raise DslError(f"{what} requires keyword argument '{p.name}'", call)


# ----------------------------------------------------------------------------- conversions

_ENUM_KINDS = {"space": "MemorySpace", "tile_layout": "TileLayout", "tensor_layout": "TensorLayout",
               "pad": "PadValue", "atomic": "AtomicType", "pipe": "PipeType", "dtype": "DataType"}
# enums a Python int may stand for, their members in value order (ir/pipe.h PipeType, ir/comm.h AtomicType)
_ENUMS_BY_VALUE = {"pipe": ("MTE1", "MTE2", "MTE3", "M", "V", "S", "FIX", "ALL"), "atomic": ("None_", "Add")}
_MASK_PATTERNS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")   # MaskPattern: 1..7
_MIN_FFTS_WORKSPACE = 256       # ir/op/system_ops.py _MIN_FFTS_WORKSPACE_ELEMENTS
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


def _py_type_name(v) -> str:
    """The Python type a DSL wrapper sees for a value: the wrapper class, or a literal's."""
    if isinstance(v, Py):
        return type(v.value).__name__
    if isinstance(v, Val):
        t = v.type
        return ("Tile" if isinstance(t, ir.TileType) else "Tensor" if isinstance(t, ir.TensorType)
                else "Scalar" if isinstance(t, ir.ScalarType) else type(t).__name__)
    return type(v).__name__


def _is_tile(v) -> bool:
    return isinstance(v, Val) and isinstance(v.type, ir.TileType)


def _is_tensor(v) -> bool:
    return isinstance(v, Val) and isinstance(v.type, ir.TensorType)


def _is_scalar_like(v) -> bool:
    if isinstance(v, Val):
        return isinstance(v.type, ir.ScalarType)
    return isinstance(v, Py) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool)


def _wrapper_kind(v) -> str:
    """What a wrapper's dispatch error calls an operand that is no Tensor or Tile: the
    ``type(a).__name__`` of what PyPTO's parser hands it (unified_ops.py).  A numeric
    literal is the IR constant (``1.0``, ``-2``, ``pl.const(1, pl.INT32)``: ConstFloat /
    ConstInt), a list literal a Python list, a bool literal or a scalar expression a DSL
    Scalar."""
    if isinstance(v, Enum):
        return v.kind                   # the enum's class: MemorySpace, DataType, PadValue, ...
    if not isinstance(v, Val):
        return type(getattr(v, "value", v)).__name__
    e = v.expr
    if type(e) is ir.ListExpr:
        return "list"
    if not isinstance(v.type, ir.ScalarType):
        return type(e).__name__
    return _constant_kind(e) or "Scalar"


def _constant_kind(e) -> Optional[str]:
    """The IR constant PyPTO's parser builds for a numeric literal (``1.0``, ``-2``,
    ``pl.const(1, pl.INT32)``): ConstFloat / ConstInt; None for any other expression."""
    if type(e) is ir.Call and e.func == "pl.const" and e.args:
        e = e.args[0]
    if type(e) is ir.UnaryOp and e.op == "-":
        e = e.operand
    return {ir.IntConst: "ConstInt", ir.FloatConst: "ConstFloat"}.get(type(e))


def _fresh_tensor_type(shape, dtype: str, valid) -> ir.TensorType:
    """MakeFreshTensorType (type_inference.h:750): a computed tensor's own metadata only --
    shape, dtype and its valid shape (no stride, layout, pad or memref; no view at all
    when fully valid)."""
    from tilemem.frontend.dsl.types import tensor_view_expr
    return ir.TensorType(tuple(shape), dtype, tensor_view_expr(tuple(valid), (), "ND", None, tuple(shape)))


def _printed_dims(t):
    """A deduced tensor type with its dims in printed form: constants folded, the integer
    leaves of a composite dim ``pl.const(v, pl.INDEX)`` (printer.md §3, as typerules does
    for tiles)."""
    from tilemem.ir.symbolic import finalize_dims
    if isinstance(t, ir.TensorType):
        view = t.view
        if type(view) is ir.Call:
            view = ir.replace(view, kwargs=tuple(
                (k, ir.ListExpr(finalize_dims(v.items)) if k in ("stride", "valid_shape") else v)
                for k, v in view.kwargs))
        return ir.replace(t, shape=finalize_dims(t.shape), view=view)
    if isinstance(t, ir.TupleType):
        return ir.replace(t, items=tuple(_printed_dims(x) for x in t.items))
    return t


def _registered(ns: str, name: str) -> bool:
    """Whether PyPTO registers the op (the shipped op table): ``pl.NAME`` may be its tile or
    tensor op."""
    from tilemem.datalog import RuleSet
    ops = {r[0] for r in RuleSet.from_package().fact_rows.get("op", ())}
    names = (f"tile.{name}", f"tensor.{name}") if ns == "pl" else (f"{ns}.{name}",)
    return any(n in ops for n in names)


@functools.lru_cache(maxsize=1)
def kwarg_types() -> dict:
    """stored op -> {attribute: its declared C++ type}, the op table's ``op_kwarg`` rows."""
    from tilemem.datalog import RuleSet
    table: dict = {}
    for op, kw, ty in RuleSet.from_package().fact_rows.get("op_kwarg", ()):
        table.setdefault(op, {})[kw] = ty
    return table


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
    declared = kwarg_types().get(op)
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


class OpCaller:
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
        spec = op_table().get(ns, name)
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
            _construct_checks(spec, call)
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
        takes = {p.name for p in op_table().get(tns, tname).params}
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
        table = op_table()

        def call_wrapper(target: str, pass_args=None, pass_kwargs=None):
            tns, tname = target.rsplit(".", 1)
            tspec = table.get(tns, tname)
            return self.invoke(tspec, args if pass_args is None else pass_args,
                               kwargs if pass_kwargs is None else pass_kwargs, node)

        if rule == "binary":
            lhs, rhs = b["lhs"], b["rhs"]
            tile_op, scalar_op = ra[0], ra[1]
            tensor_op = ra[2] if len(ra) > 2 else None
            if _is_tensor(lhs) and (_is_tensor(rhs) or _is_scalar_like(rhs)):
                if tensor_op is None:
                    raise DslError(f"pl.{spec.name}: expected Tile operands for this operation")
                return call_wrapper(tensor_op)
            if _is_tile(lhs) and _is_tile(rhs):
                return call_wrapper(tile_op)
            if _is_tile(lhs) and _is_scalar_like(rhs):
                return call_wrapper(scalar_op)
            if _is_scalar_like(lhs) and _is_scalar_like(rhs) and len(ra) > 3:
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
                if all(_is_tile(v) for v in operands):
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
                if all(_is_tensor(v) for v in operands) and tensor_op:
                    return call_wrapper(tensor_op)
                self._dispatch_error(spec.name, operands)
            if _is_tile(first):
                if rule == "reduce" and b.get("tmp_tile") is None and _requires(table.get(*tile_op.rsplit(".", 1)),
                                                                                  "tmp_tile"):
                    raise DslError(f"pl.{spec.name}: Tile inputs require tmp_tile")
                return call_wrapper(tile_op)
            if _is_tensor(first) and tensor_op and tensor_op != "scalar_cast":
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
                kind = _wrapper_kind(first)
                where = " destination" if "named_dst" in ra else ""
                raise DslError(f"pl.{spec.name}: expected Tensor or Tile{where}, got {kind}")
            self._dispatch_error(spec.name, [first])
        raise DslError(f"pl.{spec.name}: unsupported dispatch")   # pragma: no cover

    def _dispatch_error(self, name: str, operands) -> None:
        kinds = []
        for v in operands:
            if _is_tensor(v):
                kinds.append("Tensor")
            elif _is_tile(v):
                kinds.append("Tile")
            else:
                kinds.append(_wrapper_kind(v))
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
            return ir.FloatConst(_float_text(val))
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
        operand = next((x for x in map(b.get, names) if _is_tile(x) or _is_tensor(x)), None)
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
            if _is_tile(rhs) or _is_tensor(rhs):
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
                if not _is_tensor(ws):
                    raise DslError(f"soft syncall gm_workspace must be a Tensor, got {_py_type_name(ws)}")
                used = b.get("used_cores")
                if used is None:
                    raise DslError("soft syncall requires explicit used_cores; pass 0 only when the device launch "
                                   "configuration matches the runtime's logical grid")
                if isinstance(used, Py) and isinstance(used.value, (str, list, tuple)) or isinstance(used, Val) and \
                        isinstance(used.type, (ir.TileType, ir.TensorType)):
                    raise DslError("soft syncall used_cores must be a non-negative Python int or an INT32 scalar, "
                                   f"got {_py_type_name(used)}")
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
        func = _printed_op(irop)
        call = ir.Call(func, tuple(args), tuple(kws), *self._pos(node))
        result = spec.result
        if spec.rule == "binary_or_scalar":
            # the stored op's own deducer types it (tensor.sub storing tensor.subs: subs's rule)
            own = op_table().get(*irop.rsplit(".", 1))
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
                return ir.FloatConst(_float_text(x))
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
        return _printed_dims(f(call, arg, spec, b))

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

    def _rt_like(self, call, arg, spec, b):
        t = self._arg_type(call, int(arg))
        if t is None:
            raise DslError(f"{spec.qualified}: expected a tensor or tile operand")
        return t

    def _rt_tensor_assemble(self, call, arg, spec, b):
        """A tensor assembled from a source at an offset (tensor_ops/memory.cpp
        DeduceTensorAssembleType): the source's valid region must fit at the offset
        (CheckWriteDimBounds, a valid-region transfer), and the result is a fresh tensor of
        the target's shape and dtype holding the union of the target's valid region and the
        region written (InferWriteValidShapeUnion; the whole shape when the ranks differ).
        A DistributedTensor target keeps its own type (its window binding is not modelled
        here)."""
        from tilemem.frontend.dsl.types import view_parts
        t, src = self._arg_type(call, 0), self._arg_type(call, 1)
        if isinstance(t, ir.TensorType) and isinstance(src, ir.TensorType) and type(call.args[2]) is ir.ListExpr:
            valid = view_parts(src.view)[0] or src.shape
            offsets = call.args[2].items
            try:
                typerules.check_write_bounds(
                    call.op, t.shape, offsets, valid,
                    f"{call.op} transfers only the source's effective valid region, so it is that "
                    "extent -- not the whole source allocation -- that has to fit at this offset")
                union = tuple(t.shape)
                if len(src.shape) == len(t.shape) == len(offsets):
                    union = typerules.write_union(t.shape, view_parts(t.view)[0] or tuple(t.shape), valid,
                                                  offsets, call.op)
            except typerules.DeductionError as e:
                raise DslError(str(e)) from None
            if t.kind == "pl.Tensor":
                return _fresh_tensor_type(t.shape, t.dtype, union)
        return self._rt_like(call, arg, spec, b)

    def _rt_dest(self, call, arg, spec, b):
        """The tensor a tile is written to (tile.store, tile.mscatter; tile_ops/memory.cpp):
        the result has its type; anything but a tensor is rejected."""
        t = self._arg_type(call, int(arg))
        if t is not None and not isinstance(t, ir.TensorType):
            raise DslError(f"The operator {call.op} requires third argument to be a TensorType or "
                           f"DistributedTensorType, but got {_type_name(t)}")
        tile = self._arg_type(call, 0)
        if spec.params[1].name == "offsets" and len(call.args) == 3 and isinstance(tile, ir.TileType) \
                and t is not None and type(call.args[1]) is ir.ListExpr:
            # a store without an ND partition moves the tile's valid region into the tensor
            try:
                typerules.check_write_bounds(call.op, t.shape, call.args[1].items, views.valid_shape_of(tile),
                                             "A store performs no layout conversion (RFC #1300 P7): the offsets "
                                             "and the tile extent must already be in the destination's coordinate "
                                             "system. If the tile was read through a view whose layout differs "
                                             "from the destination's -- a DN view transposes it -- take the "
                                             "matching view of the destination, pl.view(out, layout=...), and "
                                             "store into that")     # tile_ops/memory.cpp:382-386
                stored = self._stored_union(call, t, tile)
            except typerules.DeductionError as e:
                raise DslError(str(e)) from None
            if stored is not None:
                return stored
        return self._rt_like(call, arg, spec, b)

    @staticmethod
    def _stored_union(call, t, tile):
        """A store returns its destination holding what it held plus the region written
        (tile_ops/memory.cpp DeduceTileStoreType, InferWriteValidShapeUnion): a new type with
        that valid shape, or None where it is the destination's own (the common case: a
        fully valid destination) or underivable (ranks differ)."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        offsets = call.args[1].items
        if not (len(tile.shape) == len(t.shape) == len(offsets)):
            return None
        valid, stride, layout, pad = view_parts(t.view)
        dest_valid = valid or tuple(t.shape)
        union = typerules.write_union(t.shape, dest_valid, views.valid_shape_of(tile), offsets, call.op)
        if views.expr_lists_equal(union, dest_valid):
            return None
        return ir.replace(t, view=tensor_view_expr(union, stride, layout, pad, t.shape))

    def _rt_tensor_dim(self, call, arg, spec, b):
        """DeduceTensorDimType (tensor_ops/memory.cpp:798-820): an INDEX scalar of a tensor's
        extent; the wrapper unwraps its first argument (a literal has no unwrap), the deducer
        wants a TensorType there."""
        t = self._arg_type(call, 0)
        literal = _constant_kind(call.args[0]) if t is None else None
        if literal is not None:
            raise WrapperCrash(f"'{literal}' object has no attribute 'unwrap'")
        if t is not None and not isinstance(t, ir.TensorType):
            raise DslError(f"tensor.dim requires first argument to be a TensorType, but got {_type_name(t)}")
        return scalar("INDEX")

    def _rt_scalar(self, call, arg, spec, b):
        return scalar(arg)

    def _rt_unknown(self, call, arg, spec, b):
        return UNKNOWN

    def _rt_array(self, call, arg, spec, b):
        e = call.args[0]
        if type(e) is ir.IntConst and e.value <= 0:         # array_ops/memory.cpp:68
            raise DslError(f"{call.op} extent must be positive, got {e.value}")
        return array_type(call.args[0], self._dtype_arg(b["dtype"]))

    def _rt_array_element(self, call, arg, spec, b):
        t = self._arg_type(call, 0)
        dt = array_dtype(t)
        if dt is None:
            raise DslError(f"{spec.qualified}: expected an Array operand")
        return scalar(dt)

    def _rt_ptr(self, call, arg, spec, b):
        return ir.OpaqueType(dotted("pl", "Ptr"))

    # -- async prefetch handles (prefetch_async.cpp): opaque marker types ----------------------
    def _rt_handle(self, call, arg, spec, b):
        return ir.OpaqueType(dotted("pl", arg))

    def _not_handle(self, call, i, kind: str):
        """The IR type name of argument ``i`` when it is not a ``kind`` handle, else None."""
        t = self._arg_type(call, i)
        return None if isinstance(t, ir.OpaqueType) and t.expr == dotted("pl", kind) else _type_name(t)

    def _rt_async_prefetch(self, call, arg, spec, b):
        # CheckFlatContiguous1DSource: a static, logically 1-D GM tensor
        name, t = spec.irop, self._arg_type(call, 0)
        if type(call.args[0]) is not ir.Name:
            raise DslError(f"{name} expects src to be a Var or IterArg")
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{name} expects src to be a GM Tensor (prefetch reads global memory), got {_type_name(t)}")
        if not t.shape:
            raise DslError(f"{name} expects src to have rank >= 1, got a rank-0 tensor")
        dims = []
        for i, d in enumerate(t.shape):
            cv = const_value(d)
            if cv is None:
                raise DslError(f"{name} expects src to have a fully static shape, but dimension {i} is dynamic; "
                               "async prefetch needs a compile-time byte extent")
            dims.append(cv[1])
        for i, d in enumerate(dims[:-1]):
            if d != 1:
                raise DslError(f"{name} expects src to be a flat contiguous logical 1D GM region (all dimensions "
                               f"except the last must be 1), but dimension {i} is {d}; reshape the tensor to [N] "
                               "or [1, ..., N] before prefetching")
        got = self._not_handle(call, 1, "PrefetchAsyncContext")
        if got:
            raise DslError(f"{name} expects ctx to be a PrefetchAsyncContext (output of prefetch.make_context), "
                           f"got {got}")
        return ir.OpaqueType(dotted("pl", "AsyncEvent"))

    def _rt_prefetch_session(self, call, arg, spec, b):
        got = self._not_handle(call, 0, "PrefetchAsyncContext")
        if got:
            raise DslError(f"{spec.irop} expects ctx to be a PrefetchAsyncContext (output of "
                           f"prefetch.make_context), got {got}")
        return ir.OpaqueType(dotted("pl", "AsyncSession"))

    def _rt_prefetch_wait(self, call, arg, spec, b):
        got = self._not_handle(call, 0, "AsyncEvent")
        if got:
            raise DslError(f"{spec.irop} expects event to be an AsyncEvent (output of prefetch.async_prefetch), "
                           f"got {got}")
        got = self._not_handle(call, 1, "AsyncSession")
        if got:
            raise DslError(f"{spec.irop} expects session to be an AsyncSession (output of prefetch.session), "
                           f"got {got}")
        return scalar("BOOL")

    def _rt_cacheinvalid(self, call, arg, spec, b):
        # ir/op/system_ops.py cacheinvalid: the whole-GM form (no arguments) or a tensor region
        name = spec.irop
        if b.get("tensor") is None:
            if b.get("shapes") is not None or b.get("offsets") is not None:
                raise DslError(f"{name} whole-GM form takes no shapes/offsets; pass (tensor, shapes, offsets) for "
                               "the region form")
            return UNKNOWN
        if b.get("shapes") is None or b.get("offsets") is None:
            raise DslError(f"{name} region form requires both shapes and offsets (or pass no arguments for the "
                           "whole-GM form)")
        t = self._arg_type(call, 0)
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{name} tensor must have TensorType, got {_printed_type(t)}")
        for what, lst in (("shapes", call.args[1].items), ("offsets", call.args[2].items)):
            if len(lst) != len(t.shape):
                raise DslError(f"{name} {what} must match tensor rank {len(t.shape)}, got {len(lst)}")
        for what, lst in (("shapes", call.args[1].items), ("offsets", call.args[2].items)):
            for x in lst:
                xt = self._scalar_kind(x)
                if isinstance(xt, ir.ScalarType) and xt.dtype in FLOAT_DTYPES:
                    raise DslError(f"{name} {what} must be integers, got dtype {DT_NAME.get(xt.dtype, xt.dtype)}")
        return UNKNOWN

    def _rt_set_ffts(self, call, arg, spec, b):
        # ir/op/system_ops.py set_ffts: a static 1-D INT64 workspace of at least 256 elements
        name, t = spec.irop, self._arg_type(call, 0)
        if not isinstance(t, ir.TensorType):
            raise DslError(f"set_ffts workspace must be a Tensor, got {_type_name(t)}")
        if t.dtype != "INT64":
            raise DslError(f"{name} workspace must have INT64 dtype, got {DT_NAME.get(t.dtype, t.dtype)}")
        if len(t.shape) != 1:
            raise DslError(f"{name} workspace must be 1-D, got rank {len(t.shape)}")
        n = const_value(t.shape[0])
        if n is None or n[1] < _MIN_FFTS_WORKSPACE:
            raise DslError(f"{name} workspace must have a static length of at least {_MIN_FFTS_WORKSPACE} INT64 "
                           "elements")
        return UNKNOWN

    def _rt_window_buffer(self, call, arg, spec, b):
        # only `buf = ...` reads it (program.py alloc_window_buffer; AP:8573-8589)
        if not getattr(self, "alloc_rhs", False):
            raise DslError(f"{spec.irop} must appear as the RHS of a simple assignment (its result must be bound "
                           "to a named variable)", call)
        return self._rt_ptr(call, arg, spec, b)

    def _rt_host_scalar(self, call, arg, spec, b):
        # HOST-only (AP:8591-8603): outside any InCore / SPMD scope of a level=HOST function
        level = getattr(self, "explicit_level", None)
        if level != "HOST" or getattr(self, "incore_depth", 0):
            shown = f"Level.{level}" if level else "None"
            raise DslError(f"{spec.irop}() can only be called in HOST orchestration context (not inside InCore / "
                           f"SPMD scopes); current function level: {shown}", call)
        return scalar(arg)


    def _rt_remote_load(self, call, arg, spec, b):
        # DeduceRemoteLoadType (distributed/remote_load.cpp:94-208): a tile of the window's
        # dtype and no memory space; valid shape = the window read of InferWindowReadValidShape
        # with an exact (materialised) min against a requested valid shape; blayout from the
        # shape, row_major / col_major under an ND / DN TensorView
        t = self._dist_arg(call, 0, spec, "target ")
        offs, shape = call.args[2].items, call.args[3].items
        req = None
        if len(call.args) > 4:
            # NormalizeRemoteValidShape (remote_load.cpp:67-92): each extent as an INDEX
            req = []
            for i, x in enumerate(call.args[4].items):
                cv = const_value(x)
                xt = self.type_of_expr(x) if cv is None else None
                # only an integer constant becomes an INDEX constant: a float one (2.5, 1e309)
                # is a ScalarType of a float dtype, which PyPTO rejects like any float scalar
                if cv is not None and cv[0] in INT_DTYPES:
                    req.append(ir.IntConst(int(cv[1])))
                elif isinstance(xt, ir.ScalarType) and xt.dtype in INT_DTYPES:
                    req.append(x if xt.dtype == "INDEX" else ir.Call("pl.cast", (x, dotted("pl", "INDEX")), ()))
                else:
                    got = "ScalarType" if cv is not None else _type_name(xt)
                    raise DslError(f"pld.tile.remote_load valid_shape {i} must be an integer scalar, "
                                   f"but got {got}")
        for what, n in (("offsets", len(offs)), ("shape", len(shape)), ("valid_shape", len(t.shape) if req is None else len(req))):
            if n != len(t.shape):
                raise DslError(f"pld.tile.remote_load {what} rank ({n}) must match target tensor rank "
                               f"({len(t.shape)})")
        try:                            # CheckWindowReadDimBounds (kClampedWindow, no clamp)
            typerules.check_window_bounds(spec.irop, t.shape, offs, shape, req, clamped=True,
                                          remedy="Pass a smaller valid_shape to describe a ragged remote-load tail")
        except typerules.DeductionError as err:
            raise DslError(str(err)) from None
        from tilemem.frontend.dsl.types import view_parts
        from tilemem.ir import symbolic as sym
        tvalid, _, layout, _ = view_parts(t.view)
        src_valid = tuple(tvalid) if tvalid else tuple(t.shape)
        valid = []
        for i, w in enumerate(shape):
            if i < len(t.shape) and not (views.exprs_equal(src_valid[i], t.shape[i])
                                         and const_value(src_valid[i]) is not None):
                o = sym.resimplify(offs[i])     # FoldExtent simplifies the offset it subtracts
                rem = src_valid[i] if sym.prove_zero(o) else sym.s_sub(sym.s_max(src_valid[i], o), o)
                avail = sym.s_min(rem, w)
            else:
                avail = w
            valid.append(avail if req is None else sym.s_min(req[i], avail))
        blayout = views.shape_layout(shape)
        if t.view is not None and layout in ("ND", "DN"):
            blayout = "row_major" if layout == "ND" else "col_major"
        view = views.fresh_view(sym.finalize_dims(valid), blayout=blayout)
        return tile_type(tuple(shape), t.dtype, None, view)

    # -- the distributed ops (src/ir/op/distributed/*.cpp; language/distributed/op/*.py) --------
    def _dist_arg(self, call, i, spec, role: str = "", printed: bool = True) -> ir.TensorType:
        """Argument ``i``, a DistributedTensor (window-bound); PyPTO's message names the
        operand by its printed type (the DSL wrapper's check) or its IR type name (the
        deducer's)."""
        t = self._arg_type(call, i)
        if _is_dist(t):
            return t
        if printed:
            raise DslError(f"{spec.irop} expects a DistributedTensor {role}(window-bound); got {_printed_type(t)}")
        raise DslError(f"{spec.irop} expects a DistributedTensor {role}(window-bound), got {_type_name(t)}")

    def _rt_comm_ctx(self, call, arg, spec, b):
        self._dist_arg(call, 0, spec, printed=False)
        return ir.OpaqueType(dotted("pld", "CommCtxType"))

    def _rt_comm_scalar(self, call, arg, spec, b):
        # DeduceCommCtxScalarType (get_comm_ctx.cpp:76-85): rank / nranks of a CommCtx
        t = self._arg_type(call, 0)
        if not (isinstance(t, ir.OpaqueType) and t.expr == dotted("pld", "CommCtxType")):
            raise DslError(f"{spec.irop} expects a CommCtx (output of pld.system.get_comm_ctx), got {_type_name(t)}")
        return scalar("INT32")

    def _scalar_kind(self, e):
        cv = const_value(e)
        return scalar(cv[0]) if cv is not None else self.type_of_expr(e)

    def _rt_defer_wait(self, call, arg, spec, b):
        # DeduceDeferWaitType (system.cpp:136-183)
        t = self._dist_arg(call, 0, spec, "signal ", printed=False)
        if t.dtype != "INT32":
            raise DslError(f"{spec.irop} signal dtype must be INT32, got {DT_NAME.get(t.dtype, t.dtype)}")
        for i, o in enumerate(call.args[1].items):
            ot = self._scalar_kind(o)
            if not (isinstance(ot, ir.ScalarType) and ot.dtype in INT_DTYPES):
                raise DslError(f"{spec.irop} offset {i} must be an integer or index scalar, got {_dtype_or_name(ot)}")
        et = self._scalar_kind(call.args[2])
        if not (isinstance(et, ir.ScalarType) and et.dtype in INT_DTYPES):
            raise DslError(f"{spec.irop} expected must be an integer or index scalar, got {_dtype_or_name(et)}")
        cmp = const_value(call.kwarg("cmp"))[1]
        if cmp != 1:
            raise DslError(f"{spec.irop} only supports WaitCmp.Ge (got int {cmp})")
        return UNKNOWN

    def _rt_collective(self, call, arg, spec, b):
        # a collective returns the window it writes (allreduce.cpp, collective.cpp); allreduce
        # (the one with a mode) reduces FP16 / FP32 only (allreduce.cpp:78-117)
        for i, p in enumerate(spec.params[:len(call.args)]):     # _unwrap_distributed_tensors
            if p.name in ("target", "signal", "recv_counts"):
                self._dist_arg(call, i, spec, p.name + " ")
        t = self._arg_type(call, int(arg))
        names = [p.name for p in spec.params]
        if "op" in names and "mode" not in names and isinstance(t, ir.TensorType) and len(t.shape) != 2:
            # DeduceTensorReduceScatterType (collective.cpp:762-763)
            raise DslError(f"{spec.irop} target must be 2D [NR, SIZE], got {len(t.shape)} dims")
        if call.kwarg("mode") is not None and t.dtype not in ("FP16", "FP32"):
            raise DslError(f"{spec.irop} target dtype must be FP16 or FP32, got {DT_NAME.get(t.dtype, t.dtype)}")
        if "send_counts" in names and "signal" in names:
            # DeduceTensorAllToAllVType (collective.cpp:606-636): the signal is [NR, 1], NR a
            # positive constant dividing the target's rows
            op = spec.irop
            sig = self._arg_type(call, names.index("signal"))
            if isinstance(sig, ir.TensorType):
                if len(sig.shape) != 2:
                    raise DslError(f"{op} signal must be 2D [NR, 1], got {len(sig.shape)} dims")
                d1 = sig.shape[1]
                if not (type(d1) is ir.IntConst and d1.value == 1):
                    raise DslError(f"{op} signal second dimension must be 1, got "
                                   f"{d1.value if type(d1) is ir.IntConst else '<dynamic>'}")
                d0 = sig.shape[0]
                if type(d0) is not ir.IntConst:
                    raise DslError(f"{op} signal dim 0 (NR) must be a compile-time constant")
                if d0.value <= 0:
                    raise DslError(f"{op} signal dim 0 (NR) must be positive, got {d0.value}")
                t0 = t.shape[0] if isinstance(t, ir.TensorType) and t.shape else None
                if type(t0) is ir.IntConst and t0.value % d0.value != 0:
                    raise DslError(f"{op} signal dim 0 ({d0.value}) must divide target dim 0 ({t0.value})")
        return t

    def _rt_staged_transfer(self, call, arg, spec, b):
        """DeducePutTileType / DeduceGetTileType (distributed put.cpp, get.cpp): a put writes
        a window (dst distributed), a get reads one (src distributed); one or two 2-D staging
        tiles of the element type, identical when two; an optional region (comm_op_utils.h)
        the stages fit in."""
        op = spec.irop
        region = [b.get(n) for n in ("dst_offsets", "src_offsets", "shape")]
        if any(r is not None for r in region) and any(r is None for r in region):
            raise DslError(f"{op} dst_offsets, src_offsets, and shape must be provided together")
        dst, peer, src = (self._arg_type(call, i) for i in range(3))
        dist, plain = ("dst", "src") if arg == "put" else ("src", "dst")
        sides = {"dst": dst, "src": src}
        if not _is_dist(sides[dist]):
            raise DslError(f"{op} {dist} must be a DistributedTensor (window-bound), got {_type_name(sides[dist])}")
        if not isinstance(peer, ir.ScalarType) and const_value(call.args[1]) is None:
            raise DslError(f"{op} peer must be a scalar (rank index), got {_type_name(peer)}")
        if not isinstance(sides[plain], ir.TensorType):
            raise DslError(f"{op} {plain} must be a Tensor or DistributedTensor, got {_type_name(sides[plain])}")
        if dst.dtype != src.dtype:
            raise DslError(f"{op} dst and src must have the same element type, got dst {_type_name(dst)} vs src "
                           f"{_type_name(src)}")
        has_region = region[0] is not None
        self._transfer_shapes(op, dst.shape, src.shape, not has_region)
        stages = []
        for i, what in ((3, "stage"), (4, "stage2")):
            if i >= len(call.args) or (what == "stage2" and b.get("stage2") is None):
                break
            t = self._arg_type(call, i)
            if not isinstance(t, ir.TileType):
                raise DslError(f"{op} {what} must be a TileType, got {_type_name(t)}")
            if t.dtype != dst.dtype:
                raise DslError(f"{op} {what} dtype must match dst dtype, got stage={DT_NAME.get(t.dtype, t.dtype)} "
                               f"dst={DT_NAME.get(dst.dtype, dst.dtype)}")
            if len(t.shape) != 2:
                raise DslError(f"{op} {what} must be a 2D VEC staging tile, got rank {len(t.shape)}")
            stages.append(t)
        if len(stages) == 2 and not all(views.exprs_equal(x, y) for x, y in zip(stages[0].shape, stages[1].shape)):
            raise DslError(f"{op} ping/pong staging tiles must have identical shape")
        transfer = dst.shape
        if has_region:
            base = 3 + len(stages)
            transfer = self._region_args(op, call.args[base:base + 3], dst.shape, src.shape)
        for t in stages:
            self._stage_fits(op, t.shape, transfer)
        return UNKNOWN

    def _rt_transfer(self, call, arg, spec, b):
        """pld.tensor.put / pld.tensor.get: the DSL wrapper's checks (language/distributed/op/
        tensor_ops.py put / get: the chunk dims, pipeline, the operand kinds, the region given
        whole), then the deducer's (distributed put.cpp DeducePutType, get.cpp DeduceGetType,
        comm_op_utils.h): the peer, one dtype, shapes matched (the whole window, or a region
        whose offsets and extents fit), a dynamic transfer extent with its static chunk, a put's
        atomic add on the dtypes hardware combines."""
        op = spec.irop
        chunk = {k: (call.kwarg(k).value if type(call.kwarg(k)) is ir.IntConst else 0)
                 for k in ("chunk_rows", "chunk_cols")}
        for k, v in chunk.items():
            if v < 0:
                raise DslError(f"{op} {k} must be non-negative (0 = full), got {v}")
        pipeline = call.kwarg("pipeline")
        if type(pipeline) is ir.BoolConst and pipeline.value and not (chunk["chunk_rows"] > 0 and
                                                                     chunk["chunk_cols"] > 0):
            raise DslError(f"{op} pipeline=True requires both chunk_rows>0 and chunk_cols>0 "
                           f"(got chunk_rows={chunk['chunk_rows']}, chunk_cols={chunk['chunk_cols']})")
        dst, peer, src = (self._arg_type(call, i) for i in range(3))
        if arg == "put":
            if not _is_dist(dst):
                raise DslError(f"{op} expects a DistributedTensor dst (window-bound); got {_printed_type(dst)}")
            if not isinstance(src, ir.TensorType):
                raise DslError(f"{op} expects a Tensor or DistributedTensor src; got {_printed_type(src)}")
        else:
            if not isinstance(dst, ir.TensorType):
                raise DslError(f"{op} expects a Tensor or DistributedTensor dst; got {_printed_type(dst)}")
            if not _is_dist(src):
                raise DslError(f"{op} expects a DistributedTensor src (window-bound); got {_printed_type(src)}")
        region = [b.get(n) for n in ("dst_offsets", "src_offsets", "shape")]
        if any(r is not None for r in region) and any(r is None for r in region):
            raise DslError(f"{op} dst_offsets, src_offsets, and shape must be provided together")
        if not isinstance(peer, ir.ScalarType) and const_value(call.args[1]) is None:
            raise DslError(f"{op} peer must be a scalar (rank index), got {_type_name(peer)}")
        if dst.dtype != src.dtype:
            raise DslError(f"{op} dst and src must have the same element type, got dst {_type_name(dst)} vs src "
                           f"{_type_name(src)}")
        has_region = region[0] is not None
        self._transfer_shapes(op, dst.shape, src.shape, not has_region)
        if arg == "put":                # comm_op_utils.h ValidateAtomicAddDtype
            atomic = call.kwarg("atomic")
            if type(atomic) is ir.Dotted and atomic.parts[-1] == "Add" and \
                    dst.dtype not in ("FP32", "BF16", "FP16", "INT32", "INT16", "INT8"):
                raise DslError(f"{op} with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8 dtype "
                               f"(hardware atomic-add dtypes), but got {DT_NAME.get(dst.dtype, dst.dtype)}")
        transfer = self._region_args(op, call.args[3:6], dst.shape, src.shape) if has_region else dst.shape
        if transfer:                    # ValidateDynamicTransferHasChunk
            if any(type(d) is not ir.IntConst for d in transfer[:-1]) and chunk["chunk_rows"] <= 0:
                raise DslError(f"{op}: a dynamic leading transfer dim needs a static chunk_rows to bound the VEC "
                               "staging tile")
            if type(transfer[-1]) is not ir.IntConst and chunk["chunk_cols"] <= 0:
                raise DslError(f"{op}: a dynamic innermost transfer dim needs a static chunk_cols to bound the VEC "
                               "staging tile")
        return UNKNOWN

    @staticmethod
    def _transfer_shapes(op, dst_shape, src_shape, same: bool) -> None:
        """comm_op_utils.h ValidateTransferShapeContract."""
        if not dst_shape:
            raise DslError(f"{op} requires at least one dimension on dst/src")
        if len(dst_shape) != len(src_shape):
            raise DslError(f"{op} dst rank ({len(dst_shape)}) must match src rank ({len(src_shape)})")
        for i, (d, s) in enumerate(zip(dst_shape, src_shape)):
            dv, sv = (const_value(x)[1] if type(x) is ir.IntConst else None for x in (d, s))
            if dv is not None and dv <= 0:
                raise DslError(f"{op} shape dimension {i} must be positive, got {dv}")
            if sv is not None and sv <= 0:
                raise DslError(f"{op} src shape dimension {i} must be positive, got {sv}")
            if same and dv is not None and sv is not None and dv != sv:
                raise DslError(f"{op} dst and src must have the same static shape; dimension {i} differs "
                               f"(dst={dv}, src={sv})")
            if same and (dv is None or sv is None) and not views.exprs_equal(d, s):
                raise DslError(f"{op} full-slice dst and src must have the same shape; dimension {i} differs "
                               "(dynamic dims must match structurally)")

    @staticmethod
    def _region_args(op, region, dst_shape, src_shape) -> tuple:
        """comm_op_utils.h ValidateRegionArgs: rank-matched offsets and shape; a constant
        extent is positive, a constant offset non-negative and inside its side's window."""
        dst_off, src_off, shape = (r.items for r in region)
        if len(dst_off) != len(dst_shape):
            raise DslError(f"{op} dst_offsets rank must match dst rank")
        if len(src_off) != len(src_shape):
            raise DslError(f"{op} src_offsets rank must match src rank")
        if len(shape) != len(dst_shape):
            raise DslError(f"{op} shape rank must match tensor rank")

        def num(x):
            return x.value if type(x) is ir.IntConst else None
        for i, e in enumerate(shape):
            dim = num(e)
            if dim is not None and dim <= 0:
                raise DslError(f"{op} shape dimension {i} must be positive, got {dim}")
            for side, offs, window in (("dst", dst_off, dst_shape), ("src", src_off, src_shape)):
                o, w = num(offs[i]), num(window[i])
                if o is None:
                    continue
                if o < 0:
                    raise DslError(f"{op} {side}_offsets dimension {i} must be non-negative, got {o}")
                if dim is not None and w is not None and o + dim > w:
                    raise DslError(f"{op} {side} subregion dimension {i} exceeds {side} shape (offset={o}, "
                                   f"shape={dim}, {side}_dim={w})")
        return shape

    @staticmethod
    def _stage_fits(op, stage, transfer) -> None:
        """comm_op_utils.h ValidateStageFitsTransfer: a static 2-D stage no larger than the
        flattened transfer (rows = the leading dims' product, cols = the last)."""
        def num(x):
            return x.value if type(x) is ir.IntConst else None
        rows, rows_static = 1, True
        for d in transfer[:-1]:
            if num(d) is None:
                rows_static = False
            else:
                rows *= num(d)
        cols = num(transfer[-1])
        sr, sc = num(stage[0]), num(stage[1])
        if sr is None or sc is None:
            raise DslError(f"Internal error: {op} stage dims must be static ConstInt")
        if sr <= 0 or sc <= 0:
            raise DslError(f"Internal error: {op} stage dims must be positive, got [{sr}, {sc}]")
        if rows_static and sr > rows:
            raise DslError(f"Internal error: {op} stage rows {sr} must fit within flattened transfer rows {rows} "
                           "(pto-isa auto-chunks a smaller stage)")
        if cols is not None and sc > cols:
            raise DslError(f"Internal error: {op} stage cols {sc} must fit within transfer cols {cols} "
                           "(pto-isa auto-chunks a smaller stage)")

    def _rt_remote_store(self, call, arg, spec, b):
        # the wrapper's type checks, then ValidateRemoteStoreContract (remote_store.cpp:96-125)
        src = self._arg_type(call, 0)
        if arg == "tensor":
            target = self._dist_arg(call, 1, spec, "target ")
            if not (isinstance(src, ir.TensorType) and not _is_dist(src)):
                raise DslError(f"{spec.irop} expects a Tensor src (a tensor-level value); got {_printed_type(src)}. "
                               "In a tile-level kernel use pld.tile.remote_store; to push one window buffer into "
                               "another use pld.tensor.put.")
        else:
            target = self._dist_arg(call, 1, spec, "target ")
            if not isinstance(src, ir.TileType):
                raise DslError(f"{spec.irop} src_tile must be a TileType, got {_type_name(src)}. In a tensor-level "
                               "kernel (@pl.jit) call pld.tensor.remote_store instead (pld.remote_store dispatches "
                               "between the two).")
        offs = call.args[3].items
        if len(offs) != len(target.shape):
            raise DslError(f"{spec.irop} offsets rank ({len(offs)}) must match target tensor rank "
                           f"({len(target.shape)})")
        if src.dtype != target.dtype:
            raise DslError(f"{spec.irop} src dtype ({DT_NAME.get(src.dtype, src.dtype)}) must match target dtype "
                           f"({DT_NAME.get(target.dtype, target.dtype)})")
        extent = list(views.valid_shape_of(src) if isinstance(src, ir.TileType) else src.shape)
        if len(extent) < 2:
            raise DslError(f"{spec.irop} src must be at least 2-D (it is pushed as a 2-D region), got rank "
                           f"{len(extent)}")
        rank = len(target.shape)
        if rank < 2:
            raise DslError(f"{spec.irop} target rank must be >= 2 to hold a 2-D push, got {rank}")
        def num(x):                     # a ConstInt's value (a float offset is not checked)
            return x.value if type(x) is ir.IntConst else None
        for i in range(rank):           # comm_op::ValidatePushFitsTarget
            o = num(offs[i])
            if o is None:
                continue
            if o < 0:
                raise DslError(f"{spec.irop} offsets dimension {i} must be non-negative, got {o}")
            d = num(target.shape[i])
            if d is None:
                continue
            n = 1
            if i + 2 >= rank:
                n = num(extent[len(extent) - rank + i])
                if n is None:
                    continue
            if o + n > d:
                raise DslError(f"{spec.irop} push exceeds the peer's target region in dimension {i} "
                               f"(offset={o}, extent={n}, target_dim={d})")
        return UNKNOWN

    def _rt_window(self, call, arg, spec, b):
        # DeduceWindowType (distributed/memory.cpp): a DistributedTensor of the shape and dtype
        t = self._arg_type(call, 0)
        if not (isinstance(t, ir.OpaqueType) and t.expr == dotted("pl", "Ptr")):
            raise DslError(f"{spec.irop} expects a Ptr handle (output of pld.tensor.alloc_window_buffer); "
                           f"got {_printed_type(t)}")
        return ir.TensorType(tuple(call.args[1].items), self._dtype_arg(b["dtype"]), kind="pld.DistributedTensor")

    def _rt_element_scalar(self, call, arg, spec, b):
        t = self._arg_type(call, int(arg))
        if not isinstance(t, (ir.TileType, ir.TensorType)):
            raise DslError(f"{spec.qualified}: expected a tensor or tile operand")
        return scalar(t.dtype)

    def _rt_tpop(self, call, arg, spec, b):
        shape, dt = b.get("shape"), b.get("dtype")
        if shape is None or dt is None:
            return UNKNOWN
        dims = self._list_arg(shape, "shape").items
        return tile_type(dims, self._dtype_arg(dt), arg, None)

    def _rt_tensor_create(self, call, arg, spec, b):
        # the shape list: the first argument (create, full) or the second (ci: start, shape)
        dims = next(a for a in call.args if type(a) is ir.ListExpr).items
        if dims and len(call.args) == 2 and type(call.args[0]) is not ir.ListExpr:
            # (start, shape): tensor_ops/memory.cpp DeduceTensorCiType's ISA checks on constant dims
            bad = typerules.ci_shape_error(dims)
            if bad:
                raise DslError(f"{call.op} {bad}")
        dt = self._dtype_arg(b["dtype"])
        layout = b.get("layout")
        lay = layout.name if isinstance(layout, Enum) else "ND"
        if lay != "ND":
            from tilemem.frontend.dsl.types import tensor_view_expr
            return ir.TensorType(tuple(dims), dt, tensor_view_expr((), (), lay, "null", dims))
        return ir.TensorType(tuple(dims), dt)

    def _broadcast_operands(self, call, spec, axis_name: str):
        """The checks DeduceTensorRowExpandType / DeduceTensorColExpandType share: two
        tensors of rank >= 2."""
        op = spec.irop
        t, v = self._arg_type(call, 0), self._arg_type(call, 1)
        for i, x in enumerate((t, v)):
            if not isinstance(x, ir.TensorType):
                raise DslError(f"The operator {op} requires {('first', 'second')[i]} argument to be a TensorType, "
                               f"but got {_type_name(x)}")
            if len(x.shape) < 2:
                raise DslError(f"The operator {op} requires {('first', 'second')[i]} argument to have at least 2 "
                               f"dimensions, but got {len(x.shape)} dimensions")
        return t, v

    def _rt_tensor_row_expand(self, call, arg, spec, b):
        """DeduceTensorRowExpandType (tensor_ops/broadcast.cpp): a [.., M, 1] row vector of
        the target's rows; the target's shape, the promoted dtype."""
        op = spec.irop
        t, v = self._broadcast_operands(call, spec, "row")
        if not (type(v.shape[-1]) is ir.IntConst and v.shape[-1].value == 1):
            raise DslError(f"The operator {op} requires second argument's last dimension to be 1, but got "
                           f"{typerules.shape_text(v.shape)}")
        a, c = t.shape[-2], v.shape[-2]
        if type(a) is ir.IntConst and type(c) is ir.IntConst and a.value != c.value:
            raise DslError(f"The operator {op} requires matching row dimensions, but got tensor rows={a.value} and "
                           f"row_vec rows={c.value}")
        return ir.TensorType(tuple(t.shape), views.promote_dtype(t.dtype, v.dtype))

    def _rt_tensor_col_expand(self, call, arg, spec, b):
        """DeduceTensorColExpandType (tensor_ops/broadcast.cpp): a [.., 1, N] column vector
        of the target's columns; the target's shape, the promoted dtype."""
        op = spec.irop
        t, v = self._broadcast_operands(call, spec, "col")
        if not (type(v.shape[-2]) is ir.IntConst and v.shape[-2].value == 1):
            raise DslError(f"The operator {op} requires second argument's second-to-last dimension (row) to be 1, "
                           f"but got {typerules._shown(v.shape[-2])}")
        a, c = t.shape[-1], v.shape[-1]
        if type(a) is ir.IntConst and type(c) is ir.IntConst and a.value != c.value:
            raise DslError(f"The operator {op} requires matching column dimensions, but got tensor cols={a.value} "
                           f"and col_vec cols={c.value}")
        return ir.TensorType(tuple(t.shape), views.promote_dtype(t.dtype, v.dtype))

    def _rt_tensor_concat(self, call, arg, spec, b):
        """DeduceTensorConcatType (tensor_ops/transform.cpp): two 2-D tensors of one dtype and
        row count side by side."""
        t0, t1 = self._arg_type(call, 0), self._arg_type(call, 1)
        for i, t in enumerate((t0, t1)):
            if not isinstance(t, ir.TensorType):
                raise DslError(f"tensor.concat: src{i} must be TensorType, got {_type_name(t)}")
        if t0.dtype != t1.dtype:
            raise DslError(f"tensor.concat: src0 and src1 must have same dtype, got {DT_NAME.get(t0.dtype, t0.dtype)} "
                           f"and {DT_NAME.get(t1.dtype, t1.dtype)}")
        if len(t0.shape) != 2 or len(t1.shape) != 2:
            raise DslError("tensor.concat requires 2D tensors")
        r0, r1 = t0.shape[0], t1.shape[0]
        if type(r0) is ir.IntConst and type(r1) is ir.IntConst and r0.value != r1.value:
            raise DslError(f"tensor.concat: row count must match, got {r0.value} vs {r1.value}")
        c0, c1 = t0.shape[1], t1.shape[1]
        cols = ir.IntConst(c0.value + c1.value) if type(c0) is ir.IntConst and type(c1) is ir.IntConst \
            else ir.BinOp("+", c0, c1)
        return ir.TensorType((r0, cols), t0.dtype)

    def _rt_tensor_expands(self, call, arg, spec, b):
        """DeduceTensorExpandScalarType (tensor_ops/broadcast.cpp): the target's shape and dtype."""
        t = self._tensor_of(call, 0, spec)
        s = self._arg_type(call, 1)
        if s is not None and not isinstance(s, ir.ScalarType):
            raise DslError(f"The operator {spec.irop} requires second argument to be a ScalarType, but got "
                           f"{_type_name(s)}")
        return ir.TensorType(tuple(t.shape), t.dtype)

    def _rt_tensor_paged_gather(self, call, arg, spec, b):
        """DeduceTensorPagedGatherType (tensor_ops/paged_gather.cpp): a [max_indices, size]
        tensor of the source's dtype ([size, max_indices] with is_trans); the operand dtypes
        are dtypes.txt rows, the attr values ranges.txt rows."""
        op = spec.irop
        src, idx, bt = (self._arg_type(call, i) for i in range(3))
        for t, what in ((src, "src"), (idx, "indices"), (bt, "block_table")):
            if not isinstance(t, ir.TensorType):
                raise DslError(f"The operator {op} requires {what} to be a TensorType, but got {_type_name(t)}")
        if len(src.shape) != 2:
            raise DslError(f"The operator {op} requires 2D src, but got rank {len(src.shape)}")
        for t, what in ((idx, "indices"), (bt, "block_table")):
            if len(t.shape) not in (1, 2):
                raise DslError(f"The operator {op} requires 1D or 2D {what}, but got rank {len(t.shape)}")
            if len(t.shape) == 2 and not (type(t.shape[0]) is ir.IntConst and t.shape[0].value == 1):
                first = t.shape[0].value if type(t.shape[0]) is ir.IntConst else "dynamic"
                raise DslError(f"The operator {op} requires 2D {what} to have shape [1, n], but got first dim {first}")
        kw = {k: (v.value if type(v) in (ir.IntConst, ir.BoolConst) else v) for k, v in call.kwargs}
        trans = kw.get("is_trans") is True
        space = call.kwarg("space")
        if trans and not (type(space) is ir.Dotted and space.parts[-1] == "Mat"):
            raise DslError(f"The operator {op} requires space=MemorySpace::Mat (L1) when is_trans=true")
        cols = src.shape[1]
        if type(cols) is ir.IntConst and isinstance(kw.get("size"), int) and isinstance(kw.get("col_off"), int) \
                and kw["col_off"] + kw["size"] > cols.value:
            raise DslError(f"The operator {op} requires col_off + size ({kw['col_off'] + kw['size']}) <= src columns "
                           f"({cols.value})")
        rows, size = ir.IntConst(kw["max_indices"]), ir.IntConst(kw["size"])
        return ir.TensorType((size, rows) if trans else (rows, size), src.dtype)

    def _rt_l1_accumulator(self, call, arg, spec, b):
        """DeduceTensorCreateL1Type (tensor_ops/paged_gather.cpp): a tensor of positive
        constant dims (lowered to a Mat tile later)."""
        dims = call.args[0].items
        for i, d in enumerate(dims):
            cv = const_value(d) if type(d) is ir.IntConst else None
            if cv is None or cv[1] <= 0:
                raise DslError(f"The operator {spec.irop} shape element {i} must be a positive compile-time ConstInt")
        if not dims:
            raise DslError(f"The operator {spec.irop} requires a non-empty shape")
        return ir.TensorType(tuple(dims), self._dtype_arg(b["dtype"]))

    def _rt_tensor_gather_row(self, call, arg, spec, b):
        """DeduceTensorGatherRowType (tensor_ops/paged_gather.cpp): DPS, the accumulator's type."""
        op = spec.irop
        acc, src = self._arg_type(call, 0), self._arg_type(call, 1)
        if not isinstance(acc, ir.TensorType):
            raise DslError(f"The operator {op} requires acc to be a TensorType (from tensor.create_l1), but got "
                           f"{_type_name(acc)}")
        if not isinstance(src, ir.TensorType):
            raise DslError(f"The operator {op} requires src to be a TensorType (GM), but got {_type_name(src)}")
        try:
            typerules.check_gather_row_operands(op, list(call.args), dict(call.kwargs))
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        return acc

    def _rt_tensor_expand_clone(self, call, arg, spec, b):
        """DeduceTensorExpandCloneType (tensor_ops/broadcast.cpp): the target's shape from a
        rank-3 input, broadcast from a 1 in at most one dimension; the promoted dtype."""
        op = spec.irop
        src, target = self._arg_type(call, 0), self._arg_type(call, 1)
        if not isinstance(src, ir.TensorType):
            raise DslError(f"{op}requires first argument to be a TensorType, but got {_type_name(src)}")
        if not isinstance(target, ir.TensorType):
            raise DslError(f"{op}requires second argument to be a TensorType, but got {_type_name(target)}")
        old, new = src.shape, target.shape
        shown = typerules.shape_text
        if len(old) != 3:
            raise DslError(f"{op} requires input rank to be 3, but got {len(old)}")
        if len(old) != len(new):
            raise DslError(f"{op} requires input rank ({len(old)}) to match target rank ({len(new)})")
        broadcast = 0
        for i, (a, c) in enumerate(zip(old, new)):
            if views.exprs_equal(a, c):
                continue
            cv = const_value(a)
            if cv is None or cv[1] != 1:
                raise DslError(f"{op} only allows broadcasting from dimension 1, but input shape {shown(old)} "
                               f"cannot be expanded to {shown(new)} at dim {i} (got {typerules._shown(a)} -> "
                               f"{typerules._shown(c)})")
            broadcast += 1
        if broadcast > 1:
            raise DslError(f"{op} allows broadcasting in at most one dimension, but got {broadcast} (input shape "
                           f"{shown(old)}, target shape {shown(new)})")
        return ir.TensorType(tuple(new), views.promote_dtype(src.dtype, target.dtype))

    def _rt_tensor_gather_compare(self, call, arg, spec, b):
        """DeduceTensorGatherCompareType (tensor_ops/gather.cpp): (dst [rows, out_cols] INT32,
        cdst [1, rows] count_dtype); the operand dtypes are dtypes.txt rows."""
        t = self._tensor_of(call, 0, spec)
        if len(t.shape) != 2:
            raise DslError(f"The operator {spec.irop} requires 2D input, but got rank {len(t.shape)}")
        kv = self._arg_type(call, 1)
        if kv is not None and not isinstance(kv, ir.ScalarType):
            raise DslError(f"The operator {spec.irop} requires kvalue to be a ScalarType, but got {_type_name(kv)}")
        try:
            rows, cols, count = typerules.gather_compare_extents(spec.irop, t.shape, dict(call.kwargs))
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        return ir.TupleType((ir.TensorType((rows, cols), "INT32"), ir.TensorType((ir.IntConst(1), rows), count)))

    def _rt_tensor_random(self, call, arg, spec, b):
        """DeduceTensorRandomType (tensor_ops/memory.cpp): a tensor.create of a 2-D shape (the
        seeds, dtype and rounds are dtypes.txt / ranges.txt rows)."""
        t = self._rt_tensor_create(call, arg, spec, b)
        if len(t.shape) != 2:
            raise DslError(f"{spec.irop} requires a 2D shape (rows, cols), but got rank {len(t.shape)}")
        return t

    def _rt_tensor_reinterpret(self, call, arg, spec, b):
        """DeduceTensorReinterpretViewType (tensor_ops/transform.cpp): the same bytes as
        another dtype (typerules.reinterpret_extents); the layout and a zero pad carry over."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        op = spec.irop
        t = self._arg_type(call, 0)
        if _is_dist(t):
            raise DslError(f"{op} does not support DistributedTensorType in the initial implementation")
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{op} requires data to be a TensorType, but got {_type_name(t)}")
        valid, stride, layout, pad = view_parts(t.view)
        if layout.startswith("MX"):
            raise DslError(f"{op} does not support MX-layout tensors")
        if not t.shape:
            raise DslError(f"{op} requires a tensor rank >= 1")
        if layout == "NZ":
            raise DslError(f"{op} does not support boxed/fractal NZ tensor layout")
        if layout == "DN" and len(t.shape) < 2:
            raise DslError(f"{op} requires rank >= 2 for DN layout")
        if stride:
            raise DslError(f"{spec.qualified}: a strided source is not read yet")
        shape = call.kwarg("shape")
        requested = tuple(shape.items) if type(shape) is ir.ListExpr else None
        if layout == "DN" and requested is not None and len(requested) < 2:
            raise DslError(f"{op} requires target rank >= 2 for DN layout")
        axis = len(t.shape) - 2 if layout == "DN" else len(t.shape) - 1
        try:
            new_shape, new_valid = typerules.reinterpret_extents(op, t.shape, valid, t.dtype,
                                                                 self._dtype_arg(b["dtype"]), axis, requested)
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        view = tensor_view_expr(new_valid, (), layout, "zero" if pad == "zero" else "null", new_shape)
        return ir.TensorType(tuple(new_shape), self._dtype_arg(b["dtype"]), view)

    def _rt_tensor_matmul_acc(self, call, arg, spec, b):
        """DeduceTensorMatMulAccType (tensor_ops/matmul.cpp): the accumulator's type, once
        lhs x rhs (transposed as asked) provably fits it: one operand dtype, an FP32 / INT32
        accumulator, constant K, M and N that agree."""
        names = ("acc", "lhs", "rhs")
        ts = [self._arg_type(call, i) for i in range(3)]
        for i, (n, t) in enumerate(zip(names, ts)):
            if not isinstance(t, ir.TensorType):
                raise DslError(f"tensor.matmul_acc requires {('first', 'second', 'third')[i]} argument ({n}) to be a "
                               f"TensorType, but got {_type_name(t)}")
            if len(t.shape) < 2:
                raise DslError(f"tensor.matmul_acc requires {n} to be at least 2D, but got {len(t.shape)}D")
        acc, lhs, rhs = ts
        if lhs.dtype != rhs.dtype:
            raise DslError(f"tensor.matmul_acc requires identical lhs and rhs dtypes, but got "
                           f"{DT_NAME.get(lhs.dtype, lhs.dtype)} and {DT_NAME.get(rhs.dtype, rhs.dtype)}")
        want = "FP32" if lhs.dtype in FLOAT_DTYPES else "INT32"
        if acc.dtype != want:
            raise DslError(f"tensor.matmul_acc requires accumulator dtype {DT_NAME[want]}, but got "
                           f"{DT_NAME.get(acc.dtype, acc.dtype)}")
        a_t = const_value(call.kwarg("a_trans") or ir.BoolConst(False))
        b_t = const_value(call.kwarg("b_trans") or ir.BoolConst(False))
        a_t, b_t = bool(a_t and a_t[1]), bool(b_t and b_t[1])

        def num(x):
            return x.value if type(x) is ir.IntConst else None
        m, k_l = (lhs.shape[-1], lhs.shape[-2]) if a_t else (lhs.shape[-2], lhs.shape[-1])
        k_r, n = (rhs.shape[-1], rhs.shape[-2]) if b_t else (rhs.shape[-2], rhs.shape[-1])
        for what, x, y, text in (("K", k_l, k_r, "lhs K={} != rhs K={}"), ("M", acc.shape[-2], m, "acc M={} != matmul M={}"),
                                 ("N", acc.shape[-1], n, "acc N={} != matmul N={}")):
            if num(x) is not None and num(y) is not None and num(x) != num(y):
                raise DslError("tensor.matmul_acc: " + text.format(num(x), num(y)))
        return acc

    def _tensor_of(self, call, i, spec) -> ir.TensorType:
        t = self._arg_type(call, i)
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{spec.qualified}: expected a Tensor operand")
        return t

    def _rt_tensor_binary(self, call, arg, spec, b):
        """tensor_ops/elementwise.cpp: the promoted dtype; `lhs` keeps the tensor's dtype
        (preserve_lhs_dtype: the shifts, the scalar bitwise forms, subs).  The result is a
        fresh tensor valid where its operands are (preserve_valid_shape, on unless the rule
        says `fresh`): against a scalar the tensor's valid shape, against a tensor of the same
        shape their valid shape when provably equal (GetMatchingElementwiseValidShape); a
        DistributedTensor operand carries none."""
        from tilemem.frontend.dsl.types import view_parts
        from tilemem.ir.symbolic import prove_eq
        words = (arg or "").split()
        a = self._tensor_of(call, 0, spec)
        other = self._arg_type(call, 1)
        dt = a.dtype
        shape = a.shape
        valid = None
        keep_valid = "fresh" not in words and a.kind == "pl.Tensor"
        if isinstance(other, ir.TensorType):
            shown = lambda sh: "[" + ", ".join(self.source_of(d) for d in sh) + "]"     # FormatShape
            if "bitwise" in words and not views.expr_lists_equal(a.shape, other.shape):
                raise DslError(f"The operator {call.op} requires both operands to have the same shape, but got "
                               f"{shown(a.shape)} and {shown(other.shape)}. Broadcasting is not supported for "
                               "bitwise/shift operators because the hardware provides no row/col-expand form; "
                               "reshape or expand the operand explicitly first.")
            if other.dtype != a.dtype and "lhs" not in words:
                dt = views.promote_dtype(a.dtype, other.dtype)
            try:
                shape = typerules.bcast(a.shape, other.shape)
            except typerules.DeductionError:          # BroadcastShapes (type_inference.cpp:43-106)
                raise DslError(f"The operator {call.op} requires compatible shapes, but got "
                               f"{shown(a.shape)} and {shown(other.shape)}") from None
            if keep_valid and other.kind == "pl.Tensor" and views.expr_lists_equal(a.shape, other.shape):
                va, vb = view_parts(a.view)[0] or a.shape, view_parts(other.view)[0] or other.shape
                if len(va) == len(vb) and all(views.exprs_equal(x, y) or prove_eq(x, y) for x, y in zip(va, vb)):
                    valid = va
        else:
            cv = const_value(call.args[1])
            sdt = cv[0] if cv is not None else (other.dtype if isinstance(other, ir.ScalarType) else a.dtype)
            if "lhs" not in words:
                dt = views.promote_dtype(a.dtype, sdt)      # DeduceTensorOpElementwiseScalarType
            if keep_valid:
                valid = view_parts(a.view)[0] or a.shape
        return _fresh_tensor_type(shape, dt, valid or shape)

    def _rt_tensor_cast(self, call, arg, spec, b):
        """DeduceTensorCastType (tensor_ops/unary.cpp:196-244): a same-dtype cast is refused;
        the result is DeduceTensorUnaryResultType's fresh tensor."""
        a = self._tensor_of(call, 0, spec)
        dtype = self._dtype_arg(b["target_type"])
        if dtype == a.dtype:
            raise DslError(f"{spec.irop}: target_type {DT_NAME.get(dtype, dtype.lower())} equals input dtype; "
                           "same-dtype cast is not a valid operation. Remove the cast or use a different "
                           "target_type.")
        return self._fresh_tensor(a, dtype)

    def _rt_tensor_unary(self, call, arg, spec, b):
        """DeduceTensorUnaryResultType (tensor_ops/unary.cpp:43-46): a fresh tensor of the
        operand's shape and valid shape, no stride or layout; `float`: an integer operand's
        result is FP32."""
        a = self._tensor_of(call, 0, spec)
        dtype = "FP32" if "float" in (arg or "").split() and a.dtype not in FLOAT_DTYPES else a.dtype
        return self._fresh_tensor(a, dtype)

    @staticmethod
    def _fresh_tensor(a: ir.TensorType, dtype: str) -> ir.TensorType:
        """A fresh tensor of ``a``'s shape and effective valid shape, of ``dtype``."""
        from tilemem.frontend.dsl.types import view_parts
        valid = (view_parts(a.view)[0] if a.kind == "pl.Tensor" else ()) or a.shape
        return _fresh_tensor_type(a.shape, dtype, valid)

    def _rt_tensor_reshape(self, call, arg, spec, b):
        a = self._tensor_of(call, 0, spec)
        new = tuple(call.args[1].items)
        old_n, new_n = typerules.static_size(a.shape), typerules.static_size(new)
        if old_n and new_n and old_n > 0 and new_n > 0 and old_n != new_n:     # tensor_ops/transform.cpp:187-193
            raise DslError(f"tensor.reshape: cannot reshape tensor of size {old_n} into shape with size {new_n}")
        return ir.TensorType(new, a.dtype)

    def _rt_tensor_slice(self, call, arg, spec, b):
        """tensor.slice (tensor_ops/memory.cpp:150-280): a window of the source, valid where
        the source is (typerules.window_read) when window, offsets and source share a rank;
        the source's pad carries through."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        from tilemem.ir.symbolic import finalize_dims
        a = self._tensor_of(call, 0, spec)
        if view_parts(a.view)[2] in ("MX_A_ZZ", "MX_B_NN"):     # IsMxTensorLayout (ir/type.h)
            raise DslError("tensor.slice does not support MX-layout tensors")
        dims = list(call.args[1].items)
        offs = list(call.args[2].items)
        valid = list(call.args[3].items) if len(call.args) > 3 else []
        drop = [x.value for x in call.args[4].items] if len(call.args) > 4 else []
        src_valid, _, _, pad = view_parts(a.view)
        if len(dims) == len(a.shape) == len(offs):
            clamp = const_value(dict(call.kwargs).get("clamp", ir.BoolConst(False)))
            try:
                typerules.check_window_bounds(call.op, a.shape, offs, dims, valid or None, clamped=True,
                                              clamp=bool(clamp and clamp[1]),      # type_inference.cpp:715-717
                                              remedy="Pass clamp=True -- pl.slice(x, shape, offset, clamp=True) "
                                                     "-- to narrow the valid region to the source edge instead")
            except typerules.DeductionError as e:
                raise DslError(str(e)) from None
        if len(dims) == len(a.shape) == len(offs) and src_valid and \
                not views.expr_lists_equal(src_valid, a.shape):
            if len(src_valid) != len(dims):     # CheckWindowReadRanks (type_inference.cpp)
                raise DslError(f"tensor.slice source valid_shape rank {len(src_valid)} does not match its "
                               f"shape rank {len(dims)}")
            valid = list(finalize_dims(typerules.window_read(a.shape, src_valid, offs, dims,
                                                             valid or None)))
        if drop:
            keep = [i for i in range(len(dims)) if i not in drop]
            dims = [dims[i] for i in keep]
            valid = [valid[i] for i in keep] if valid else []
        view = None
        if (valid and not views.expr_lists_equal(valid, dims)) or pad != "null":
            view = tensor_view_expr(valid, (), "ND", pad, dims)
        return ir.TensorType(tuple(dims), a.dtype, view, kind=a.kind)     # a DistributedTensor stays one

    def _rt_tensor_view(self, call, arg, spec, b):
        """tensor.view (DeduceTensorViewType, tensor_ops/transform.cpp:457-640): the result
        always carries a view -- the source's strides for a layout-only view, else the
        canonical strides of the new shape and layout."""
        from tilemem.frontend.dsl.types import logical_strides, tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        valid, stride, src_layout, pad = view_parts(a.view)
        lay = b.get("layout")
        new_layout = lay.name if isinstance(lay, Enum) else src_layout
        if "NZ" in (new_layout, src_layout):
            raise DslError("tensor.view: NZ layout is not allowed on TensorType (NZ is tile-only)")
        if src_layout.startswith("MX") or new_layout.startswith("MX"):
            raise DslError("tensor.view does not support MX layouts")
        has_shape = len(call.args) >= 2
        explicit_valid = len(call.args) == 3
        if not has_shape and lay is None:
            raise DslError("tensor.view requires at least one of shape or layout")
        if has_shape:
            dims = list(call.args[1].items)
            for i, d in enumerate(dims):
                if type(d) is ir.IntConst and d.value <= 0:
                    raise DslError(f"tensor.view shape dimension {i} must be positive, got {d.value}")
            old, new = typerules.static_size(a.shape), typerules.static_size(dims)
            if old is not None and new is not None and old != new:
                raise DslError(f"tensor.view: cannot reinterpret tensor of size {old} as shape with "
                               f"size {new}")
            if stride and list(stride) != logical_strides(a.shape, src_layout) and not all(
                    type(x) is ir.IntConst and type(y) is ir.IntConst and x.value == y.value
                    for x, y in zip(stride, logical_strides(a.shape, src_layout))):
                raise DslError("tensor.view: shape reinterpret requires a packed source when the source "
                               "has explicit stride")
        else:
            dims = list(a.shape)
            if src_layout != new_layout:
                if len(dims) < 2:
                    raise DslError(f"tensor.view: cross-layout reinterpret requires rank >= 2, got {len(dims)}")
                dims[-2], dims[-1] = dims[-1], dims[-2]
        if new_layout == "DN" and len(dims) < 2:
            raise DslError(f"tensor.view: DN layout requires rank >= 2, got {len(dims)}")
        if not has_shape and stride:
            new_stride = list(stride)
            if src_layout != new_layout:
                new_stride[-2], new_stride[-1] = new_stride[-1], new_stride[-2]
        else:
            new_stride = logical_strides(dims, new_layout)
        new_valid, new_pad = (), "null"
        if a.view is not None:
            if not has_shape and valid:
                new_valid = list(valid)
                if src_layout != new_layout and len(new_valid) >= 2:
                    new_valid[-2], new_valid[-1] = new_valid[-1], new_valid[-2]
            if not has_shape or explicit_valid:
                new_pad = pad
        if explicit_valid:
            new_valid = tuple(call.args[2].items)
        return ir.TensorType(tuple(dims), a.dtype,
                             tensor_view_expr(tuple(new_valid), tuple(new_stride), new_layout, new_pad, dims),
                             kind=a.kind)

    def _rt_tensor_matmul(self, call, arg, spec, b):
        a = self._tensor_of(call, 0, spec)
        c = self._tensor_of(call, 1, spec)
        odt = b.get("out_dtype")
        # no out_dtype: the operands' promoted dtype (matmul.cpp:93-99)
        dt = self._dtype_arg(odt) if odt is not None else views.promote_dtype(a.dtype, c.dtype)
        ta = bool(getattr(b.get("a_trans"), "value", False))
        tb = bool(getattr(b.get("b_trans"), "value", False))
        ls, rs = list(a.shape), list(c.shape)
        if ta and len(ls) < 2:
            raise DslError("tensor.matmul: a_trans does not apply to a 1D lhs (a vector has no axes to swap); "
                           "drop a_trans or pass a 2D lhs")
        if tb and len(rs) < 2:
            raise DslError("tensor.matmul: b_trans does not apply to a 1D rhs (a vector has no axes to swap); "
                           "drop b_trans or pass a 2D rhs")

        def check_k(kl, kr, context):
            if type(kl) is ir.IntConst and type(kr) is ir.IntConst and kl.value != kr.value:
                raise DslError(f"{context}, but got lhs K={kl.value} and rhs K={kr.value}")
        # DeduceTensorMatMulType (tensor_ops/matmul.cpp:71-190)
        if len(ls) == 1 and len(rs) == 1:
            check_k(ls[0], rs[0], f"{call.op} dot product requires matching dimensions")
            out = []
        elif len(ls) == 2 and len(rs) == 1:
            check_k(ls[0] if ta else ls[1], rs[0], f"{call.op} requires matching inner dimensions")
            out = [ls[1] if ta else ls[0]]
        elif len(ls) == 1 and len(rs) == 2:
            check_k(ls[0], rs[1] if tb else rs[0], f"{call.op} requires matching inner dimensions")
            out = [rs[0] if tb else rs[1]]
        else:
            if len(ls) < 2 or len(rs) < 2:
                raise DslError("tensor.matmul requires both tensors to have at least 2 dimensions for batched "
                               f"matmul, but got lhs shape size {len(ls)} and rhs shape size {len(rs)}")
            ctx = f"{call.op} requires matching inner dimensions" + \
                ("" if len(ls) == len(rs) == 2 else " for batched matmul")
            check_k(ls[-2] if ta else ls[-1], rs[-1] if tb else rs[-2], ctx)
            try:
                out = list(typerules.bcast(ls[:-2], rs[:-2]))
            except typerules.DeductionError:
                raise DslError("Cannot broadcast batch dimensions for tensor.matmul") from None
            out += [ls[-1] if ta else ls[-2], rs[-2] if tb else rs[-1]]
        return ir.TensorType(tuple(out), dt)

    def _rt_tensor_scatter(self, call, arg, spec, b):
        """DeduceTensorScatterType (tensor_ops/scatter.cpp:104-163): rank-2 input, src of its
        rank, a 2-D index of src's shape, src no larger than the input (constant extents);
        the input's type, no view."""
        op = spec.irop
        inp, idx, src = (self._tensor_of(call, i, spec) for i in range(3))
        rank = len(inp.shape)
        if rank != 2:
            raise DslError(f"The operator {op} currently supports rank-2 input only, got rank {rank}")
        if len(src.shape) != rank:
            raise DslError(f"The operator {op} requires src rank ({len(src.shape)}) to match input rank ({rank})")
        if len(idx.shape) != 2:
            raise DslError(f"The operator {op} requires 2D index, but got rank {len(idx.shape)}")

        def num(x):
            return x.value if type(x) is ir.IntConst else None
        for axis, what in ((0, "rows"), (1, "cols")):
            sv, iv, nv = num(src.shape[axis]), num(idx.shape[axis]), num(inp.shape[axis])
            if sv is not None and iv is not None and sv != iv:
                raise DslError(f"The operator {op} requires index.shape[{axis}] == src.shape[{axis}], got src "
                               f"{what} {sv} vs index {what} {iv}")
        for axis, what in ((0, "rows"), (1, "cols")):
            sv, nv = num(src.shape[axis]), num(inp.shape[axis])
            if sv is not None and nv is not None and sv > nv:
                raise DslError(f"The operator {op} requires src.shape[{axis}] <= input.shape[{axis}], got src "
                               f"{what} {sv} vs input {what} {nv}")
        return ir.TensorType(tuple(inp.shape), inp.dtype)

    def _rt_tensor_scatter_mask(self, call, arg, spec, b):
        """DeduceTensorScatterMaskType (tensor_ops/scatter.cpp:190-236): 2-D input and dst, the
        dst's columns the input's times the pattern's stride (1 for P1111, 2 for patterns 1-2,
        else 4); the dst's type, no view."""
        op = spec.irop
        inp, dst = self._tensor_of(call, 0, spec), self._tensor_of(call, 1, spec)
        if len(inp.shape) != 2 or len(dst.shape) != 2:
            raise DslError(f"The operator {op} requires 2D input/dst, but got input rank {len(inp.shape)} and dst "
                           f"rank {len(dst.shape)}")
        mp = call.kwarg("mask_pattern")
        pattern = mp.value if type(mp) is ir.IntConst else None
        ic, dc = inp.shape[1], dst.shape[1]
        if pattern is not None and 1 <= pattern <= 7 and type(ic) is ir.IntConst and type(dc) is ir.IntConst:
            stride = 1 if pattern == 7 else 2 if pattern <= 2 else 4
            if dc.value != ic.value * stride:
                raise DslError(f"The operator {op} with mask_pattern={pattern} requires dst.shape[1] ({dc.value}) "
                               f"== input.shape[1] ({ic.value}) * {stride}")
        return ir.TensorType(tuple(dst.shape), dst.dtype)

    def _rt_tensor_plain(self, call, arg, spec, b):
        # a deducer that returns TensorType(shape, dtype) of operand `arg` (no view)
        t = self._tensor_of(call, int(arg), spec)
        return ir.TensorType(tuple(t.shape), t.dtype)

    def _rt_tensor_gather_mask(self, call, arg, spec, b):
        # DeduceTensorGatherMaskType (tensor_ops/gather.cpp:130-205): the columns a mask pattern
        # keeps (1-2: every 2nd, 3-6: every 4th, 7: all); output_dtype of the same width
        t = self._tensor_of(call, 0, spec)
        name = spec.irop
        if len(t.shape) != 2:
            raise DslError(f"The operator {name} requires 2D input, but got rank {len(t.shape)}")
        pattern = const_value(call.kwarg("mask_pattern"))[1]
        if not 1 <= pattern <= 7:
            raise DslError(f"The operator {name} requires mask_pattern in range [1, 7], but got {pattern}")
        cols = t.shape[1]
        if pattern != 7:
            div = 2 if pattern <= 2 else 4
            cv = const_value(cols)
            if cv is not None and cv[1] % div:
                raise DslError(f"The operator {name} with mask_pattern={pattern} requires src columns divisible "
                               f"by {div}, got {cv[1]}")
            cols = ir.IntConst(cv[1] // div) if cv is not None else ir.BinOp("//", cols, ir.IntConst(div))
        dt = t.dtype
        if b.get("output_dtype") is not None:
            dt = self._dtype_arg(b["output_dtype"])
            if DTYPE_BITS[dt] != DTYPE_BITS[t.dtype]:
                raise DslError(f"The operator {name} output_dtype must have the same bit width as input dtype "
                               f"({DT_NAME[t.dtype]} = {DTYPE_BITS[t.dtype]} bits), but got {DT_NAME[dt]} = "
                               f"{DTYPE_BITS[dt]} bits")
        return ir.TensorType((t.shape[0], cols), dt)

    def _rt_tensor_sort32(self, call, arg, spec, b):
        # DeduceTensorSort32Type (tensor_ops/sort.cpp:45-91): the last dim doubled
        t = self._tensor_of(call, 0, spec)
        last = t.shape[-1]
        cv = const_value(last)
        dim = ir.IntConst(cv[1] * 2) if cv is not None else ir.BinOp("*", last, ir.IntConst(2))
        return ir.TensorType(tuple(t.shape[:-1]) + (dim,), t.dtype)

    def _rt_tensor_mrgsort(self, call, arg, spec, b):
        # DeduceTensorMrgSortType (sort.cpp:112-174): the sources' last dims summed; each
        # source of the first's dtype and rank, and its shape but on the concatenated last axis
        from tilemem.ir.symbolic import prove_eq
        srcs = [self._tensor_of(call, i, spec) for i in range(len(call.args))]
        op = spec.irop
        for i, t in enumerate(srcs[1:], 1):
            if t.dtype != srcs[0].dtype:
                raise DslError(f"The operator {op} requires all src tensors to have matching dtype, but argument {i} "
                               f"has {DT_NAME.get(t.dtype, t.dtype)} (expected "
                               f"{DT_NAME.get(srcs[0].dtype, srcs[0].dtype)})")
            if len(t.shape) != len(srcs[0].shape):
                raise DslError(f"The operator {op} requires all src tensors to have matching rank")
            for axis in range(len(t.shape) - 1):
                a, b0 = t.shape[axis], srcs[0].shape[axis]
                if not (views.exprs_equal(a, b0) or prove_eq(a, b0)):
                    raise DslError(f"The operator {op} requires all src tensors to match shape on non-concat axis "
                                   f"{axis}, but argument {i} differs")
        lasts = [s.shape[-1] for s in srcs]
        if all(const_value(x) is not None for x in lasts):
            dim = ir.IntConst(sum(const_value(x)[1] for x in lasts))
        else:
            dim = lasts[0]
            for x in lasts[1:]:
                dim = ir.BinOp("+", dim, x)
        return ir.TensorType(tuple(srcs[0].shape[:-1]) + (dim,), srcs[0].dtype)

    def _rt_tensor_validshape(self, call, arg, spec, b):
        a = self._tensor_of(call, 0, spec)
        from tilemem.frontend.dsl.types import tensor_view_expr
        valid = (call.args[1], call.args[2])
        return ir.TensorType(tuple(a.shape), a.dtype, tensor_view_expr(valid, (), "ND", "null", a.shape))

    def _rt_tensor_transpose(self, call, arg, spec, b):
        """tensor.transpose (DeduceTensorTransposeType, tensor_ops/transform.cpp:312-455): the
        shape swapped, the layout tag flipped for the trailing pair, and the source's
        strides (row-major when it has none) swapped, kept when not row-major."""
        from tilemem.frontend.dsl.types import row_major_strides, same_index, tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        in_shape = list(a.shape)
        n = len(in_shape)
        if n < 2:
            raise DslError(f"tensor.transpose requires at least 2 dimensions, but got {n}")
        i, j = (const_value(x) for x in call.args[1:3])
        if i is None or j is None:
            raise DslError(f"{spec.qualified}: the axes must be constants")
        i, j = i[1], j[1]
        if not (-n <= i < n and -n <= j < n):
            raise DslError(f"{spec.qualified}: axis out of range for a rank {n} tensor")
        i, j = i % n, j % n
        if i == j:
            raise DslError(f"tensor.transpose: axis1 and axis2 must be different, but got axis1={i}, axis2={j}")
        shape = list(in_shape)
        shape[i], shape[j] = shape[j], shape[i]
        valid, in_stride, in_layout, pad = view_parts(a.view)
        out_layout = in_layout
        if {i, j} == {n - 1, n - 2}:
            out_layout = "DN" if in_layout == "ND" else "ND"
        stride = list(in_stride) if in_stride else row_major_strides(in_shape)
        stride[i], stride[j] = stride[j], stride[i]
        valid = list(valid)
        if valid:
            valid[i], valid[j] = valid[j], valid[i]
        canonical = row_major_strides(shape)
        row_major = out_layout == "ND" and all(same_index(x, y) for x, y in zip(canonical, stride))
        record = bool(stride) and not row_major
        if record or out_layout != "ND" or valid or pad != "null":
            return ir.TensorType(tuple(shape), a.dtype, tensor_view_expr(
                tuple(valid), tuple(stride) if record else (), out_layout, pad, shape))
        return ir.TensorType(tuple(shape), a.dtype)

    def _pad_kw(self, call, op):
        pad = dict(call.kwargs).get("pad_value")
        name = pad.parts[-1] if type(pad) is ir.Dotted else "zero"
        if name == "null":
            raise DslError(f"{op} requires pad_value to be zero/max/min, not null")
        return name

    def _rt_tensor_fillpad(self, call, arg, spec, b):
        """tensor.fillpad (tensor_ops/memory.cpp): the whole shape valid again."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        self._pad_kw(call, call.op)
        if a.view is None:
            return ir.TensorType(tuple(a.shape), a.dtype)
        _, stride, layout, pad = view_parts(a.view)
        return ir.TensorType(tuple(a.shape), a.dtype, tensor_view_expr((), stride, layout, pad, a.shape))

    def _rt_tensor_fillpad_expand(self, call, arg, spec, b):
        """tensor.fillpad_expand: the larger shape, valid everywhere, padded with pad_value."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        dims = list(call.args[1].items)
        if len(dims) != len(a.shape):
            raise DslError(f"tensor.fillpad_expand shape rank ({len(dims)}) must match source rank "
                           f"({len(a.shape)})")
        for i, (d, s) in enumerate(zip(dims, a.shape)):
            if type(d) is not ir.IntConst:
                raise DslError(f"tensor.fillpad_expand shape dimension {i} must be a constant integer")
            if d.value <= 0:
                raise DslError(f"tensor.fillpad_expand shape dimension {i} must be positive, got {d.value}")
            if type(s) is ir.IntConst and d.value < s.value:
                raise DslError(f"tensor.fillpad_expand destination dimension {i} ({d.value}) must be >= "
                               f"source dimension ({s.value})")
        pad = self._pad_kw(call, call.op)
        _, stride, layout, _ = view_parts(a.view)
        return ir.TensorType(tuple(dims), a.dtype, tensor_view_expr((), stride, layout, pad, dims))

    def _rt_tensor_gather(self, call, arg, spec, b):
        """DeduceTensorGatherType (tensor_ops/gather.cpp): the index's shape, the input's
        dtype; off the gather axis a constant index extent fits the input's (its dtypes, rank
        and dim: dtypes.txt / ranges.txt rows)."""
        a = self._tensor_of(call, 0, spec)
        idx = self._arg_type(call, 1)
        if not isinstance(idx, ir.TensorType):
            raise DslError(f"{spec.qualified}: the index must be a Tensor")
        d = call.kwarg("dim")
        rank = len(a.shape)
        if type(d) is ir.IntConst and len(idx.shape) == rank and -rank <= d.value < rank:
            axis = d.value % rank
            for i, (x, y) in enumerate(zip(idx.shape, a.shape)):
                if i != axis and type(x) is ir.IntConst and type(y) is ir.IntConst and x.value > y.value:
                    raise DslError(f"The operator {spec.irop} requires index.shape[{i}] ({x.value}) <= input.shape[{i}] "
                                   f"({y.value}) on non-gather axes")
        return ir.TensorType(tuple(idx.shape), a.dtype)

    def _rt_tensor_row_reduce(self, call, arg, spec, b):
        """tensor_ops/reduction.cpp: the last axis reduced to 1 (argmax/argmin: INT32 indices)."""
        a = self._tensor_of(call, 0, spec)
        return self._reduction_result(call, a, len(a.shape) - 1, arg or a.dtype)

    def _rt_tensor_col_reduce(self, call, arg, spec, b):
        """tensor_ops/reduction.cpp: axis -2 reduced to 1, [..., M, N] -> [..., 1, N]."""
        a = self._tensor_of(call, 0, spec)
        if len(a.shape) < 2:
            raise DslError(f"The operator {call.op} requires at least a 2D tensor, but got {len(a.shape)} dimensions")
        return self._reduction_result(call, a, len(a.shape) - 2, arg or a.dtype)

    def _reduction_result(self, call, a, axis: int, dtype: str):
        """MakeReductionResultType (tensor_ops/reduction.cpp:67-100, keep_dim): a fresh tensor
        whose reduced axis is 1 and fully valid, the other axes valid where the input is; an
        input valid extent that is provably 0 is CheckReductionInputNonEmpty's refusal."""
        from tilemem.frontend.dsl.types import view_parts
        valid = tuple(view_parts(a.view)[0] or a.shape)
        try:
            typerules.check_reduction_non_empty(call.op, valid)
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        shape = tuple(ir.IntConst(1) if i == axis else d for i, d in enumerate(a.shape))
        out_valid = tuple(ir.IntConst(1) if i == axis else d for i, d in enumerate(valid))
        return _fresh_tensor_type(shape, dtype, out_valid)


def array_type(extent: ir.Expr, dtype: str) -> ir.Type:
    """``pl.Array[N, pl.DT]`` (tilemem's IR keeps it as the annotation it prints)."""
    return ir.OpaqueType(ir.Subscript(dotted("pl", "Array"), (extent, dotted("pl", dtype))))


def array_dtype(t) -> Optional[str]:
    if isinstance(t, ir.OpaqueType) and type(t.expr) is ir.Subscript and type(t.expr.value) is ir.Dotted \
            and t.expr.value.parts[-1] == "Array" and len(t.expr.index) == 2 and type(t.expr.index[1]) is ir.Dotted:
        return t.expr.index[1].parts[-1]
    return None


def _is_dist(t) -> bool:
    return isinstance(t, ir.TensorType) and t.kind == "pld.DistributedTensor"


def _printed_type(t) -> str:
    """``python_print_type``: how a DSL wrapper's message shows an operand's type."""
    from tilemem.frontend.dsl.types import print_type_text
    return print_type_text(t) if t is not None else "UnknownType"


def _type_name(t) -> str:
    """``Type::TypeName()``: how a deducer's message names an operand's type."""
    if _is_dist(t):
        return "DistributedTensorType"
    if isinstance(t, ir.OpaqueType) and type(t.expr) is ir.Dotted:
        last = t.expr.parts[-1]
        return {"Ptr": "PtrType", "PrefetchAsyncContext": "PrefetchAsyncContextType", "AsyncEvent": "AsyncEventType",
                "AsyncSession": "AsyncSessionType"}.get(last, last)
    return {"tile": "TileType", "tensor": "TensorType", "scalar": "ScalarType",
            "tuple": "TupleType"}.get(ir.type_kind(t), "UnknownType")


def _dtype_or_name(t) -> str:
    return DT_NAME.get(t.dtype, t.dtype) if isinstance(t, ir.ScalarType) else _type_name(t)


def _printed_op(op: str) -> str:
    """``tile.and`` prints ``pl.tile.and_`` (a Python keyword gets an underscore); a
    distributed op (``pld.system.wait``) prints as it is named."""
    if op.split(".")[0] == "pld":
        return op
    ns, _, name = op.rpartition(".")
    if name in ("and", "or", "not", "in", "is"):
        name += "_"
    return f"pl.{ns}.{name}" if ns else f"pl.{name}"


def _float_text(v: float) -> str:
    from tilemem.frontend.dsl.values import float_text
    return float_text(v)
