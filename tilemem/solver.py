"""Run the rules over a program's facts and collect the solution.

The solver is glue: facts in (``tilemem.facts``), rules evaluated by the Datalog
engine (``tilemem.datalog``), derived relations out.  It computes nothing about
spaces or moves itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from . import ir
from .backends import normalize_backend
from .datalog import Database, RuleSet
from .facts import Facts, extract, extract_program

# The derived relations the emitter and the library expose.
RESULT_RELATIONS = (
    "space", "resolved_function", "move_at", "move_use", "move_blayout", "move_slayout",
    "move_slot", "demand", "retarget", "rederive",
)


def load_rules(extra_rules: Sequence[str] = ()) -> RuleSet:
    """The shipped rule files plus the user's own (cached per process by the engine)."""
    return RuleSet.from_package(extra=list(extra_rules))


@dataclass
class Derived:
    """The derived relations of one solve, as Python sets/dicts."""
    facts: Facts
    relations: dict[str, list[tuple]] = field(default_factory=dict)

    def rel(self, name: str) -> list[tuple]:
        return self.relations.get(name, [])


def derive(program: ir.Program, backend: Optional[str] = None,
           extra_rules: Sequence[str] = (), keep_db: bool = False, engine: str = "pydatalog"):
    """Extract facts, evaluate the rules, return (Derived, Database or None).

    ``engine`` names the Datalog engine (``tilemem.datalog.ENGINES``: "pydatalog", the
    default and reference, or "clingo"); every engine runs the same rule files."""
    backend = normalize_backend(backend)
    facts = extract(program, backend)
    rules = load_rules(extra_rules)
    db = Database(rules, engine=engine)
    try:
        for pred, rows in facts.items():
            if rows:
                db.add_facts(pred, rows)
        derived = Derived(facts)
        for name in RESULT_RELATIONS:
            derived.relations[name] = db.relation(name)
    except BaseException:
        db.close()
        raise
    if keep_db:
        return derived, db
    db.close()
    return derived, None


def derive_residency(program: ir.Program, backend: Optional[str],
                     extra_rules: Sequence[str] = (), engine: str = "pydatalog") -> Derived:
    """Phase 4 over the whole (phase-3 rewritten) program: which statements leave their loop."""
    facts = extract_program(program, backend)
    db = Database(load_rules(extra_rules), engine=engine)
    try:
        for pred, rows in facts.items():
            if rows:
                db.add_facts(pred, rows)
        derived = Derived(facts)
        for name in RESIDENCY_RESULTS:
            derived.relations[name] = db.relation(name)
    finally:
        db.close()
    return derived


RESIDENCY_RESULTS = ("hoist", "residency_hoisted", "residency_declined", "total_footprint",
                     "backend_capacity")
