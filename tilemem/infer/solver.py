"""Run the rules over a program's facts and collect the solution (phases 0-3; phase 4's
solve, ``tilemem.residency.solve``, runs through the same evaluation).

The solver is glue: facts in (``tilemem.facts.extract``), rules evaluated by the Datalog
engine (``tilemem.datalog``), derived relations out.  It computes nothing about
spaces or moves itself.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Sequence

from tilemem import ir
from tilemem.backends import normalize_backend
from tilemem.datalog import DEFAULT_ENGINE, Database, RuleSet
from tilemem.datalog.budget import Budget
from tilemem.datalog.database import engine_class
from tilemem.datalog.errors import EvaluationError
from tilemem.datalog.engine import gc_paused
from tilemem.datalog.keys import key_conflicts
from tilemem.facts.extract import Facts, StatementIndex, extract
from tilemem.records import DICT, Fresh, Record, record

# The derived relations the emitter and the library read back from phases 0-3 (what they
# depend on, demand included, is evaluated; reading a row back costs ~2 us).
RESULT_RELATIONS = (
    "space", "resolved_function", "move_at", "move_use", "move_blayout", "move_slayout",
    "move_slot", "retarget", "rederive", "recreated_iter_arg", "name_hint", "fresh_redefinition",
    "contract_break", "type_source",
)


def load_rules(extra_rules: Sequence[str] = ()) -> RuleSet:
    """The shipped rule files plus the user's own (cached per process by the engine)."""
    return RuleSet.from_package(extra=list(extra_rules))


@record(extras=True)
class Derived(Record):
    """The derived relations of one solve, as Python sets/dicts."""
    def __init__(self, facts: Facts, relations: dict[str, list[tuple]] = DICT):
        self.facts = facts
        self.relations = relations.factory() if type(relations) is Fresh else relations

    def rel(self, name: str) -> list[tuple]:
        return self.relations.get(name, [])



def unread_user_relations(rules: RuleSet, read: Sequence[str]) -> list[tuple[str, object]]:
    """``(relation, where it is first defined)`` for every relation a user file defines
    (facts or rule heads) that none of the ``read`` relations depends on: whatever the
    user wrote there cannot change the result (a typo, or a relation of another phase)."""
    users = rules.user_sources()
    if not users:
        return []
    needed = rules.depends_on(read)
    first: dict[str, object] = {}
    for item in (*rules.facts, *rules.rules):
        loc = item.loc
        if loc is not None and loc.file in users and item.head.pred not in needed:
            prev = first.get(item.head.pred)
            if prev is None or (loc.file, loc.line, loc.col) < (prev.file, prev.line, prev.col):
                first[item.head.pred] = loc
    return sorted(first.items(), key=lambda kv: (kv[1].file, kv[1].line, kv[1].col))


def budget_for(rules: RuleSet, limits=None) -> Optional[Budget]:
    """The budget of the user rules of ``rules`` under ``limits`` (default: the current
    ones, tilemem.limits), or None when there are no user rules to bound."""
    if not rules.user_sources():
        return None
    from tilemem.limits import current_limits
    limits = limits or current_limits()
    return Budget(limits.max_facts, limits.max_seconds)


class LocatedEvaluationError(EvaluationError):
    """An evaluation that cannot give an answer, because of the statement at
    ``line``/``col`` of the program (None when no statement is known)."""

    def __init__(self, message: str, line: Optional[int], col: Optional[int]):
        super().__init__(message)
        self.line, self.col = line, col

    def __reduce__(self):
        # pickled as made (an evaluation run in a child process raises it in the parent)
        return type(self), (str(self), self.line, self.col)


class ValueOutOfRange(LocatedEvaluationError):
    """A fact holds an integer the engine cannot represent (clingo: 32 bits)."""


class KeyViolation(LocatedEvaluationError):
    """The rules derived two rows of a keyed relation for one key (``.key``): two
    spaces for one tile, two moves for one operand.  Never a mixed answer."""


