"""The clingo engine: the same rule files, grounded by clingo's C++ grounder.

clingo (Potassco, MIT licence; a dependency of tilemem, and its default engine)
is an answer-set solver whose grounder, gringo, evaluates stratified Datalog with
negation, integer arithmetic and comparisons completely: after grounding, every atom
of a stratified program is known to be a fact, so no solving is needed.  It is a
bottom-up, semi-naive, indexed evaluator, tens of times faster per derived tuple than
pyDatalog, and it has no per-stratum overhead to speak of.

Translation (rules are ours, so they become program text; facts never do):

* a predicate ``name`` becomes ``t_name`` (no clash with clingo's keywords);
  ``p()`` becomes ``t_p``;
* ``!atom`` becomes ``not atom``; comparisons and ``+``/``-`` are written as they are;
  aggregates become clingo's ``#count``/``#sum``/``#min``/``#max`` (see
  :func:`_aggregate_text`);
  strings are quoted with clingo's escapes (``\\"``, ``\\\\``, ``\\n``);
* input facts (from Python, and the ground facts of the rule files) never become
  program text: each row is added as the fact ``t_p(v0, v1)`` through clingo's backend
  interface, its values built as clingo symbols (``clingo.Number`` / ``clingo.String``).

Evaluation: the first ``solve_many`` grounds the facts of the input relations the
requested strata read, then the rules of those strata, in one grounding call (later
calls ground further strata on top: clingo is multi-shot).  Relations are converted
back to Python tuples only when someone reads them.

Semantics are the rule language's (see :mod:`.syntax`): integers order before strings
and strings compare by code point in both engines.  Two differences, both outside
what valid tilemem programs produce: clingo's integers are 32-bit (a value outside
[-2**31, 2**31) is refused with an :class:`EvaluationError`; an arithmetic result
outside it wraps around, as clingo computes it, and is not detected), and arithmetic on
a string makes the rule instance silently not apply (pyDatalog raises an error).
"""
from __future__ import annotations

import _thread          # (the locks of threading, without its ~4 M instructions of import)
from array import array
from itertools import chain
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Sequence

from tilemem.datalog import clingo_c
from tilemem.datalog.engine import Engine, PatternTerm, gc_paused
from tilemem.datalog.budget import BudgetExceeded, user_rule_indices
from tilemem.datalog.errors import EvaluationError
from tilemem.datalog.program import RuleSet

__all__ = ["ClingoEngine"]

# clingo's integers: 32-bit.
_INT_MIN, _INT_MAX = -2**31, 2**31 - 1

# One clingo engine call at a time in this process (clingo's Python objects are not
# meant to be shared between threads that run at the same time).
_CLINGO_LOCK = _thread.RLock()

# Input facts go straight into clingo's program through its backend interface: one atom
# ``t_p(args)`` per row, made a fact by a rule with an empty body.  (Handing the rows to
# the grounder as tuple symbols through an external function would also create one
# tuple symbol per row, and clingo keeps every symbol it ever built until the process
# exits: ~20% more memory on large programs.)  The public ``Function`` +
# ``Backend.add_atom`` + ``Backend.add_rule`` cost ~12 us per row; the same three C calls
# on one C array of the relation's values cost ~2 us.  They use the cffi handles clingo's
# own wrappers use, so the fast loader is checked once on a scratch program and dropped
# if they change.
#
# A loader takes the relation's rows as chunks (the lists the Database handed over, not
# copied), its arity, and ``reps``: the engine's value -> C symbol table, shared by every
# relation (a var id is in a dozen relations; its symbol is built once).
#
# The engine talks to clingo's C library (tilemem.datalog.clingo_c: no import of the
# clingo package and its Python wrappers, ~53 M instructions of a process's start-up);
# where that library cannot be reached so, through the package's public API (below).
def _public_loader(backend, name: str, chunks, arity: int, reps: dict, symbol_of):
    from clingo import Function
    add_atom, add_rule = backend.add_atom, backend.add_rule
    for rows in chunks:
        for r in rows:
            add_rule([add_atom(Function(name, [symbol_of(v) for v in r]))])


def _public_reader(ctl, name: str, arity: int, values: dict, undecided) -> list[tuple]:
    from clingo import SymbolType

    def value(s):
        t = s.type
        if t == SymbolType.Number:
            return s.number
        if t == SymbolType.String:
            return s.string
        raise EvaluationError(f"clingo derived a value outside the rule language: {s}")
    rows = []
    for a in ctl.symbolic_atoms.by_signature(name, arity):
        if not a.is_fact:
            raise undecided
        rows.append(tuple(map(value, a.symbol.arguments)))
    return rows


