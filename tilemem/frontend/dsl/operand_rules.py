"""What each stored op accepts of its operands, as data: ``dtypes.txt`` (the dtypes an
operand may have), ``forms.txt`` (the forms of a multi-form wrapper and their checks) and
``ranges.txt`` (the constant values an argument may take), read into rules the op caller
checks a call against.
"""
from __future__ import annotations

import functools
import re
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.frontend.dsl.exprs import DT_NAME, const_value
from tilemem.frontend.dsl.values import DTYPES, INT_DTYPES, DslError
from tilemem.records import Record, field_names, record

__all__ = ["DtypeRule", "FormRow", "RangeRule", "dtype_rules", "form_rules", "range_rules"]

# ----------------------------------------------------------------------------- dtype rules

_INT = frozenset(INT_DTYPES - {"INDEX"})        # DataType::IsInt


@record(frozen=True)
class DtypeRule(Record):
    """One row of ``dtypes.txt``: the dtypes an operand of a stored op may have."""

    def __init__(self,
                 operand: object,       # an int (a stored positional argument), "N[]" (each element of
                                        # tuple argument N, or of tuple kwarg N) or "result"
                 when: Optional[str],   # a kwarg that must be stored and true, or None
                 allowed: frozenset,    # dtype names; empty when ``same_as`` is set
                 message: str,
                 when_operand: Optional[tuple] = None,  # (operand, dtypes, negated): only when that
                                                        # operand has one of them (none, when negated)
                 same_as: object = None):   # the operand (or "result") whose dtype this one must
                                            # equal (or be one of ``allowed``)
        self.operand, self.when, self.allowed, self.message = operand, when, allowed, message
        self.when_operand, self.same_as = when_operand, same_as

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


def _check_table_rows(name: str, text: Optional[str] = None):
    """The rows of a ``HEAD : ALLOWED : MESSAGE`` check table of this package
    (``dtypes.txt``, ``ranges.txt``; blank and ``#`` lines skipped): (where, raw, head,
    allowed, message) each, ``where`` the table's ``name:line``."""
    if text is None:
        text = _table_text(name)
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        head, allowed, message = (x.strip() for x in raw.split(" : ", 2))
        yield f"{name}:{lineno}", raw, head, allowed, message


@record(frozen=True)
class FormRow(Record):
    """A row of ``forms.txt``: a form of a multi-form wrapper, or a check on its forms."""

    def __init__(self,
                 form: str,         # the form's name (`*`: the wrapper's, for `mixed`)
                 kind: str,         # form, mixed, requires, forbids, none
                 params: tuple,
                 text: str):        # the wrapper a `form` calls; else the message
        self.form, self.kind, self.params, self.text = form, kind, params, text


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


def _table_text(name: str) -> str:
    from tilemem.cache import package_text
    return package_text(__file__, __package__, name)


def _cached_rules(name: str, build, make) -> dict:
    """``build(text)`` of the table ``name`` -- op -> its rows as tuples of plain data --
    kept in tilemem's cache (keyed by the table's text and this module's code), each row
    made a rule by ``make``."""
    from tilemem.cache import cached_data, module_code
    text = _table_text(name)
    return cached_data(f"dsl-{name.split('.')[0]}", (text.encode("utf-8"), module_code(__file__)),
                       lambda: {op: tuple(_fields(r) for r in rows) for op, rows in build(text).items()},
                       lambda data: {op: [make(*row) for row in rows] for op, rows in data.items()})


def _fields(rule) -> tuple:
    return tuple(getattr(rule, f) for f in field_names(rule))


@functools.lru_cache(maxsize=1)
def dtype_rules() -> dict:
    """stored op (``tile.log``) -> its :class:`DtypeRule` rows, from ``dtypes.txt``."""
    return _cached_rules("dtypes.txt", _dtype_rules, DtypeRule)


def _dtype_rules(text: str) -> dict:
    rules: dict = {}
    for where, raw, head, allowed, message in _check_table_rows("dtypes.txt", text):
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

_BOUND = r"(-?)(?:(\d+)|rank(\d+)|dim(\d+)\.(\d+))([+-]\d+)?$"     # (compiled when first used)


def _bound(term: str, call: ir.Call, type_of) -> Optional[int]:
    """A ``ranges.txt`` bound: an integer, ``rankK`` or ``dimK.I`` (+/-N), possibly negated;
    None when operand K's rank, or its dimension I as a constant, is unknown."""
    m = re.match(_BOUND, term.strip())
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


@record(frozen=True)
class RangeRule(Record):
    """One row of ``ranges.txt``: the constant values a stored kwarg or operand may take."""

    def __init__(self,
                 what: object,      # a kwarg name, or a stored positional argument's index
                 values: tuple,     # alternatives: ("one", A) | ("range", A or "", B or "") | ("mult", N)
                 message: str):
        self.what, self.values, self.message = what, values, message

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
    return _cached_rules("ranges.txt", _range_rules, RangeRule)


def _range_rules(text: str) -> dict:
    rules: dict = {}
    for _where, _raw, head, values, message in _check_table_rows("ranges.txt", text):
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


