"""Budgets of user rules: a derived-fact count and a time limit, on both engines.

The shipped rules derive at most a polynomial of the program's size, but a rule of a
user's ``--rules`` file can count for ever (``cnt(M) :- cnt(N), M = N + 1.``) or build
a cross product of millions of rows.  Every rule of a user file gets one extra body
literal that the engine evaluates once per derivation -- a primitive in pyDatalog, an
external function (``@tm_tick``) in clingo -- and that calls :meth:`Budget.tick`.  Past
``max_facts`` derivations, or ``max_seconds`` after the database was created, the tick
raises :class:`BudgetExceeded`, located at the user rule that derived the most and
naming its relation.  The shipped rules carry no tick: a solve without ``--rules`` pays
nothing.
"""
from __future__ import annotations

import time
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.datalog.errors import EvaluationError

__all__ = ["Budget", "BudgetExceeded", "user_rule_indices"]


class BudgetExceeded(EvaluationError):
    """User rules went past their derived-fact or time budget."""


def user_rule_indices(rules) -> dict[int, object]:
    """rule index -> Rule, for the rules of a RuleSet that come from user files."""
    users = rules.user_sources()
    if not users:
        return {}
    return {i: r for i, r in enumerate(rules.rules) if r.loc is not None and r.loc.file in users}


class Budget:
    """Counts the derivations of user rules (see the module docstring); 0/None: no limit."""

    def __init__(self, max_facts: Optional[int] = None, max_seconds: Optional[float] = None):
        self.max_facts = max_facts or None
        self.max_seconds = max_seconds or None
        self.start = time.monotonic()
        self.deadline = self.start + self.max_seconds if self.max_seconds else None
        self.count = 0
        self.per_rule: dict[int, int] = {}
        self.rules: dict[int, object] = {}          # index -> Rule (set by the Database)

    def tick(self, index: int) -> None:
        """One derivation by user rule ``index``: raise BudgetExceeded past a budget."""
        self.count += 1
        per = self.per_rule
        per[index] = per.get(index, 0) + 1
        if self.max_facts is not None and self.count > self.max_facts:
            raise self._exceeded(f"grew past {self.max_facts:,} facts derived by user rules "
                                 f"(--max-facts)")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise self._exceeded(f"was still growing after {self.max_seconds:g} s "
                                 f"({self.count:,} facts derived by user rules; --max-seconds)")

    def _exceeded(self, what: str) -> BudgetExceeded:
        index = max(self.per_rule, key=lambda i: (self.per_rule[i], -i))
        rule = self.rules.get(index)
        pred = rule.head.pred if rule is not None else "?"
        where = f"{rule.loc}: error: " if rule is not None and rule.loc else ""
        return BudgetExceeded(f"{where}relation '{pred}' {what}: evaluation stopped")
