"""Binding a call to its wrapper's signature the way Python does, with Python's own
messages for a wrong number of arguments or an unknown keyword."""
from __future__ import annotations


from tilemem import ir
from tilemem.frontend.dsl.values import DslError, Enum, Py
from tilemem.frontend.dsl.wrappers import NOT_GIVEN, OpSpec

__all__ = ["bind", "requires", "construct_checks"]

def requires(spec: OpSpec, name: str) -> bool:
    """Whether ``spec``'s wrapper has a parameter ``name`` without a default."""
    return any(p.name == name and p.default is NOT_GIVEN for p in spec.params)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def bind(spec: OpSpec, args: list, kwargs: list[tuple[str, object]], fname: str) -> dict:
    """Python's argument binding, with Python's TypeError messages."""
    positional = [p for p in spec.params if not p.kwonly]
    out: dict = {}
    if len(args) > len(positional) and not spec.varargs:
        lo = sum(1 for p in positional if p.default is NOT_GIVEN)
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
    missing_pos = [p.name for p in positional if p.name not in out and p.default is NOT_GIVEN]
    if missing_pos:
        quoted = [f"'{n}'" for n in missing_pos]
        lst = quoted[0] if len(quoted) == 1 else (", ".join(quoted[:-1]) + f" and {quoted[-1]}")
        raise DslError(f"{fname}() missing {_plural(len(missing_pos), 'required positional argument')}: {lst}")
    missing_kw = [p.name for p in spec.params if p.kwonly and p.name not in out and p.default is NOT_GIVEN]
    if missing_kw:
        quoted = [f"'{n}'" for n in missing_kw]
        lst = quoted[0] if len(quoted) == 1 else (", ".join(quoted[:-1]) + f" and {quoted[-1]}")
        raise DslError(f"{fname}() missing {_plural(len(missing_kw), 'required keyword-only argument')}: {lst}")
    for p in spec.params:
        if p.name not in out:
            d = p.default
            out[p.name] = None if d is NOT_GIVEN or d is None else (d if isinstance(d, Enum) else Py(d))
    return out


def construct_checks(spec: OpSpec, call: ir.Call) -> None:
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
        if p.default is NOT_GIVEN and p.name not in given:
            raise DslError(f"{what} requires keyword argument '{p.name}'", call)