class _PublicControl:
    """The calls of :class:`tilemem.datalog.clingo_c.Control` through the clingo
    package's public API (for a clingo build whose C library is not reached so)."""

    def __init__(self, arguments: list[str]):
        import clingo
        from clingo.backend import Observer
        self.ctl = clingo.Control(arguments)
        # the ground program goes to no one (see _Unsolved): not to clasp, the solver
        self.ctl.register_observer(type("_Unsolved", (Observer,), {})(), replace=True)
        self._rep = self.ctl._rep                # what clingo.ast.ProgramBuilder reads

    def backend_begin(self):
        return self.ctl.backend().__enter__()

    @staticmethod
    def backend_end(backend) -> None:
        backend.__exit__(None, None, None)

    def add(self, part: str, text: str) -> None:
        self.ctl.add(part, [], text)

    def ground(self, part: str, context=None) -> None:
        self.ctl.ground([(part, [])], context=context)

    def symbolic_atoms(self):
        return self.ctl

    def atom_count(self) -> int:
        return len(self.ctl.symbolic_atoms)

    def close(self) -> None:
        self.ctl = None


_Control, _load_rows, _read_rows = _PublicControl, _public_loader, _public_reader
try:
    _ffi, _lib = clingo_c.ffi, clingo_c.lib
    if _lib is None:
        raise ImportError("clingo's C library is not reached without its package")

    def _make_fast_loader():
        create = _lib.clingo_symbol_create_function
        add_atom = _lib.clingo_backend_add_atom
        add_rule = _lib.clingo_backend_rule
        make_string = _lib.clingo_symbol_create_string
        make_number = _lib.clingo_symbol_create_number
        new = _ffi.new
        from_buffer = _ffi.from_buffer
        NULL = _ffi.NULL

        # The atoms' symbols of the rows of rule files (tuples, the rule set's: the op
        # table's ~1,900 rows are loaded by every engine), by (rows, relation): a symbol
        # is clingo's for the life of the process, whichever program reads it
        made: dict = {}

        def load(handle, name: str, chunks, arity: int, reps: dict, symbol_of):
            # handle: the backend's (C); reps: value -> C symbol (an int never equals a
            # str; bools never get here)
            cname = name.encode("ascii")
            atom = new("clingo_atom_t*")
            for rows in chunks:
                if type(rows) is tuple:             # a rule file's: its symbols kept
                    key = (id(rows), name)
                    got = made.get(key)
                    if got is None or got[0] is not rows:
                        atoms = new("clingo_symbol_t[]", len(rows))
                        values = _values(rows, reps, symbol_of)
                        for j, i in enumerate(range(0, len(rows) * arity, arity)):
                            if not create(cname, values + i, arity, True, atoms + j):
                                raise EvaluationError(f"clingo: could not add a fact of '{name}'")
                        if len(made) >= 4096:
                            made.clear()
                        made[key] = (rows, atoms)
                    else:
                        atoms = got[1]
                    for i in range(len(rows)):
                        if not (add_atom(handle, atoms + i, atom)
                                and add_rule(handle, False, atom, 1, NULL, 0)):
                            raise EvaluationError(f"clingo: could not add a fact of '{name}'")
                    continue
                # a program's rows: each atom's symbol made and added in one step (no
                # array of them: ~1.1 M rows of every fourth corpus kernel)
                values = _values(rows, reps, symbol_of)
                sym = new("clingo_symbol_t*")
                for i in range(0, len(rows) * arity, arity):
                    if not (create(cname, values + i, arity, True, sym)
                            and add_atom(handle, sym, atom)
                            and add_rule(handle, False, atom, 1, NULL, 0)):
                        raise EvaluationError(f"clingo: could not add a fact of '{name}'")

        def _values(rows, reps: dict, symbol_of):
            """The C symbols of the rows' values, row after row, as a C array (row i:
            ``values[i*arity ...]``)."""
            try:
                flat = [reps[v] for r in rows for v in r]
            except KeyError:
                sym = new("clingo_symbol_t*")
                # the new values, in the order of the rows (clingo numbers its symbols
                # as they are made: the same rows, the same numbers)
                for v in dict.fromkeys([v for r in rows for v in r if v not in reps]):
                    # a value's symbol straight from C (no Python Symbol object: ~1 us
                    # less a value, and a large program has ~100,000 distinct ones); what
                    # C cannot take (an integer past 32 bits, a NUL) gets symbol_of's error
                    t = type(v)
                    if t is int and _INT_MIN <= v <= _INT_MAX:
                        make_number(v, sym)
                        reps[v] = sym[0]
                    elif t is str and "\0" not in v and make_string(v.encode(), sym):
                        reps[v] = sym[0]
                    else:
                        reps[v] = symbol_of(v)._rep
                flat = [reps[v] for r in rows for v in r]
            # (an array of the machine's integers viewed as C symbols: cffi's conversion
            # of a list of them costs ~4x array's)
            return from_buffer("clingo_symbol_t[]", array("Q", flat))

        return load

    def _make_fast_reader():
        """Read a relation's atoms through the C API: the Python wrappers build a
        SymbolicAtom, a Symbol and a list of argument Symbols per atom (3-4 us); this
        converts each distinct C symbol to a Python value once (``values``)."""
        begin = _lib.clingo_symbolic_atoms_begin
        valid = _lib.clingo_symbolic_atoms_is_valid
        step = _lib.clingo_symbolic_atoms_next
        symbol_at = _lib.clingo_symbolic_atoms_symbol
        fact_at = _lib.clingo_symbolic_atoms_is_fact
        arguments = _lib.clingo_symbol_arguments
        kind = _lib.clingo_symbol_type
        number = _lib.clingo_symbol_number
        string = _lib.clingo_symbol_string
        NUMBER, STRING = _lib.clingo_symbol_type_number, _lib.clingo_symbol_type_string
        new, to_str = _ffi.new, _ffi.string

        def read(atoms, name: str, arity: int, values: dict, undecided) -> list[tuple]:
            # atoms: the control's symbolic atoms (C)
            sig = new("clingo_signature_t*")
            it = new("clingo_symbolic_atom_iterator_t*")
            ok = new("bool*")
            sym = new("clingo_symbol_t*")
            args = new("clingo_symbol_t**")
            size = new("size_t*")
            num = new("int*")
            text = new("char**")
            if not (_lib.clingo_signature_create(name.encode(), arity, True, sig)
                    and begin(atoms, sig, it)):
                raise EvaluationError(f"clingo: cannot read '{name}'")
            rows = []
            while valid(atoms, it[0], ok) and ok[0]:
                if not (fact_at(atoms, it[0], ok) and ok[0]):
                    raise undecided
                symbol_at(atoms, it[0], sym)
                arguments(sym[0], args, size)
                row = []
                for i in range(size[0]):
                    a = args[0][i]
                    v = values.get(a)
                    if v is None:
                        t = kind(a)
                        if t == NUMBER:
                            number(a, num)
                            v = num[0]
                        elif t == STRING:
                            string(a, text)
                            v = to_str(text[0]).decode("utf-8")
                        else:
                            raise EvaluationError(f"clingo derived a value outside the rule "
                                                  f"language in '{name}'")
                        values[a] = v
                    row.append(v)
                rows.append(tuple(row))
                if not step(atoms, it[0], it):
                    raise EvaluationError(f"clingo: cannot read '{name}'")
            return rows

        return read

    def _probe(load, read):
        """The C paths load, ground and read a scratch program as clingo's rules say."""
        probe = clingo_c.Control(["--warn=none"])
        backend = probe.backend_begin()
        load(backend, "p", [[(1, "a")], [(2, "b\u00e9")]], 2, {}, None)
        probe.backend_end(backend)
        probe.add("base", "q(X) :- p(X, \"b\u00e9\"). r(-3, \"x\").")
        probe.ground("base")
        undecided = EvaluationError("undecided")
        atoms = probe.symbolic_atoms()
        if (probe.atom_count() != 4
                or sorted(read(atoms, "p", 2, {}, undecided)) != [(1, "a"), (2, "b\u00e9")]
                or read(atoms, "q", 1, {}, undecided) != [(2,)]
                or read(atoms, "r", 2, {}, undecided) != [(-3, "x")]
                or read(atoms, "s", 1, {}, undecided) != []):
            raise ImportError("unexpected clingo internals")
        probe.close()

    _fast_load, _fast_read = _make_fast_loader(), _make_fast_reader()
    _probe(_fast_load, _fast_read)
    _Control, _load_rows, _read_rows = clingo_c.Control, _fast_load, _fast_read
