"""The DSL's op wrappers as data: ``ops.txt`` read into a :class:`WrapperTable` of
:class:`OpSpec` (each wrapper's signature, what it stores, its result rule).

One line of ``ops.txt`` a wrapper: ``NS.NAME(SIGNATURE) => STORED : RESULT`` (the stored call
``irop(args){kwargs}``, or a ``dispatch``/``slice``/``binary_or_scalar``/``syncall`` rule);
``NS.NAME = NS2.NAME2`` an alias; ``syntax.ROLE = NS.NAME`` the op the front end builds for a
piece of Python syntax.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from typing import Optional

from tilemem.frontend.dsl.values import DTYPES, Enum

__all__ = ["NOT_GIVEN", "Param", "OpSpec", "WrapperTable", "wrapper_table", "syntax_op", "printed_op"]

NOT_GIVEN = object()          # "argument not given"


@dataclass
class Param:
    name: str
    kind: str = "expr"
    default: object = NOT_GIVEN       # a Python value, an Enum, or NOT_GIVEN (required)
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
def wrapper_table() -> WrapperTable:
    import importlib.resources
    return WrapperTable((importlib.resources.files(__package__) / "ops.txt").read_text(encoding="utf-8"))


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


