"""The DSL's op wrappers as data: ``ops.txt`` read into a :class:`WrapperTable` of
:class:`OpSpec` (each wrapper's signature, what it stores, its result rule).

One line of ``ops.txt`` a wrapper: ``NS.NAME(SIGNATURE) => STORED : RESULT`` (the stored call
``irop(args){kwargs}``, or a ``dispatch``/``slice``/``binary_or_scalar``/``syncall`` rule);
``NS.NAME = NS2.NAME2`` an alias; ``syntax.ROLE = NS.NAME`` the op the front end builds for a
piece of Python syntax.
"""
from __future__ import annotations

import functools
import re
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.frontend.dsl.values import DTYPES, Enum
from tilemem.records import LIST, Fresh, Record, record

__all__ = ["NOT_GIVEN", "Param", "OpSpec", "WrapperTable", "wrapper_table", "syntax_op", "printed_op"]

NOT_GIVEN = object()          # "argument not given"


@record
class Param(Record):
    def __init__(self, name: str, kind: str = "expr",
                 default: object = NOT_GIVEN,   # a Python value, an Enum, or NOT_GIVEN (required)
                 kwonly: bool = False,
                 allowed: tuple = ()):          # `space[Vec, Mat]`: the only members the builder accepts
        self.name, self.kind, self.default, self.kwonly, self.allowed = name, kind, default, kwonly, allowed


def _fresh(x):
    return x.factory() if type(x) is Fresh else x


@record
class OpSpec(Record):
    def __init__(self, ns: str, name: str,
                 params: list = LIST,
                 varargs: bool = False,
                 irop: Optional[str] = None,    # None for dispatch rules
                 args: list = LIST,             # stored positional specs
                 kwargs: list = LIST,           # (key, param, modifier)
                 result: str = "tile",
                 rule: Optional[str] = None,    # a store rule (binary_or_scalar, slice) or a dispatch rule
                 rule_args: list = LIST,
                 construct: bool = False):      # a parser construct: its call checked by its syntax first
        self.ns, self.name, self.params, self.varargs = ns, name, _fresh(params), varargs
        self.irop, self.args, self.kwargs, self.result = irop, _fresh(args), _fresh(kwargs), result
        self.rule, self.rule_args, self.construct = rule, _fresh(rule_args), construct

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
    import ast
    fn = ast.parse(f"def f({sig}): pass").body[0]
    a = fn.args
    params: list[Param] = []

    def conv(default):
        if default is None:
            return NOT_GIVEN
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
    import ast
    if ann is None:
        return "expr", ()
    if isinstance(ann, ast.Name):
        return ann.id, ()
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name):
        items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return ann.value.id, tuple(x.id for x in items)
    raise ValueError(ast.unparse(ann))


# (patterns, compiled by re when ops.txt is read: a start that finds the table in the cache
# reads none)
_LINE = (r"^([\w.]+)\.(\w+)\((.*)\)\s*=>\s*(.*?)\s*(?::\s*(\w+(?:\([^)]*\))?))?$")
_ALIAS = r"^([\w.]+)\.(\w+)\s*=\s*([\w.]+)\.(\w+)$"
_STORE = r"^([\w.]+)\((.*?)\)\s*(?:\{(.*)\})?$"