except Exception:                      # pragma: no cover - another clingo build
    pass



def _make_memory_release():
    """``malloc_trim(0)`` of the C library when it has one (glibc), else a no-op.

    A grounding leaves the C heap full of freed holes sized for the grounder's tables;
    the next program's allocations fit them badly, so the process keeps the pages of
    both (100-200 MB at 50,000 statements).  Handing the free pages back to the system
    when an engine closes keeps the peak at what one grounding needs."""
    # CDLL(None): the symbols already loaded in this process, the C library's among them
    # (ctypes.util.find_library would run /sbin/ldconfig: 60 ms of wall time per start)
    try:
        import ctypes
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except Exception:                   # pragma: no cover - no C library to talk to
        trim = None
    if trim is None:
        return lambda: None
    trim.argtypes = [ctypes.c_size_t]
    return lambda: trim(0)


_trim = None


def _release_free_memory() -> None:
    global _trim
    if _trim is None:
        _trim = _make_memory_release()       # ctypes (~3 ms to import) only when needed
    _trim()


# Below this many ground atoms the freed grounder tables are too small to matter (a corpus
# kernel grounds a few thousand; the 21,000-line MTP kernel millions).
_TRIM_ATOMS = 200_000

_PREFIX = "t_"
_AUX = "j_"                 # auxiliary join predicates (t_ and j_ never clash)


