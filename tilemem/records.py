"""Plain classes that behave as dataclasses, without building a dataclass at import.

Building a dataclass generates its methods as text and compiles them (~0.6 ms a class),
and the ``dataclasses`` module pulls in ``inspect`` and ``ast``: together ~20 ms of
every solve's start-up, for classes whose methods are a few lines.  A record class
lists its fields once, as the parameters of its written-out ``__init__`` (``__slots__``
are derived from them, or written where a class also takes ``__dict__``); :func:`record`
gives it the dataclass equality, hashing and repr, and ``__dataclass_fields__`` built on
first use, so ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` keep working
(the ``dataclasses`` module is imported then, not before).  :func:`replace`,
:func:`fields` and :func:`is_record` are the fast equivalents that import nothing.
"""
from __future__ import annotations

from operator import attrgetter
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Record", "record", "Fresh", "LIST", "DICT", "replace", "field_names", "is_record"]


class Fresh:
    """The default of a list or dict field: a new, empty one for every record."""
    __slots__ = ("factory",)

    def __init__(self, factory):
        self.factory = factory

    def __repr__(self) -> str:
        return f"{self.factory.__name__}()"


# typed Any: a field declared ``list[X] = LIST`` gets a fresh list (see Fresh)
LIST: Any = Fresh(list)
DICT: Any = Fresh(dict)
_MISSING = object()


class Record:
    """Equality, hashing and repr over the fields :func:`record` lists."""
    __slots__ = ()
    _fields: tuple = ()               # every field, in __init__'s order
    _compared: tuple = ()             # the fields equality and hashing look at
    _shown: tuple = ()                # the fields repr shows
    _key = staticmethod(lambda r: ())
    _values = staticmethod(lambda r: ())    # every field's value (replace)
    _place: dict = {}                 # field -> its place in _fields (replace)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key(self) == other._key(other)
        return NotImplemented

    def __hash__(self):
        return hash(self._key(self))

    def __repr__(self) -> str:
        return (f"{self.__class__.__qualname__}("
                + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._shown) + ")")


class _LazyFields:
    """``__dataclass_fields__``, built (and the ``dataclasses`` module imported) only when
    something asks for it; then it replaces itself on the class."""

    def __init__(self, cls, defaults: dict, annotations: dict, uncompared, hidden):
        self.cls, self.defaults, self.annotations = cls, defaults, annotations
        self.uncompared, self.hidden = uncompared, hidden

    def __get__(self, obj, owner=None):
        import dataclasses
        cls, annotations = self.cls, self.annotations
        out = {}
        for n in cls._fields:
            d = self.defaults.get(n, _MISSING)
            kw = dict(compare=n not in self.uncompared, repr=n not in self.hidden)
            if isinstance(d, Fresh):
                f = dataclasses.field(default_factory=d.factory, **kw)
            else:
                f = dataclasses.field(default=dataclasses.MISSING if d is _MISSING else d, **kw)
            f.name, f.type, f._field_type = n, annotations.get(n), dataclasses._FIELD
            out[n] = f
        type.__setattr__(cls, "__dataclass_fields__", out)
        return out


def record(cls=None, *, frozen: bool = False, uncompared: tuple = (), hidden: tuple = (),
           extras: bool = False):
    """Finish a record class.  Its fields are the parameters of its ``__init__``, in order;
    a class that writes no ``__slots__`` is made again with those fields as its slots
    (the ``__init__`` must set each of them; ``extras``: and a ``__dict__``, for
    attributes that are not fields), one that writes them must list them in
    ``__init__``'s order.  ``uncompared`` fields take no part in equality and hashing,
    ``hidden`` ones are not in the repr.  Classes that are not ``frozen`` are unhashable,
    as mutable dataclasses are."""
    if cls is None:
        return lambda c: record(c, frozen=frozen, uncompared=uncompared, hidden=hidden,
                                extras=extras)
    init = cls.__dict__.get("__init__")
    names, defaults, annotations = (), {}, cls.__dict__.get("__annotations__", {})
    if init is not None:
        code, given = init.__code__, init.__defaults__ or ()
        names = code.co_varnames[1:code.co_argcount]
        defaults = dict(zip(names[len(names) - len(given):], given))
    if "__slots__" in cls.__dict__:
        written = tuple(n for n in cls.__slots__ if n not in ("__dict__", "__weakref__"))
        assert written == names, (cls.__name__, names)
    else:
        # a class gets its slots when it is made: make it again, with the fields as slots
        if init is not None:
            assert set(names) <= set(code.co_names), (cls.__name__, "__init__ leaves a field unset")
            assert "__class__" not in code.co_freevars, (cls.__name__, "super() in a remade class")
            annotations = init.__annotations__
        ns = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
        ns["__slots__"] = names + ("__dict__",) if extras else names
        cls = type(cls)(cls.__name__, cls.__bases__, ns)
    cls._fields = names
    cls.__dataclass_fields__ = _LazyFields(cls, defaults, annotations, uncompared, hidden)
    cls._compared = tuple(n for n in names if n not in uncompared)
    cls._shown = tuple(n for n in names if n not in hidden)
    k = cls._compared
    cls._key = staticmethod(attrgetter(*k) if len(k) > 1 else
                            (lambda x, a=attrgetter(k[0]): (a(x),)) if k else (lambda x: ()))
    # replace(): every field's value at once, and each field's place in __init__
    cls._values = staticmethod(attrgetter(*names) if len(names) > 1 else
                               (lambda x, a=attrgetter(names[0]): (a(x),)) if names else (lambda x: ()))
    cls._place = {n: i for i, n in enumerate(names)}
    if not frozen:
        cls.__hash__ = None
    return cls


def is_record(x) -> bool:
    """``x`` is a record (an instance, not the class)."""
    return isinstance(x, Record) and not isinstance(x, type)


def field_names(x) -> tuple:
    """The fields of a record (instance or class), in order."""
    return x._fields


def replace(obj, **changes):
    """A copy of ``obj`` with ``changes`` (``dataclasses.replace``; for a record without
    importing ``dataclasses``)."""
    if not isinstance(obj, Record):
        import dataclasses
        return dataclasses.replace(obj, **changes)
    cls = obj.__class__
    values = list(cls._values(obj))     # one C call for every field (the emitter and the
    place = cls._place                  # type rules replace ~100,000 nodes on MTP)
    for k, v in changes.items():
        i = place.get(k)
        if i is None:
            raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument '{k}'")
        values[i] = v
    return cls(*values)