def _statement_of(facts: Facts, stmts: StatementIndex, columns: Sequence[str], row: tuple):
    """The program statement a fact row is about: its ``pos`` column's, else the one
    that defines its ``var`` column's var (None when neither is known)."""
    pos = row[columns.index("pos")] if "pos" in columns else None
    if pos is None and "var" in columns:
        var = row[columns.index("var")]
        for pred in ("assign", "defines"):
            for p, v in facts.rows.get(pred, ()):
                if v == var:
                    pos = p
                    break
            if pos is not None:
                break
    return stmts.get(pos, (None, None))[1] if pos is not None else None


def _key_violation(facts: Facts, stmts: StatementIndex, db: Database, conflict) -> KeyViolation:
    """The located error of a key conflict, naming the rules that derived each row
    (searched for only when there is a conflict: a solve pays nothing for it)."""
    from tilemem.datalog.keys import key_of
    from tilemem.datalog.syntax import same_value
    from tilemem.explain.nodes import format_fact
    from tilemem.explain.search import Explainer
    from tilemem.explain.sourcemap import rule_file_name
    explainer = Explainer(db)
    rel = conflict.relation

    def derived_by(row) -> str:
        locs = [f.loc for f in db.rules.predicates[rel].facts
                if all(same_value(t.value, v) for t, v in zip(f.head.args, row))]
        locs += [d.rule.loc for d in explainer.derivations(rel, tuple(row))]
        shown = list(dict.fromkeys(f"{rule_file_name(loc.file)}:{loc.line}"
                                   for loc in locs if loc is not None))
        return f"derived by {', '.join(shown)}" if shown else "derived by no rule found"

    first, second = conflict.rows
    key = ", ".join(f"{c} {format_fact('', [v])[1:-1]}" for c, v in conflict.key_values().items())
    decl = key_of(db.rules, rel)
    where = (f" ({decl} at {rule_file_name(decl.loc.file)}:{decl.loc.line})"
             if decl is not None and decl.loc else "")
    stmt = _statement_of(facts, stmts, conflict.columns, first)
    return KeyViolation(
        f"the rules derived two rows of '{rel}' for {key}, where its key allows one{where}: "
        f"{format_fact(rel, first)} {derived_by(first)}, and "
        f"{format_fact(rel, second)} {derived_by(second)}",
        getattr(stmt, "line", None), getattr(stmt, "col", None))


def _out_of_range(facts: Facts, stmts: StatementIndex, engine: str,
                  err: EvaluationError) -> ValueOutOfRange:
    """The located form of an engine's refusal of a too large integer (searched for only
    when the engine refused one: a solve pays nothing for it)."""
    from tilemem.facts.schema import program_relations
    lo, hi = -2**31, 2**31 - 1
    for pred, rows in facts.items():
        cols = program_relations().get(pred, ())
        for row in rows:
            bad = [v for v in row if type(v) is int and not lo <= v <= hi]
            if not bad:
                continue
            stmt = _statement_of(facts, stmts, cols, row)
            digits = str(bad[0])
            shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits)} digits)"
            return ValueOutOfRange(
                f"integer {shown} is out of the {engine} engine's range "
                f"[-2**31, 2**31 - 1] (the pydatalog engine has no such limit: --engine pydatalog)",
                getattr(stmt, "line", None), getattr(stmt, "col", None))
    return ValueOutOfRange(str(err), None, None)


def inputs_read(names: Sequence[str], extra_rules: Sequence[str], keep_db: bool,
                rules: Optional[RuleSet] = None):
    """The input relations a solve that reads ``names`` extracts and loads: those they
    depend on (phase 4 reads about 70% of the rows a whole extraction makes); None (all)
    for a database kept for explanations and queries.  ``rules``: the rule set of
    ``extra_rules``, if the caller has it (looking it up checks every rule file's
    stamp: ~0.1 ms)."""
    if keep_db:
        return None
    return (rules or load_rules(extra_rules)).depends_on(names)


#: An evaluation asked to run ``apart`` does so, in a child process, from this many
#: input rows on, when its engine keeps memory for the life of the process (clingo:
#: every symbol it built; see tilemem.datalog.forked): the 21,032-line MTP kernel's
#: phases 0-3 load ~112,000 rows, a 1,000-line kernel's ~12,000 (forking would buy
#: it nothing measurable).
FORK_ROWS = 50_000