def _quote(s: str) -> str:
    if "\0" in s:
        raise EvaluationError("the clingo engine cannot represent a NUL character in a string")
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _const_text(value) -> str:
    if isinstance(value, str):
        return _quote(value)
    if not _INT_MIN <= value <= _INT_MAX:
        raise EvaluationError(f"the clingo engine's integers are 32-bit: {value} is out of range "
                              f"(use the pydatalog engine)")
    return str(value)


def _term_text(t) -> str:
    if isinstance(t, Const):
        return _const_text(t.value)
    return t.name                           # a variable, or _ (anonymous)


def _atom_text(a: Atom) -> str:
    if not a.args:
        return _PREFIX + a.pred
    return f"{_PREFIX}{a.pred}({','.join(_term_text(t) for t in a.args)})"


def _body_texts(planned, name_anonymous: bool = True) -> list[str]:
    """A rule body's literals in clingo's syntax; with ``name_anonymous``, each anonymous
    variable of a positive atom gets a name of its own (``_N1``, ...).

    gringo projects an atom's anonymous columns away before it joins it (a projected
    relation per literal, built for every rule that reads it): on the wide program
    relations (``stmt(P, _, _, L)``) that cost 3x the join itself (200,000 rows: 0.32-0.40
    s against 0.10-0.11 s with the columns named).  A named column matches each row once,
    as the projection reads each row once; it costs more only where rows that differ in
    it alone meet a further join in the same step, and the rules join on keys (a
    statement, a var, a use).  Negative literals keep ``_``; so do user rules whose
    derivations are counted (tilemem.datalog.budget), so that their count stays what the
    rule language says."""
    out = []
    fresh = 0
    for lit in planned:
        if name_anonymous and isinstance(lit, Atom) and \
                any(isinstance(t, Var) and t.is_anonymous for t in lit.args):
            args = []
            for t in lit.args:
                if isinstance(t, Var) and t.is_anonymous:
                    fresh += 1
                    args.append(f"_N{fresh}")
                else:
                    args.append(_term_text(t))
            out.append(f"{_PREFIX}{lit.pred}({','.join(args)})")
        else:
            out.append(_literal_text(lit))
    return out


def _literal_text(lit) -> str:
    if isinstance(lit, Atom):
        return _atom_text(lit)
    if isinstance(lit, Negation):
        return "not " + _atom_text(lit.atom)
    if isinstance(lit, Comparison):
        return f"{_term_text(lit.left)}{lit.op}{_term_text(lit.right)}"
    if isinstance(lit, Arith):
        return f"{_term_text(lit.target)}=({_term_text(lit.left)}){lit.op}({_term_text(lit.right)})"
    if isinstance(lit, Aggregate):
        return _aggregate_text(lit)
    raise EvaluationError(f"the clingo engine cannot translate {lit!r}")


_CLINGO_AGGREGATES = {"count": "#count", "sum": "#sum", "min": "#min", "max": "#max"}


