"""The order a rule body runs in: every literal once the variables it needs are bound.

Evaluation (the pyDatalog engine, safety checking), why-not and proof search each read a
body in their own order (:func:`order_body`'s policies); this module is the one place
that decides them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from tilemem.datalog.syntax import Literal

__all__ = ["order_body", "plan_body"]


def order_body(body: Sequence[Literal], bound: Iterable[str] = (),
               policy: str = "eager") -> tuple[list[int], set[str], list[int]]:
    """The one place that orders a rule body: (indices into ``body`` in the order to run
    them, the variables bound at the end, the indices that never became ready — only for
    unsafe rules).  ``bound``: variables bound before the body runs (a head's, when a
    fact is explained).  Every literal runs only once its ``needs()`` are bound.

    * ``"eager"`` (evaluation): positive atoms in written order; every other literal
      right after the literals that bind its variables, as early as that is;
    * ``"written"`` (why-not: the first premise that fails, as the rule reads): every
      literal in written order, one that is not ready at its turn waiting until it is;
    * ``"selective"`` (proof search): a ready test first, else the positive atom with
      the most bound arguments (a fully bound one first), written order among equals.
    """
    from tilemem.datalog.syntax import Atom, Const, Var
    bound = set(bound)
    order: list[int] = []
    if policy == "eager":
        pending = [i for i, lit in enumerate(body) if not isinstance(lit, Atom)]

        def flush():
            progress = True
            while progress:
                progress = False
                for i in pending:
                    if body[i].ready(bound):
                        pending.remove(i)
                        order.append(i)
                        bound.update(body[i].binds())
                        progress = True
                        break      # restart: keep written order among ready literals

        flush()
        for i, lit in enumerate(body):
            if isinstance(lit, Atom):
                order.append(i)
                bound.update(lit.binds())
                flush()
        return order, bound, pending
    if policy == "written":
        waiting: list[int] = []
        for i, lit in enumerate(body):
            if isinstance(lit, Atom) or lit.ready(bound):
                order.append(i)
                bound |= lit.binds()
                progress = True
                while progress and waiting:
                    progress = False
                    for j in waiting:
                        if body[j].ready(bound):
                            waiting.remove(j)
                            order.append(j)
                            bound |= body[j].binds()
                            progress = True
                            break
            else:
                waiting.append(i)
        return order + waiting, bound, waiting
    if policy != "selective":
        raise ValueError(f"unknown body order '{policy}'")
    todo = list(range(len(body)))
    stuck: list[int] = []
    while todo:
        pick = next((i for i in todo if not isinstance(body[i], Atom) and body[i].ready(bound)),
                    None)
        if pick is None:
            atoms = [i for i in todo if isinstance(body[i], Atom)]
            if not atoms:               # unsafe leftovers (cannot happen for a valid RuleSet)
                pick = todo[0]
                stuck.append(pick)
            else:
                def score(i):
                    a = body[i]
                    nb = sum(1 for t in a.args if isinstance(t, Const)
                             or (isinstance(t, Var) and not t.is_anonymous and t.name in bound))
                    return (-(nb == a.arity), -nb, i)
                pick = min(atoms, key=score)
        todo.remove(pick)
        order.append(pick)
        bound |= body[pick].binds()
    return order, bound, stuck


def plan_body(body: Sequence[Literal]) -> tuple[tuple[Literal, ...], set[str], list[Literal]]:
    """A rule body in evaluation order (:func:`order_body`, ``"eager"``): the ordered
    body, the variables bound at the end, and the literals that never became ready
    (non-empty only for unsafe rules)."""
    order, bound, stuck = order_body(body)
    return tuple(body[i] for i in order), bound, [body[i] for i in stuck]