def evaluate(facts: Facts, names: Sequence[str], extra_rules: Sequence[str], engine: str,
             keep_db: bool, limits=None, read=None, stmts: Optional[StatementIndex] = None,
             apart: bool = False, rules: Optional[RuleSet] = None):
    """Load the facts into a fresh, isolated database and read the named relations
    (``read``: the input relations to load, None: all; see :func:`inputs_read`;
    ``stmts``: the facts' statement index, which locates an error).  ``apart``: a large
    evaluation that keeps no database runs in a child process, so that what its engine
    never frees is not in the way of what the process does next (:data:`FORK_ROWS`).
    ``rules``: the rule set of ``extra_rules``, if the caller has it."""
    stmts = {} if stmts is None else stmts
    if apart and not keep_db and getattr(engine_class(engine), "retains_memory", False) and \
            sum(len(rows) for pred, rows in facts.items()
                if read is None or pred in read) >= FORK_ROWS:
        from tilemem.datalog import forked          # (only a large solve imports it)
        relations = forked.run_forked(_relations, facts, names, extra_rules, engine, limits,
                                      read, stmts, rules)
        if relations is not forked.NOT_RUN:
            return Derived(facts, relations), None
    return _evaluate(facts, names, extra_rules, engine, keep_db, limits, read, stmts, rules)


class StartedDerive:
    """Phases 0-3 of a program evaluated in a forked child (:func:`start_derive`):
    :meth:`result` waits for them, :meth:`cancel` ends the child."""

    def __init__(self, facts: Facts, child, args: tuple):
        self.facts, self.child, self.args = facts, child, args

    def result(self) -> Derived:
        """The derived relations (the child's error raised here; a child that ended
        with no answer: evaluated in this process, which gives that answer or error)."""
        from tilemem.datalog.forked import NOT_RUN
        relations = self.child.result()
        if relations is NOT_RUN:
            relations = _relations(self.facts, *self.args)
        return Derived(self.facts, relations)

    def cancel(self) -> None:
        self.child.cancel()


def start_derive(program: ir.Program, backend: Optional[str], engine: str, limits,
                 stmts: StatementIndex) -> Optional[StartedDerive]:
    """Phases 0-3 of ``program`` as :func:`derive` (no user rules, no database kept, no
    source lines) started in a forked child: the facts are extracted here (``stmts``
    filled), evaluated there while this process goes on.  None where no child can be
    started (:func:`tilemem.datalog.forked.start_forked`)."""
    from tilemem.datalog.forked import start_forked
    rules, read, facts = _extracted(program, backend, (), False, False, stmts)
    args = (RESULT_RELATIONS, (), engine, limits, read, stmts, rules)
    child = start_forked(_relations, facts, *args)
    return None if child is None else StartedDerive(facts, child, args)


def _relations(facts: Facts, names: Sequence[str], extra_rules: Sequence[str], engine: str,
               limits, read, stmts: StatementIndex, rules) -> dict[str, list[tuple]]:
    """The named relations (what a child process hands back)."""
    return _evaluate(facts, names, extra_rules, engine, False, limits, read, stmts,
                     rules)[0].relations


def _evaluate(facts: Facts, names: Sequence[str], extra_rules: Sequence[str], engine: str,
              keep_db: bool, limits, read, stmts: StatementIndex, rules: Optional[RuleSet]):
    """:func:`evaluate` in this process."""
    rules = rules or load_rules(extra_rules)
    table = None if read is None or extra_rules else table_rows_named(rules, facts)
    db = Database(rules, engine=engine, budget=budget_for(rules, limits), table_rows=table)
    # The extractor builds each fact once: its rows are loaded as distinct (see
    # Database.add_facts).
    try:
        for pred, rows in facts.items():
            if rows and (read is None or pred in read):
                db.add_facts(pred, rows, distinct=True)
        derived = Derived(facts, db.relations(names))
        conflicts = key_conflicts(rules, derived.relations)
        if conflicts:
            raise _key_violation(facts, stmts, db, conflicts[0])
    except KeyViolation:
        db.close()
        raise
    except EvaluationError as err:
        db.close()
        if "32-bit" in str(err):
            raise _out_of_range(facts, stmts, engine, err) from None
        raise
    except BaseException:
        db.close()
        raise
    if keep_db:
        return derived, db
    db.close()
    return derived, None