def _aggregate_text(agg: Aggregate) -> str:
    """``R = #min{ T,L1,..,Ln : body }``: the element tuple is the value followed by every
    local variable of the body (its anonymous ones renamed), so that the aggregate ranges
    over the distinct matches of the body, as the rule language says; ``min``/``max`` of
    nothing (clingo's ``#sup``/``#inf``) make the rule not apply."""
    fresh = 0
    parts = []
    local = sorted(agg.body_names() - set(agg.group))
    for lit in agg.body:
        if isinstance(lit, Atom) and any(isinstance(t, Var) and t.is_anonymous for t in lit.args):
            args = []
            for t in lit.args:
                if isinstance(t, Var) and t.is_anonymous:
                    fresh += 1
                    args.append(f"_Agg{fresh}")
                    local.append(args[-1])
                else:
                    args.append(_term_text(t))
            parts.append(f"{_PREFIX}{lit.pred}({','.join(args)})")
        else:
            parts.append(_literal_text(lit))
    value = _term_text(agg.target) if agg.target is not None else "0"
    elements = ",".join([value, *local])
    result = _term_text(agg.result)
    text = f"{result}={_CLINGO_AGGREGATES[agg.func]}{{{elements}:{','.join(parts)}}}"
    if agg.func == "min":
        text += f",{result}!=#sup"
    elif agg.func == "max":
        text += f",{result}!=#inf"
    return text


def _import_syntax() -> None:
    """The AST classes the translation below tests literals against, imported on first
    translation: a solve reads the translated program from the rule set's JSON program
    and never builds the rule language's AST (see :mod:`.location`)."""
    global Aggregate, Arith, Atom, Comparison, Const, Negation, Var
    from tilemem.datalog.syntax import Aggregate, Arith, Atom, Comparison, Const, Negation, Var


def rule_text(rule) -> str:
    """One rule of the rule language in clingo's syntax (body as written)."""
    _import_syntax()
    return f"{_atom_text(rule.head)} :- {', '.join(_literal_text(l) for l in rule.body)}."


def _tick_text(rule, index: int) -> str:
    """The literal that counts a derivation of a user rule (tilemem.datalog.budget):
    evaluated by gringo once per instance, as its arguments hold the head's variables."""
    names = sorted({v.name for v in rule.head.variables()})
    return f"1 = @tm_tick({', '.join([str(index), *names])})"


def rule_texts(rule, planned, tag: str, tick: Optional[str] = None) -> list[str]:
    """A rule as a chain of binary joins in its planned (written) order.

    gringo picks its own join order, and on rules such as
    ``constrained_use(P, I, V, Op) :- call(P, Op), op_constrained(Op, I), arg(P, I, V), ...``
    its choice can enumerate every op of a slot for every argument (0.65 s instead of
    0.04 s at 10,000 statements, growing faster than the input).  The rule files are
    written for left-to-right evaluation (selective literals first), so a body with
    more than two positive atoms is split into auxiliary rules, one per join step,
    each keeping only the variables still needed (``tag``, the rule's index, makes
    their names unique).  Every segment then joins two relations, whose cost no join
    order can make worse than linear in its inputs and output."""
    _import_syntax()
    positives = [i for i, lit in enumerate(planned) if isinstance(lit, Atom)]
    ticks = [tick] if tick else []
    texts = _body_texts(planned, name_anonymous=tick is None)
    if len(positives) <= 2:
        return [f"{_atom_text(rule.head)} :- {', '.join([*texts, *ticks])}."]
    out = []
    head_vars = {v.name for v in rule.head.variables()}
    current: list[str] = []
    bound: set = set()
    seen_atoms = 0
    step = 0
    for i, lit in enumerate(planned):
        current.append(texts[i])
        # an atom whose variables are all bound is a check on the segment's rows, not a
        # join step: it does not count towards the two joins of a segment (counted, it
        # cut ``def_op(V, P, Op) :- call(P, Op, _), traced_op(Op), assign(P, V)`` in two,
        # an auxiliary relation as large as the head)
        if isinstance(lit, Atom) and not lit.names() <= bound:
            seen_atoms += 1
        bound |= lit.names()
        rest = planned[i + 1:]
        # cut after the second positive atom of the segment, before the next atom that
        # binds a variable: an atom whose variables are all bound already is a check on
        # the segment's rows, not a join, and joins the segment (an auxiliary relation
        # per check was 23% of the ground atoms).  (When this was first tried, with the
        # anonymous columns still projected, the peak memory at 50,000 statements varied
        # by 200 MB from run to run; with them named it is 887-890 MB over 3 runs.)
        if seen_atoms >= 2 and rest and isinstance(rest[0], Atom) and not rest[0].names() <= bound:
            needed = set(head_vars)
            for r in rest:
                needed |= r.names()
            keep = sorted(bound & needed)
            step += 1
            name = f"{_AUX}{tag}_{step}"
            aux = f"{name}({','.join(keep)})" if keep else name
            out.append(f"{aux} :- {', '.join(current)}.")
            current = [aux]
            bound = set(keep)
            seen_atoms = 1
    out.append(f"{_atom_text(rule.head)} :- {', '.join(current + ticks)}.")
    return out


