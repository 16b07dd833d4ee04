"""``deps=[arr[i] for i in range(4)]``: a list comprehension PyPTO unrolls as it reads.

PyPTO's front end accepts one comprehension form, in a submit's ``deps=`` (ast_parser.py
``_unroll_deps_comprehension``, "Form 2"): a single ``for NAME in ITER [if COND]...``
whose iterable and filters use no DSL variable.  It evaluates the iterable and the
filters with Python, and for each kept integer substitutes it for ``NAME`` in the
element; the elements are then read as if written out (``[arr[0], arr[1], ...]``).

tilemem does the same without running anything: the iterable and the filters are
evaluated here over what can be known from the text -- literals, the module's and the
enclosing functions' constants (:mod:`tilemem.frontend.pysource`), arithmetic,
comparisons, ``and``/``or``/``not``, list/tuple literals and ``range(...)``.  Anything
else (a call to a helper, an attribute of an object) would need Python to run; it is
an error that says so.

The comprehension reaches the reader as the private call ``__listcomp__(element,
target, iterable, *filters, generators=N)`` (:mod:`tilemem.frontend.dsl.pyline`).
"""
from __future__ import annotations

from tilemem import ir
from tilemem.frontend.dsl.values import DslError
from tilemem.records import replace

__all__ = ["LISTCOMP", "is_listcomp", "unroll_deps"]

LISTCOMP = "__listcomp__"
MAX_ITEMS = 65536            # a bound on what tilemem unrolls (PyPTO has none)


class _Unknown(Exception):
    """The value needs Python to run."""


class _Fails(Exception):
    """Python itself fails evaluating the value (its message)."""


_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "//": lambda a, b: a // b, "%": lambda a, b: a % b, "/": lambda a, b: a / b}


def is_listcomp(e) -> bool:
    return type(e) is ir.Call and e.func == LISTCOMP


def _value(e, env: dict, closure):
    """Python's value of ``e`` from literals, ``env`` and the module's constants."""
    t = type(e)
    if t is ir.IntConst or t is ir.BoolConst:
        return e.value
    if t is ir.FloatConst:
        return float(e.text)
    if t is ir.NoneConst:
        return None
    if t is ir.Name:
        if e.id in env:
            return env[e.id]
        c = closure(e.id)
        if isinstance(c, (bool, int, float, list)):
            return c
        raise _Unknown(e.id)
    if t in (ir.ListExpr, ir.TupleExpr):
        return [_value(x, env, closure) for x in e.items]        # held items iterate as nodes
    if t is ir.BinOp:
        if e.op == "and":
            a = _value(e.left, env, closure)
            return _value(e.right, env, closure) if a else a
        if e.op == "or":
            a = _value(e.left, env, closure)
            return a if a else _value(e.right, env, closure)
        f = _CMP.get(e.op) or _ARITH.get(e.op)
        if f is None:
            raise _Unknown(e.op)
        try:
            return f(_value(e.left, env, closure), _value(e.right, env, closure))
        except (TypeError, ZeroDivisionError, OverflowError) as x:
            raise _Unknown(str(x)) from None
    if t is ir.UnaryOp:
        v = _value(e.operand, env, closure)
        if e.op == "not":
            return not v
        if e.op == "-" and isinstance(v, (int, float)):
            return -v
        raise _Unknown(e.op)
    if t is ir.Call and e.func == "range" and not e.kwargs and 1 <= len(e.args) <= 3 and closure("range") is None:
        bounds = [_value(a, env, closure) for a in e.args]
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
            raise _Unknown("range")
        if len(bounds) == 3 and bounds[2] == 0:
            raise _Fails("range() arg 3 must not be zero")
        r = range(*bounds)
        try:
            n = len(r)
        except OverflowError:           # more values than a C ssize_t counts
            n = MAX_ITEMS + 1
        if n > MAX_ITEMS:
            raise _Unknown(f"a range of more than {MAX_ITEMS} values")
        return list(r)
    raise _Unknown(type(e).__name__)


def _substituted(e, name: str, value: int):
    """``e`` with every ``name`` read replaced by the constant ``value`` (AP:6721-6738)."""
    t = type(e)
    if t is ir.Name:
        return ir.IntConst(value, e.line, e.col) if e.id == name else e
    if t is ir.Call:
        return replace(e, args=tuple(_substituted(a, name, value) for a in e.args),
                       kwargs=tuple((k, _substituted(v, name, value)) for k, v in e.kwargs))
    if t in (ir.ListExpr, ir.TupleExpr):
        return replace(e, items=tuple(_substituted(x, name, value) for x in e.items))
    if t is ir.Subscript:
        return replace(e, value=_substituted(e.value, name, value),
                       index=tuple(_substituted(x, name, value) for x in e.index))
    if t is ir.BinOp:
        return replace(e, left=_substituted(e.left, name, value), right=_substituted(e.right, name, value))
    if t is ir.UnaryOp:
        return replace(e, operand=_substituted(e.operand, name, value))
    return e


def _names(e):
    return (x.id for x in ir.subexpressions(e) if type(x) is ir.Name)


def unroll_deps(reader, comp: ir.Call, method: str, at) -> list:
    """The elements of a ``deps=`` comprehension, one per kept value, as written-out
    expressions (AP:6740-6830; PyPTO's messages, at ``at``: the call, as PyPTO's span)."""
    element, target, iterable, *filters = comp.args
    generators = dict(comp.kwargs)["generators"].value
    if generators != 1:
        raise DslError(f"'{method}' deps= comprehension supports a single `for` clause (v1)", at)
    if type(target) is not ir.Name:
        raise DslError(f"'{method}' deps= comprehension target must be a single name (v1)", at)
    loop = target.id
    if any(reader.lookup(n) is not None for n in _names(iterable)):
        raise DslError(f"'{method}' deps= comprehension iterable depends on an IR variable; cannot unroll at "
                       "parse time", at)
    for f in filters:
        if any(n != loop and reader.lookup(n) is not None for n in _names(f)):
            raise DslError(f"'{method}' deps= comprehension filter depends on an IR variable; cannot unroll at "
                           "parse time", at)
    if type(iterable) is ir.Call and iterable.func.split(".")[0] in reader.ctx.scope.aliases and \
            iterable.func.split(".")[-1] in ("range", "parallel", "pipeline"):
        raise DslError(f"'{method}' deps= comprehension iterable is a DSL loop (`pl.range` / `pl.parallel` / "
                       "`pl.pipeline`); cannot unroll at parse time", at)
    try:
        values = _value(iterable, {}, reader.closure)
    except _Fails as x:             # PyPTO evaluates the iterable with Python (AP:6740-6830)
        raise DslError(f"Failed to evaluate expression '{reader.source_of(iterable)}': {x}", iterable) from None
    except _Unknown:
        raise DslError(f"'{method}' deps= comprehension iterable: tilemem unrolls only what it can read "
                       "without running Python (literals, module constants, range(...))", at) from None
    if not isinstance(values, list):
        raise DslError(f"'{method}' deps= comprehension iterable did not produce a sequence: "
                       f"'{type(values).__name__}' object is not iterable", at)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise DslError(f"'{method}' deps= comprehension iterable yielded a non-integer value "
                           f"({type(v).__name__}); only integer indices are supported", at)
    out = []
    for v in values:
        try:
            keep = all(bool(_value(f, {loop: v}, reader.closure)) for f in filters)
        except _Unknown:
            raise DslError(f"'{method}' deps= comprehension filter: tilemem evaluates only what it can read "
                           "without running Python (literals, module constants, the loop's name)", at) from None
        if keep:
            out.append(_substituted(element, loop, v))
    return out