class WrapperTable:
    """The DSL's wrappers by (namespace, name): not the op table (that is
    :mod:`tilemem.ir.optable`, the ops PyPTO registers), but the Python functions that
    build their calls."""

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
        m = re.match(_ALIAS, line)
        if m:
            target = self.specs[(m.group(3), m.group(4))]
            self.specs[(m.group(1), m.group(2))] = target
            return
        m = re.match(_LINE, line)
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
            sm = re.match(_STORE, store)
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
        specs = self.__dict__.get("specs")
        if specs is not None:
            return specs.get((ns, name))
        i = self._index.get((ns, name))         # a table loaded from data: specs made when asked
        if i is None:
            return None
        return self._spec(i)

    @functools.cached_property
    def specs(self) -> dict:
        """(ns, name) -> its OpSpec (a table loaded from data: every spec made now)."""
        return {key: self._spec(i) for key, i in self._index.items()}

    def _spec(self, i: int) -> OpSpec:
        spec = self._made.get(i)
        if spec is None:
            ns, name, params, varargs, irop, args, kwargs, result, rule, rule_args, construct = self._rows[i]
            spec = self._made[i] = OpSpec(ns, name, [_param_of(p) for p in params], varargs, irop, list(args),
                                          [tuple(k) for k in kwargs], result, rule, list(rule_args), construct)
        return spec

    @functools.cached_property
    def region_ops(self) -> frozenset:
        """The stored ops (``pl.tile.load``) whose result is a `tile_region`."""
        if "specs" not in self.__dict__:
            return frozenset(f"pl.{row[4]}" for row in self._rows if row[7] == "tile_region" and row[4])
        return frozenset(f"pl.{s.irop}" for s in self.specs.values() if s.result == "tile_region" and s.irop)


    # --------------------------------------------------------------- as plain data
    # (what tilemem's cache keeps: reading ops.txt parses ~380 signatures with ast, ~120 M
    # instructions of every start that checks printed IR; loading its rows ~5 M)

    def to_data(self) -> tuple:
        """The table as marshal-able rows: (specs, keys), ``keys`` each (ns, name, index
        into specs) -- an alias shares its target's spec."""
        index: dict = {}
        specs = []
        for spec in self.specs.values():
            if id(spec) not in index:
                index[id(spec)] = len(specs)
                specs.append((spec.ns, spec.name, tuple(_param_row(p) for p in spec.params), spec.varargs,
                              spec.irop, tuple(spec.args), tuple(tuple(k) for k in spec.kwargs),
                              spec.result, spec.rule, tuple(spec.rule_args), spec.construct))
        return tuple(specs), tuple((ns, name, index[id(spec)]) for (ns, name), spec in self.specs.items())

    @classmethod
    def from_data(cls, data) -> "WrapperTable":
        """The table of :meth:`to_data`'s rows; a spec is made the first time it is asked
        for (a solve asks for a few dozen of ~450)."""
        rows, keys = data
        table = cls.__new__(cls)
        table._rows = tuple(rows)
        if not all(isinstance(r, tuple) and len(r) == 11 for r in table._rows):
            raise ValueError("not a wrapper table")
        table._index = {(ns, name): i for ns, name, i in keys if 0 <= i < len(table._rows)}
        table._made = {}
        return table


def _param_row(p: Param) -> tuple:
    d = p.default
    default = ("n",) if d is NOT_GIVEN else ("e", d.kind, d.name) if isinstance(d, Enum) else ("v", d)
    return (p.name, p.kind, default, p.kwonly, p.allowed)


def _param_of(row) -> Param:
    name, kind, default, kwonly, allowed = row
    d = NOT_GIVEN if default[0] == "n" else Enum(default[1], default[2]) if default[0] == "e" else default[1]
    if default[0] not in "nev":
        raise ValueError(default)
    return Param(name, kind, d, kwonly, tuple(allowed))


@functools.lru_cache(maxsize=1)
def wrapper_table() -> WrapperTable:
    from tilemem.cache import cached_data, module_code, package_text
    text = package_text(__file__, __package__, "ops.txt")
    return cached_data("dsl-ops", (text.encode("utf-8"), module_code(__file__)),
                       lambda: WrapperTable(text).to_data(), WrapperTable.from_data)


def syntax_op(role: str) -> str:
    """The op (as printed: ``pl.array.create``) the front end itself builds for a piece of
    Python syntax, by its role in ops.txt's ``syntax.ROLE = NS.NAME`` rows."""
    return printed_op(wrapper_table().get("syntax", role).irop)



def printed_op(op: str) -> str:
    """``tile.and`` prints ``pl.tile.and_`` (a Python keyword gets an underscore); a
    distributed op (``pld.system.wait``) prints as it is named."""
    if op.split(".")[0] == "pld":
        return op
    ns, _, name = op.rpartition(".")
    if name in ("and", "or", "not", "in", "is"):
        name += "_"
    return f"pl.{ns}.{name}" if ns else f"pl.{name}"