def compile_rules(rules: RuleSet) -> dict[str, list]:
    """The rules in clingo's syntax: predicate -> [its rules' lines (see
    :func:`rule_texts`), the predicates their bodies read, per rule: [how many of the
    lines are its, the predicates of its positive atoms]].  Computed once per rule set
    (and kept in its disk cache: see :meth:`RuleSet.compiled`)."""
    _import_syntax()
    out: dict[str, list] = {}
    counted = user_rule_indices(rules)           # user rules count their derivations
    for idx, (rule, planned) in enumerate(zip(rules.rules, rules.planned)):
        texts, reads, joins = out.setdefault(rule.head.pred, [[], [], []])
        tick = _tick_text(rule, idx) if idx in counted else None
        lines = rule_texts(rule, planned, str(idx), tick)
        texts.extend(lines)
        joins.append([len(lines), sorted({lit.pred for lit in planned if isinstance(lit, Atom)})])
        for a in rule.body_atoms():
            if a.pred not in reads:
                reads.append(a.pred)
    return out


# The live lines by (program, strata, relations without rows): a process solving kernel after
# kernel (a batch, an editor) meets the same few combinations again and again.
_LIVE_LIMIT = 256
_live_memo: dict = {}


def _live_lines(program: dict, todo: Sequence[str], empty: set, has_rows: set) -> list[str]:
    """:func:`_live_lines_of`, kept per combination of its arguments (the program by
    identity: the rule set keeps its compiled program for its life)."""
    key = (id(program), tuple(todo), frozenset(empty), frozenset(has_rows))
    got = _live_memo.get(key)
    if got is not None and got[0] is program:
        return got[1]
    lines = _live_lines_of(program, todo, empty, has_rows)
    if len(_live_memo) >= _LIVE_LIMIT:
        _live_memo.clear()
    _live_memo[key] = (program, lines)
    return lines


def _live_lines_of(program: dict, todo: Sequence[str], empty: set, has_rows: set) -> list[str]:
    """The lines of the rules of ``todo`` that can derive something.  A rule one of
    whose positive atoms reads a relation with no rows matches nothing, so it is not
    handed to clingo: ``empty`` are the input relations without rows, and, to a
    fixpoint, every predicate of ``todo`` without rows of its own (``has_rows``) none of
    whose rules is left.  (A small kernel has no rows for many of the relations the
    rules join: those rules would cost the grounder their setup alone, ~40 us a line.)"""
    rules = []                  # (head, lines, predicates of its positive atoms)
    for p in todo:
        texts, _, joins = program.get(p, ((), (), ()))
        at = 0
        for n, positive in joins:
            rules.append((p, texts[at:at + n], positive))
            at += n
    dead = set(empty)
    while True:
        live = [r for r in rules if dead.isdisjoint(r[2])]
        derivable = {r[0] for r in live}
        more = {p for p in todo if p not in derivable and p not in has_rows and p not in dead}
        if not more:
            return [line for _, lines, _ in live for line in lines]
        dead |= more


# Rule lines parsed into clingo's syntax tree, kept for the life of the process: adding a
# parsed rule costs clingo a third of parsing its text again (a warm process -- a batch,
# an editor -- solves with the same few hundred lines again and again).  A line is parsed
# the second time it is seen, so a process that solves once parses nothing twice.
_SEEN_LIMIT = 50_000
_seen_lines: set = set()
_parsed_lines: dict = {}


def _split_parsed(lines: list[str]) -> tuple[list, list[str]]:
    """(the parsed statements of the lines parsed before, the text of the others),
    parsing the lines seen once before now."""
    parsed, text, again = [], [], []
    for line in lines:
        stm = _parsed_lines.get(line)
        if stm is not None:
            parsed.append(stm)
        elif line in _seen_lines:
            again.append(line)
        else:
            text.append(line)
    if len(_seen_lines) + len(text) > _SEEN_LIMIT:
        _seen_lines.clear()
        _parsed_lines.clear()
    _seen_lines.update(text)
    if again:
        from clingo.ast import parse_string
        if not _parsed_lines:
            # freed before the interpreter tears clingo's modules down (a parsed
            # statement's finaliser calls into them)
            import atexit
            atexit.register(_parsed_lines.clear)
        stms: list = []
        try:
            parse_string("\n".join(again), stms.append)
        except RuntimeError:
            stms = []
        if len(stms) == len(again) + 1:       # "#program base." and a statement a line
            _parsed_lines.update(zip(again, stms[1:]))
            parsed.extend(stms[1:])
        else:                                  # pragma: no cover - a line of two statements
            text.extend(again)
    return parsed, text


