"""Phase 4's solve: the residency rules over the facts of the whole (phase-3 rewritten)
program, which statements leave their loop and why the others stay.

The same evaluation as phases 0-3 (``tilemem.infer.solver``): a fresh, isolated database,
loaded with the input relations the read relations depend on.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Sequence

from tilemem import ir
from tilemem.datalog import DEFAULT_ENGINE
from tilemem.datalog.engine import gc_paused
from tilemem.facts.extract import StatementIndex
from tilemem.infer.solver import evaluate, inputs_read, load_rules
from tilemem.residency.facts import extract_program
from tilemem.residency.verdicts import VERDICT_RELATIONS

__all__ = ["RESIDENCY_RESULTS", "ResidencyReads", "derive_residency", "residency_reads"]

# The phase-4 relations: hoists (read by the hoisting), and what the verdicts are worded from.
RESIDENCY_RESULTS = ("hoist", *VERDICT_RELATIONS)


class ResidencyReads:
    """What the residency rules read of their inputs, for a solve that loads only that
    (:func:`residency_reads`): ``spaces``, the memory spaces whose tiles they ask about
    (their ``matmul_operand_space`` facts); ``ops``, ``(use ops, unread call ops, defines
    ops)``: the ops whose statements' uses they read, the op table's ops whose calls they
    never read, and the ops whose statements' definitions they read in every function
    (``use_read_op``, ``call_unread_op``, ``defines_read_op``: rules/p4_residency/reads.dl),
    or None (every row) with user rules, which may read any row; ``kinds``, the kinds of
    var whose ``declared`` rows they read (``declared_read_kind``), or None (every kind)
    with user rules."""
    __slots__ = ("spaces", "ops", "kinds")

    def __init__(self, spaces: frozenset, ops: Optional[tuple], kinds: Optional[frozenset] = None):
        self.spaces, self.ops, self.kinds = spaces, ops, kinds


def residency_reads(extra_rules: Sequence[str], read, rules=None) -> Optional[ResidencyReads]:
    """What the residency rules of ``extra_rules`` read, for a solve that loads only the
    inputs it reads (``read``); None (every row of every space) for a database kept whole
    (``read`` None).  ``rules``: the rule set of ``extra_rules``, if the caller has it.
    The ops are derived from the op table once and kept with the rule set, in its disk
    cache too."""
    if read is None:
        return None
    rules = rules or load_rules(extra_rules)
    spaces = frozenset(row[0] for row in rules.fact_rows.get("matmul_operand_space", ()))
    if extra_rules:
        return ResidencyReads(spaces, None)
    got = rules.compiled("rows:residency_reads", _ops_read)
    kinds = frozenset(row[0] for row in rules.fact_rows.get("declared_read_kind", ()))
    return ResidencyReads(spaces, (frozenset(got[0]), frozenset(got[1]), frozenset(got[2])),
                          kinds or None)


def _ops_read(rules) -> list:
    """The ops of ``use_read_op``, ``call_unread_op`` and ``defines_read_op``: relations of
    the op table's roles alone (plain data, for the rule set's disk cache)."""
    from tilemem.datalog.database import Database
    names = ("use_read_op", "call_unread_op", "defines_read_op")
    db = Database(rules)
    try:
        got = db.relations(names)
        return [[row[0] for row in got[name]] for name in names]
    finally:
        db.close()


def derive_residency(program: ir.Program, backend: Optional[str],
                     extra_rules: Sequence[str] = (), engine: str = DEFAULT_ENGINE,
                     origins: bool = True, relations: Sequence[str] = RESIDENCY_RESULTS,
                     keep_db: bool = False, limits=None, stmts: Optional[StatementIndex] = None):
    """Phase 4 over the whole (phase-3 rewritten) program, which statements leave their
    loop: return (Derived, Database or None), as :func:`derive` does.  ``relations``: the
    derived relations to read, by default what the emitter and the verdicts need;
    ``stmts``: the statement index the extraction fills (the pipeline's)."""
    rules = load_rules(extra_rules)              # (looked up once: ~0.1 ms a lookup)
    read = inputs_read(relations, extra_rules, keep_db, rules)
    stmts = {} if stmts is None else stmts
    with gc_paused():
        facts = extract_program(program, backend, origins, read, stmts,
                                residency_reads(extra_rules, read, rules))
    return evaluate(facts, relations, extra_rules, engine, keep_db, limits, read, stmts,
                    rules=rules)
