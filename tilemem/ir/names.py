"""How PyPTO's printer names vars (printer.md §6), and renaming a function's vars.

PyPTO's vars are objects with a *name hint*; several distinct vars may share one (SSA
versions of a reassigned name, or a ``tile.move`` the pass names ``<hint>_<Space>`` next
to a user var of that name).  The printer makes printed names unique per function:

* collect the vars in order — parameters, then definitions in pre-order (an assignment's
  LHS; a ``for``: loop var, return vars, iter-args, then its body; a ``while``: return
  vars, iter-args; an ``if``: return vars, then its branches);
* a hint held by one var is printed as is, and reserved first;
* the vars sharing a hint take, in that order, the first free name among
  ``h``, ``h_1``, ``h_2``, ... (names already taken are skipped).

So the var defined first keeps the bare name, wherever the other came from: a move the
pass inserts before a user var named like it takes the name and the user var prints
``_1`` (auto_name_utils.h BuildRenameMapForDefs; python_printer.cpp BuildVarRenameMap).

tilemem's IR names vars by their printed names; ``definitions`` lists them in the
printer's order, ``printed_names`` applies the rule to their hints and ``rename``
rewrites a function with the result.  Types are left alone: PyPTO prints a var inside
a type by its name hint.
"""
from __future__ import annotations

from collections import Counter
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterable, Mapping

from tilemem.ir import nodes as ir
from tilemem.ir.walk import last_yield
from tilemem.records import is_record, replace
from tilemem.recursion import deep_recursion

__all__ = ["definitions", "printed_names", "renamed", "rename", "rename_expr"]


def definitions(fn: ir.Function) -> list[str]:
    """The printed names of ``fn``'s vars in the printer's collection order (first
    occurrence only): parameters, then definitions in pre-order."""
    out: list[str] = []
    seen: set[str] = set()

    def add(name):
        if name and name not in seen:
            seen.add(name)
            out.append(name)

    for p in fn.params:
        add(p.name)
    # an explicit stack of pending statement lists keeps this iterative
    stack: list[list[ir.Stmt]] = [list(reversed(fn.body))]
    while stack:
        todo = stack[-1]
        if not todo:
            stack.pop()
            continue
        s = todo.pop()
        if isinstance(s, ir.Assign):
            for t in s.targets:
                add(t)
        elif isinstance(s, ir.For):
            add(s.loop_var)
            y = last_yield(s.body)
            for t in (y.targets if y is not None else []):
                add(t)
            for ia in s.iter_args or []:
                add(ia)
            stack.append(list(reversed(s.body)))
        elif isinstance(s, ir.If):
            for arm in (s.then_body, s.else_body or []):
                y = last_yield(arm)
                for t in (y.targets if y is not None else []):
                    add(t)
            stack.append(list(reversed(s.else_body or [])))
            stack.append(list(reversed(s.then_body)))
        elif isinstance(s, (ir.While, ir.With)):
            if isinstance(s, ir.With):
                add(s.as_name)
            stack.append(list(reversed(s.body)))
        # a yield's targets are its parent's return vars, collected there
    return out


def printed_names(order: Iterable[str], hint_of: Mapping[str, str]) -> dict[str, str]:
    """The printer's name for each var of ``order`` (keys: tilemem's current names), from
    its name hint (``hint_of``, default: the name itself)."""
    order = list(order)
    hints = [hint_of.get(v, v) for v in order]
    return _printed(order, hints)


def renamed(order: list[str], hints: list[str]) -> dict[str, str]:
    """The vars of ``order`` (tilemem's current names, distinct) whose printed name is not
    their current one, with it, by the name hints ``hints`` (one a var): the items of
    :func:`printed_names` that rename."""
    if hints == order:
        return {}                   # each var's hint is its own name, and names are distinct
    return _printed(order, hints, renames_only=True)


def _printed(order: list[str], hints: list[str], renames_only: bool = False) -> dict[str, str]:
    counts = Counter(hints)
    used = {h for h in hints if counts[h] == 1}
    out: dict[str, str] = {}
    for v, h in zip(order, hints):
        if counts[h] == 1:
            name = h
        else:                       # the printer's de-dup: the first free h_k, in order
            name, k = h, 0
            while name in used:
                k += 1
                name = f"{h}_{k}"
            used.add(name)
        if not renames_only or name != v:
            out[v] = name
    return out


# Statement fields that hold var names as plain strings.
_NAME_FIELDS = ("targets", "loop_var", "iter_args", "as_name")


def rename(fn: ir.Function, mapping: Mapping[str, str]) -> ir.Function:
    """``fn`` with every var named in ``mapping`` renamed (definitions and uses, in
    expressions and statements; types keep their names, see the module doc)."""
    if not mapping:
        return fn
    with deep_recursion():
        params = [p if p.name not in mapping else replace(p, name=mapping[p.name])
                  for p in fn.params]
        return replace(fn, params=params, body=_renamed(fn.body, mapping))


def rename_expr(e: ir.Expr, mapping: Mapping[str, str]) -> ir.Expr:
    """An expression with every var named in ``mapping`` renamed."""
    if not mapping:
        return e
    with deep_recursion():
        return _renamed(e, mapping)


def _renamed(x, mapping):
    if isinstance(x, ir.Name):
        new = mapping.get(x.id)
        return x if new is None else replace(x, id=new)
    if isinstance(x, ir.Type) or x is None or isinstance(x, (str, int, float, bool)):
        return x
    if isinstance(x, (list, tuple)):
        new = [_renamed(e, mapping) for e in x]
        if all(a is b for a, b in zip(new, x)):
            return x                # nothing renamed inside: shared, not copied
        return new if isinstance(x, list) else tuple(new)
    if is_record(x):
        changes = {}
        for name in x._compared:        # not the source positions
            val = getattr(x, name)
            if name in _NAME_FIELDS:
                new = _rename_names(val, mapping)
            else:
                new = _renamed(val, mapping)
            if new is not val:
                changes[name] = new
        return replace(x, **changes) if changes else x
    return x


def _rename_names(val, mapping):
    if isinstance(val, str):
        return mapping.get(val, val)
    if isinstance(val, list):
        return [mapping.get(v, v) if isinstance(v, str) else v for v in val]
    return val