def _add_parsed(ctl, part: str, lines: list[str]) -> list[str]:
    """Add the lines parsed before to ``part`` of ``ctl``; return the others.  (No parsed
    statement outlives this call but in ``_parsed_lines``, which is freed at exit.)"""
    parsed, text = _split_parsed(lines)
    if parsed:
        from clingo.ast import Program, ProgramBuilder
        with ProgramBuilder(ctl) as builder:
            builder.add(Program(parsed[0].location, part, []))
            for stm in parsed:
                builder.add(stm)
    return text


# The control's ground program goes to an observer that observes nothing, registered
# with ``replace=True``: it takes the ground program in place of clasp, clingo's solver,
# which nothing here runs: a stratified program is decided by grounding alone (every
# atom is a fact, ``is_fact``, read from the grounder's own tables).  clasp's copy of the
# ground program was ~45 MB of the 21,000-line MTP kernel's 350 MB peak.


class _Ticks:
    """The grounding context: ``@tm_tick(rule, ...)`` counts a user rule's derivation
    (only a program with user rules has such terms)."""

    def __init__(self, budget):
        from clingo import Number
        self.budget = budget
        self._one = Number(1)

    def tm_tick(self, index, *args):
        if self.budget is not None:
            self.budget.tick(index.number)
        return self._one