# The op table's rows of the ops a program names, by (rule set, ops): a batch or an
# editor solves again and again with the same few sets (and clingo keeps the symbols of a
# tuple of rows it loaded before, tilemem.datalog.clingo_engine)
_named_rows: dict = {}
_NAMED_KEPT = 256


def op_table(rules: RuleSet) -> list[str]:
    """The op table's relations: those of the rule files whose first column is ``op``."""
    preds = rules.predicates
    return [p for p in rules.fact_rows if p in preds and (preds[p].columns or ("",))[0] == "op"]


def table_rows_named(rules: RuleSet, facts: Facts) -> dict:
    """The op table's rows of the ops the program names, by relation: what its solve's
    rules read of the table.

    The op table is :func:`op_table`'s relations; the ops a program names are the values of the ``op`` columns of its facts (its calls,
    ``call`` and ``call_in``; the names it calls, ``names_op``; ...).  Every rule reads an
    op's rows through an op of the program, never the table whole (``!op(Op, _)`` asks
    about an op a statement calls), so the rows of the other ops derive nothing: a
    corpus kernel calls ~10 of the table's ~300 ops, and its solve loaded and grounded
    ~1,900 rows of them (a quarter of a small kernel's solve).  A solve with user rules,
    which may read the table whole, and a database kept for explanations and queries
    load every row.  (tests/test_op_rows.py: the same solution with every row.)"""
    preds = rules.predicates
    ops = set()
    for pred, rows in facts.items():
        columns = preds[pred].columns if pred in preds else None
        if rows and columns and "op" in columns and pred not in rules.fact_rows:
            i = columns.index("op")
            ops.update(row[i] for row in rows)
    key = (id(rules), frozenset(ops))
    got = _named_rows.get(key)
    if got is not None and got[0] is rules:
        return got[1]
    table = {pred: tuple(row for row in rules.fact_rows[pred] if row[0] in ops)
             for pred in op_table(rules)}
    if len(_named_rows) >= _NAMED_KEPT:
        _named_rows.clear()
    _named_rows[key] = (rules, table)
    return table


def derive(program: ir.Program, backend: Optional[str] = None,
           extra_rules: Sequence[str] = (), keep_db: bool = False, engine: str = DEFAULT_ENGINE,
           origins: bool = True, limits=None, stmts: Optional[StatementIndex] = None,
           apart: bool = False):
    """Phases 0-3 over the InCore functions: return (Derived, Database or None).

    ``engine`` names the Datalog engine (``tilemem.datalog.ENGINES``: "clingo", the
    default, or "pydatalog"); every engine runs the same rule files.
    ``origins=False`` skips the facts' source lines (only explanations read them).
    ``limits``: the budgets of the user rules (tilemem.limits; default: the current ones).
    ``stmts``: the statement index the extraction fills (the caller's: the pipeline's).
    ``apart``: a large evaluation runs in a child process (see :func:`evaluate`)."""
    stmts = {} if stmts is None else stmts
    rules, read, facts = _extracted(program, backend, extra_rules, keep_db, origins, stmts)
    return evaluate(facts, RESULT_RELATIONS, extra_rules, engine, keep_db, limits, read, stmts,
                    apart, rules)


def _extracted(program: ir.Program, backend: Optional[str], extra_rules: Sequence[str],
               keep_db: bool, origins: bool, stmts: StatementIndex) -> tuple:
    """(the rule set, the input relations its phases 0-3 read, the program's facts of
    them): what :func:`derive` and :func:`start_derive` evaluate."""
    rules = load_rules(extra_rules)
    read = inputs_read(RESULT_RELATIONS, extra_rules, keep_db, rules)
    with gc_paused():                # facts are acyclic (see api.solve)
        facts = extract(program, normalize_backend(backend), origins, read, stmts)
    return rules, read, facts