class ClingoEngine(Engine):
    """Evaluates a RuleSet with clingo's grounder (see the module docstring)."""

    name = "clingo"
    retains_memory = True        # clingo never frees a symbol (potassco/clingo#203)
    batch = True                 # the Database hands over all strata it needs at once
    budget = None                # a tilemem.datalog.budget.Budget, set by the Database

    def __init__(self, rules: RuleSet, table_rows: Optional[dict] = None):
        self.rules = rules
        self._lock = _thread.RLock()
        # input rows not yet grounded: relation -> chunks (the row lists handed over)
        self._facts: dict[str, list[Sequence[tuple]]] = {
            pred: [rows] for pred, rows in rules.fact_rows.items()}
        for pred, rows in (table_rows or {}).items():
            self._facts[pred] = [rows]
        # per predicate: the clingo text of its rules, and the predicates they read
        self._program: dict[str, list] = rules.compiled("clingo", compile_rules)
        self._reps: dict = {}                        # value -> C symbol (fast loader)
        self._read_values: dict = {}                 # C symbol -> value (fast reader)
        self._grounded_inputs: set[str] = set()
        self._empty: set[str] = set()                # grounded inputs that had no rows
        self._solved: set[str] = set()
        self._rows: dict[str, list[tuple]] = {}
        self._symbols: dict = {}                     # (type, value) -> Symbol
        self._parts = 0
        self._ctl = _Control(["--warn=none"])      # its ground program goes to no one
        self._closed = False

    # ------------------------------------------------------------------ values

    def _symbol(self, v):
        key = (type(v), v)
        s = self._symbols.get(key)
        if s is None:
            if type(v) is int:
                if not _INT_MIN <= v <= _INT_MAX:
                    raise EvaluationError(f"the clingo engine's integers are 32-bit: {v} is out "
                                          f"of range (use the pydatalog engine)")
                from clingo import Number
                s = Number(v)
            else:
                if "\0" in v:
                    raise EvaluationError("the clingo engine cannot represent a NUL character "
                                          "in a string")
                from clingo import String
                s = String(v)
            self._symbols[key] = s
        return s

    # ------------------------------------------------------------------ Engine API

    def add_facts(self, pred: str, rows: Sequence[tuple]) -> None:
        with _CLINGO_LOCK, self._lock:
            if pred in self._grounded_inputs:
                raise EvaluationError(f"facts of '{pred}' added after it was grounded")
            self._facts.setdefault(pred, []).append(rows)

    def solve(self, component: Sequence[str]) -> dict[str, list[tuple]]:
        self.solve_many([component])
        return {p: self.rows(p) for p in component}

    def solve_many(self, components: Sequence[Sequence[str]]) -> None:
        """Ground the rules of every predicate of ``components`` (all lower strata are
        already solved or among them)."""
        # clingo's objects and ours hold no reference cycles: no collector while grounding
        with _CLINGO_LOCK, self._lock, gc_paused():
            self._check_open()
            preds = self.rules.predicates
            todo = [p for comp in components for p in comp if p not in self._solved]
            if not todo:
                return
            inputs = set()
            program = self._program
            for p in todo:
                for q in program.get(p, ((), ()))[1]:
                    if not preds[q].is_derived and q not in self._grounded_inputs:
                        inputs.add(q)
            has_rows = set()
            for p in todo:                 # rule-file facts (or input rows) of a derived predicate
                if self._facts.get(p):
                    inputs.add(p)
                    has_rows.add(p)
            facts = []
            zero_arity = []
            for q in sorted(inputs):
                # an input relation (or one with only rule-file facts): its rows become facts
                self._grounded_inputs.add(q)
                chunks = self._facts.pop(q, None)
                if not chunks or not any(chunks):
                    self._empty.add(q)
                    continue
                if preds[q].arity == 0:
                    zero_arity.append(f"{_PREFIX}{q}.")
                else:
                    facts.append((_PREFIX + q, chunks, preds[q].arity))
            lines = [*_live_lines(program, todo, self._empty, has_rows), *zero_arity]
            self._parts += 1
            part = f"s{self._parts}"
            try:
                if facts:
                    backend = self._ctl.backend_begin()
                    try:
                        for name, chunks, arity in facts:
                            _load_rows(backend, name, chunks, arity, self._reps, self._symbol)
                    finally:
                        self._ctl.backend_end(backend)
                    # the value -> symbol tables only spare a load building a value's
                    # symbol twice (clingo keeps every symbol anyway): freed before the
                    # grounding, where the peak memory is (~5 MB on the MTP kernel)
                    self._reps, self._symbols = {}, {}
                self._ctl.add(part, "\n".join(_add_parsed(self._ctl, part, lines)))
                # a user rule's derivations are counted by @tm_tick (see _tick_text)
                ticks = any("@tm_tick" in line for line in lines)
                self._ctl.ground(part, _Ticks(self.budget) if ticks else None)
            except BudgetExceeded:
                raise
            except RuntimeError as err:
                raise EvaluationError(f"clingo: {err}") from None
            self._solved.update(todo)

    def rows(self, pred: str) -> list[tuple]:
        """The tuples of a solved or input relation (converted on first use)."""
        with _CLINGO_LOCK, self._lock, gc_paused():
            got = self._rows.get(pred)
            if got is not None:
                return got
            info = self.rules.predicates[pred]
            if pred not in self._solved and pred not in self._grounded_inputs:
                rows = list(dict.fromkeys(chain.from_iterable(self._facts.get(pred, ()))))
                self._rows[pred] = rows
                return rows
            rows = _read_rows(self._ctl.symbolic_atoms(), _PREFIX + pred, info.arity, self._read_values,
                              EvaluationError(f"clingo left '{pred}' undecided: the program "
                                              f"is not stratified as expected"))
            self._rows[pred] = rows
            return rows

    def lookup(self, pred: str, pattern: Sequence[PatternTerm]) -> list[tuple]:
        rows = self.rows(pred)
        consts = [(i, v) for i, (kind, v) in enumerate(pattern) if kind == "const"]
        same: dict[str, int] = {}
        pairs = []
        for i, (kind, v) in enumerate(pattern):
            if kind == "var" and v is not None:
                if v in same:
                    pairs.append((same[v], i))
                else:
                    same[v] = i

        def match(r):
            for i, v in consts:
                if type(r[i]) is not type(v) or r[i] != v:
                    return False
            return all(type(r[i]) is type(r[j]) and r[i] == r[j] for i, j in pairs)

        return [r for r in rows if match(r)]

    def _check_open(self):
        if self._closed:
            raise RuntimeError("the Datalog database is closed")

    def close(self) -> None:
        with _CLINGO_LOCK, self._lock:
            large = self._ctl is not None and self._ctl.atom_count() >= _TRIM_ATOMS
            self._closed = True
            if self._ctl is not None:
                self._ctl.close()
            self._ctl = None
            self._facts = {}
            self._reps = {}
            self._read_values = {}
            self._rows = {}
            self._symbols = {}
            if large:
                _release_free_memory()
