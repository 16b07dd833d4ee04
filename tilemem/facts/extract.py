"""IR -> Datalog facts.

This module only *describes* the program: which statement sits where, what it
defines and reads, how loops and branches are wired.  It decides nothing about
memory spaces — that is the rules' job (``rules/*.dl``).

Identifiers
  * statements are numbered by a pre-order walk over every InCore function
    (``pos``); a compound statement also gets an ``end`` number, allocated after
    its last nested statement, at which its loop-exit / branch-merge effects happen;
  * statement lists (function bodies, loop and branch bodies) get their own ids;
  * a var is ``<function>:<name>`` so that one database can hold a whole program.

Every fact is also recorded with the source line it comes from (``origin``), so
that explanations can point at the user's text.  The statements the numbers stand for
(the statement index, ``pos -> (function, statement)``) are not facts: the extraction
fills the index its caller owns (``tilemem.pipeline.Pipeline``: one per fact extraction).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterable, Optional

from tilemem import ir
from tilemem.facts.schema import program_relations
from tilemem.ir import names
from tilemem.ir.walk import child_bodies, last_yield, run_nested
from tilemem.records import DICT, Fresh, Record, record

# The relations and their columns are the rule files' typed .input declarations
# (tilemem.facts.schema): this module only fills them.

# A printed name ``<base>_<k>``: possibly the printer's de-duplication suffix (printer.md §6).
# The printer counts from 1 and writes plain decimals: ``x_0`` or ``x_01`` is never one.
_SUFFIXED = re.compile(r"^(.+)_([1-9][0-9]*)$")

_DIGITS = frozenset("0123456789")

# Enum namespaces whose last component is a memory space.
_SPACE_ENUMS = {("pl", "Mem"), ("pl", "MemorySpace")}


def space_of_expr(e: ir.Expr) -> Optional[str]:
    """``pl.Mem.Mat`` / ``pl.MemorySpace.Mat`` -> ``"Mat"``."""
    if isinstance(e, ir.Dotted) and len(e.parts) == 3 and tuple(e.parts[:2]) in _SPACE_ENUMS:
        return e.parts[2]
    return None



def pypto_statement_count(body: list[ir.Stmt], owner: Optional[ir.Stmt]) -> int:
    """How many statements the body holds in PyPTO's IR, which the printed text shows
    slightly differently (printer.md §4): a ``pl.while_`` body's leading ``pl.cond(...)``
    line is its condition, not a statement; a ``pl.split_aiv`` / ``pl.spmd`` loop's
    index is the binding ``i = tile.get_subblock_idx()`` / ``tile.get_block_idx()`` that
    opens the body, printed as the loop var."""
    n = len(body)
    if isinstance(owner, ir.For):
        if owner.kind == "while_" and body and isinstance(body[0], ir.EvalStmt) \
                and isinstance(body[0].expr, ir.Call) and body[0].expr.func.endswith(".cond"):
            n -= 1
        elif owner.kind in ("split_aiv", "spmd") and owner.loop_var:
            n += 1
    return n


# The statements that hold bodies (ir.walk.child_bodies).
_NESTING = (ir.For, ir.If, ir.While, ir.With)

# Loop kinds that PyPTO models as ForStmt (iter-args seeded and promoted); pl.while_
# is a WhileStmt, pl.spmd / pl.split_aiv are scopes.
FOR_KINDS = {"range", "parallel", "unroll", "pipeline"}


# The relations whose rows the extractors make distinct: each row holds a number given
# once (a statement's, a statement list's, a use's, a call site's; with an argument's
# or a return var's place), or is made once per var id (var, name_suffix, given_hint),
# op (called_op) or function name and place (alloc_seq).  The others are made distinct
# after extraction (a branch's return var is declared by both arms, ...).
_DISTINCT = frozenset((
    "var", "name_suffix", "given_hint", "called_op",
    "stmt", "assign", "assign_type", "alias", "call", "arg", "arg_other", "stmt_end", "loop",
    "loop_bounds",
    "bridge", "while_init", "while_return", "loop_iter", "loop_init", "loop_return",
    "carried", "carried_init", "carried_return",
    "loop_yield", "branch", "branch_yield", "list_in_stmt", "body_len",
    "use", "callsite", "callsite_arg", "call_result", "alloc_seq",
))


def distinct_rows(facts: "Facts") -> None:
    """Keep each row once, in first-seen order (the relations of ``_DISTINCT`` have no
    duplicate)."""
    rows = facts.rows
    for pred, got in rows.items():
        if pred not in _DISTINCT:
            rows[pred] = list(dict.fromkeys(got))


# A new rows table per Facts: a list per relation, made on first use.
_FACTS_ROWS = Fresh(lambda: defaultdict(list))


@record(extras=True)
class Facts(Record):
    def __init__(
            self,
            rows: dict[str, list[tuple]] = _FACTS_ROWS,
            # var id -> (function name, plain name)
            vars: dict[str, tuple[str, str]] = DICT,
            # (pred, row) -> source line, for explanations; None when not recorded (a solve
            # does not need it, and it is one dict entry per fact)
            origin: Optional[dict[tuple, int]] = DICT,
            # the relations to keep (None: all); the rows of the others are not made
            only: Optional[frozenset] = None,
    ):
        self.rows = rows.factory() if type(rows) is Fresh else rows
        self.vars = vars.factory() if type(vars) is Fresh else vars
        self.origin = origin.factory() if type(origin) is Fresh else origin
        self.only = only

    def add(self, pred: str, *row, line: Optional[int] = None):
        if self.only is not None and pred not in self.only:
            return
        self.rows[pred].append(row)
        if line is not None and self.origin is not None:
            self.origin.setdefault((pred, row), line)

    def appender(self, pred: str, at: "Extractor"):
        """``add`` for one relation, as a function of one row (a tuple), for the extractors'
        commonest rows (a large program makes a million): without source lines, the
        bound ``append`` of the relation's rows (no Python call per row); with them, one
        that records ``at.line`` (the line of what the extractor describes) as the row's
        origin.  A relation not kept gets a function that drops the row."""
        if self.only is not None and pred not in self.only:
            return _drop
        rows = self.rows[pred]
        origin = self.origin
        if origin is None:
            return rows.append

        def add(row):
            rows.append(row)
            if at.line is not None:
                origin.setdefault((pred, row), at.line)
        return add

    def drop_empty(self) -> None:
        """Forget the relations no row was made for (``appender`` makes each one's list)."""
        rows = self.rows
        for pred in [pred for pred, got in rows.items() if not got]:
            del rows[pred]

    def wants(self, pred: str) -> bool:
        """Whether rows of ``pred`` are kept (an extractor skips the work of the others)."""
        return self.only is None or pred in self.only

    def items(self) -> Iterable[tuple[str, list[tuple]]]:
        """Every relation of the schema (empty ones too), in its order."""
        for pred in program_relations():
            yield pred, self.rows.get(pred, [])


def _drop(row) -> None:
    """The appender of a relation not kept (Facts.appender)."""


# The statement index of one fact extraction: pos -> (function name, statement).
StatementIndex = dict[int, tuple[str, ir.Stmt]]


class Extractor:
    def __init__(self, facts: Facts, stmts: Optional[StatementIndex] = None):
        self.f = facts
        self.stmts: StatementIndex = {} if stmts is None else stmts     # (filled as numbered)
        self.vids: dict[str, str] = {}
        self._vids_of: dict[str, dict[str, str]] = {}     # function -> name -> var id
        self.pos = 0
        self.list_id = 0
        self._called: set[str] = set()      # the op names a called_op row was made for
        # whether any relation of a var's name (var, name_suffix, given_hint, def_rank) is kept
        self._names_wanted = any(facts.wants(r) for r in ("var", "name_suffix", "given_hint",
                                                          "def_rank"))
        self._sizes: dict = {}      # id(tile type) -> (the type, _alloc_size of it)
        self._arg_other = facts.wants("arg_other")
        self._args = self._arg_other or facts.wants("arg")     # (phase 4 reads neither)
        # binding and assign_type are given together (_rebindings)
        self._binding = facts.wants("binding") or facts.wants("assign_type")
        self._kwargs = facts.wants("has_kwarg")
        self.line = None        # the source line of the rows being made (Facts.appender)
        self._vmap: dict[str, str] = {}     # name -> var id, of the function described
        # the appenders of the commonest rows (Facts.appender)
        app = facts.appender
        self._stmt, self._assign, self._alias = app("stmt", self), app("assign", self), app("alias", self)
        self._call, self._arg, self._arg_other_row = app("call", self), app("arg", self), app("arg_other", self)
        self._has_kwarg, self._kwarg = app("has_kwarg", self), app("kwarg", self)
        self._var, self._declared_row = app("var", self), app("declared", self)

    def _next(self) -> int:
        p = self.pos
        self.pos += 1
        return p

    # -- vars ---------------------------------------------------------------
    def vid(self, func: str, name: str) -> str:
        # one string object per var, however many facts name it (large programs have
        # millions of fact rows: the copies were a fifth of the facts' memory); found
        # by the function's and the var's names, without building the text again
        by_name = self._vids_of.get(func)
        if by_name is None:
            by_name = self._vids_of[func] = {}
        v = by_name.get(name)
        if v is None:
            v = f"{func}:{name}"
            v = by_name[name] = self.vids.setdefault(v, v)
        return v

    def declare(self, func: str, name: str, kind: str, typ: Optional[ir.Type], line=None):
        # (``func`` is the function described: its names' ids are in _vmap once made)
        v = self._vmap.get(name) or self.vid(func, name)
        outer, self.line = self.line, line
        declared = self.f.vars
        if v not in declared:
            declared[v] = (func, name)
            if self._names_wanted:      # (what phase 4 reads of a var is its id)
                self._var((v, func, name, kind))
                # (only a name ending in a digit, or a digit and a newline, can match)
                m = _SUFFIXED.match(name) if name[-1:] in _DIGITS or name[-1:] == "\n" else None
                if m:
                    self._suffixed.append((v, m.group(1), int(m.group(2)), line))
                hint = self.fn.name_hints.get(name)
                if hint is not None:
                    self.f.add("given_hint", v, hint, line=line)
        if typ is not None:
            tk = ir.type_kind(typ)
            if (v, tk) not in self._declared:
                self._declared.add((v, tk))
                space = typ.space if tk == "tile" and typ.space is not None else ""
                self._declared_row((v, tk, space))
        self.line = outer
        return v

    # -- functions ----------------------------------------------------------
    def function(self, fn: ir.Function):
        self._declared: set = set()
        # the vars of this function printed "<base>_<k>": (var id, base, k, line)
        self._suffixed: list[tuple] = []
        self.fn = fn
        self.names: dict[str, str] = {}     # plain name -> kind (for classifying uses)
        name = fn.name
        self._vmap = self._vids_of.setdefault(name, {})     # (vid's map of this function)
        if fn.is_incore:
            self.f.add("incore", name, line=fn.line)
        for i, p in enumerate(fn.params):
            v = self.declare(name, p.name, "param", p.type, line=p.line)
            self.f.add("param", name, i, v, p.direction, line=p.line)
            self.names[p.name] = "param"
        if self._names_wanted:      # (a var's kind is read by its var row only)
            self._collect_kinds(fn.body)
        self._bound: list[tuple] = []       # (pos, name, line, assign type kind or None)
        run_nested(self.body(fn.body, owner=None))
        if self._suffixed:
            self._suffixes(fn)
        if self._bound:
            self._rebindings(fn)

    def _rebindings(self, fn: ir.Function):
        """binding and assign_type rows for the names bound more than once in ``fn`` (a
        parameter counts as bound): only a name bound before can be bound again, and
        printed IR rarely binds a name twice, so the rest would be rows no rule joins."""
        count = Counter(p.name for p in fn.params)
        count.update(name for _, name, _, _ in self._bound)
        for p, name, line, tk in self._bound:
            if count[name] > 1:
                self.f.add("binding", p, self.vid(fn.name, name), line=line)
                if tk is not None:
                    self.f.add("assign_type", p, tk, line=line)

    def _suffixes(self, fn: ir.Function):
        """name_suffix for each var printed "<base>_<k>" whose base is also a var of the
        function: the printer writes "B_k" only beside a var printed B (p3_rewrite.dl's
        suffix_free starts there), so a suffix without its base could never be read as
        one, and its rows would be rows no rule joins (a generated program names every
        var "<letter>_<n>").  def_rank for those vars and their bases: their place in
        the printer's collection order (tilemem.ir.names.definitions), which decides who
        takes the bare name among vars sharing a hint."""
        declared, vmap = self.f.vars, self._vmap
        wanted: dict[str, str] = {}     # name -> var id, of the suffixed vars kept and their bases
        for v, base, k, line in self._suffixed:
            b = vmap.get(base)
            if b is not None and b in declared:
                self.f.add("name_suffix", v, base, k, line=line)
                wanted[declared[v][1]] = v
                wanted[base] = b
        if wanted and self.f.wants("def_rank"):
            for rank, n in enumerate(names.definitions(fn)):
                v = wanted.get(n)
                if v is not None:
                    self.f.add("def_rank", v, rank)

    def _collect_kinds(self, body: list[ir.Stmt]):
        """Which names are loop iter-args (the rules treat them differently from plain vars).
        (The loops are visited in any order: an iter-arg is one wherever it is, a loop var
        one unless something else is.)"""
        names, For = self.names, ir.For
        stack = [body]
        while stack:
            for s in stack.pop():
                if s.__class__ is For:
                    if s.loop_var:
                        names.setdefault(s.loop_var, "loop_var")
                    for ia in s.iter_args or ():
                        names[ia] = "iter_arg"
                stack.extend(child_bodies(s))

    def kind_of(self, name: str) -> str:
        return self.names.get(name, "plain")

    # -- statements ---------------------------------------------------------
    # body/stmt/loop/branch are generator walks run by ir.walk.run_nested: a nested
    # body is ``yield``-ed instead of called, so nesting depth costs no Python stack.
    def body(self, stmts: list[ir.Stmt], owner: Optional[int]):
        lid = self.list_id
        self.list_id += 1
        if owner is not None:
            self.f.add("list_in_stmt", lid, owner)
        owner_stmt = self.stmts[owner][1] if owner is not None else None
        self.f.add("body_len", lid, pypto_statement_count(stmts, owner_stmt),
                   line=getattr(owner_stmt, "line", None))
        for s in stmts:
            # (a statement without a body is done at once, not as a walk of its own)
            if isinstance(s, _NESTING):
                yield self.nested(s, lid)
            else:
                self.leaf(s, lid)
        return lid

    def stmt(self, s: ir.Stmt, lid: int):
        """The facts of any statement (a walk, as ``body``'s)."""
        if isinstance(s, _NESTING):
            return (yield from self.nested(s, lid))
        return self.leaf(s, lid)

    def leaf(self, s: ir.Stmt, lid: int) -> int:
        """The facts of a statement that holds no body; its number."""
        fname = self.fn.name
        p = self.pos
        self.pos = p + 1
        line = self.line = getattr(s, "line", None)
        self.stmts[p] = (fname, s)
        cls = s.__class__
        if cls is ir.Assign:
            self._stmt((p, fname, "assign", lid))
            targets = s.targets
            if len(targets) == 1:
                t = targets[0]
                if self._binding:
                    self._bound.append((p, t, line, ir.type_kind(s.type)))
                v = self.declare(fname, t, self.names.get(t, "plain"), s.type, line)
                self._assign((p, v))
                value = s.value
                if value.__class__ is ir.Name:
                    self._alias((p, v, self._vmap.get(value.id) or self.vid(fname, value.id)))
            else:
                self._bindings(p, targets, line)
                for t in targets:
                    self.declare(fname, t, self.kind_of(t), None, line=line)
            self.value(p, s.value, line)
        elif cls is ir.EvalStmt:
            self._stmt((p, fname, "eval", lid))
            self.value(p, s.expr, line)
        elif cls is ir.Yield:
            self._stmt((p, fname, "yield", lid))
            self._bindings(p, s.targets, line)
        elif cls is ir.Return:
            self._stmt((p, fname, "return", lid))
        else:
            self._stmt((p, fname, type(s).__name__.lower(), lid))
        return p

    def _bindings(self, p: int, names: list[str], line) -> None:
        if self._binding:
            self._bound.extend((p, n, line, None) for n in names)

    def nested(self, s: ir.Stmt, lid: int):
        """The facts of a statement that holds bodies (``_NESTING``), a walk; its number."""
        fname = self.fn.name
        p = self._next()
        line = getattr(s, "line", None)
        self.stmts[p] = (fname, s)
        if isinstance(s, ir.For):
            yield self.loop(p, s, lid, line)
        elif isinstance(s, ir.If):
            yield self.branch(p, s, lid, line)
        else:
            self.f.add("stmt", p, fname, "while" if isinstance(s, ir.While) else "with", lid, line=line)
            if isinstance(s, ir.With) and s.as_name:
                self.declare(fname, s.as_name, "plain", None, line=line)
            yield self.body(s.body, p)
            self.f.add("stmt_end", p, self._next(), line=line)
        return p

    def value(self, p: int, e: ir.Expr, line):
        """Facts about a statement's call: op, positional args, simple kwargs (rows at
        ``self.line``, the statement's)."""
        if e.__class__ is not ir.Call:
            return
        fname = self.fn.name
        op = e.op or e.func
        args = e.args
        self._call((p, op, len(args)))
        if op not in self._called:
            self._called.add(op)
            self.f.add("called_op", op, op.partition(".")[0] if "." in op else "", line=line)
        if self._args:
            vmap, arg, Name = self._vmap, self._arg, ir.Name
            for i, a in enumerate(args):
                if a.__class__ is Name:
                    arg((p, i, vmap.get(a.id) or self.vid(fname, a.id)))
                elif self._arg_other:
                    self._arg_other_row((p, i))
        if not self._kwargs:
            return
        for k, val in e.kwargs:
            if k == "attrs":
                continue
            self._has_kwarg((p, k))
            sp = space_of_expr(val)
            if sp is not None:
                self._kwarg((p, k, sp))

    def loop(self, p: int, s: ir.For, lid: int, line):
        fname = self.fn.name
        self.f.add("stmt", p, fname, "for", lid, line=line)
        if s.loop_var:
            self.declare(fname, s.loop_var, "loop_var", None, line=line)
        self._bindings(p, [n for n in [s.loop_var, *(s.iter_args or [])] if n], line)
        is_for = s.kind in FOR_KINDS
        if is_for:
            self.f.add("loop", p, s.kind, line=line)
        inits = s.init_values
        y = last_yield(s.body)
        iter_args = s.iter_args or []
        for i, ia in enumerate(iter_args):
            v = self.declare(fname, ia, "iter_arg", None, line=line)
            self.f.add("carried", p, i, v, line=line)
            init = self.vid(fname, inits[i].id) \
                if i < len(inits) and isinstance(inits[i], ir.Name) else None
            if init is not None:
                self.f.add("carried_init", p, i, init, line=line)
            if s.kind == "while_" and init is not None:
                self.f.add("while_init", p, i, v, init, line=line)
            if is_for:
                self.f.add("loop_iter", p, i, v, line=line)
                if init is not None:
                    self.f.add("loop_init", p, i, init, line=line)
        if y is not None:
            for i, t in enumerate(y.targets):
                ty = y.target_types[i] if i < len(y.target_types) else None
                v = self.declare(fname, t, "plain", ty, line=y.line)
                if i < len(iter_args):
                    self.f.add("carried_return", p, i, v, line=y.line)
                if s.kind == "while_":
                    self.f.add("while_return", p, i, v, line=y.line)
                if is_for:
                    self.f.add("loop_return", p, i, v, line=y.line)
                    if i < len(y.values) and isinstance(y.values[i], ir.Name):
                        self.f.add("loop_yield", p, i, self.vid(fname, y.values[i].id), line=y.line)
        yield self.body(s.body, p)
        self.f.add("stmt_end", p, self._next(), line=line)

    def branch(self, p: int, s: ir.If, lid: int, line):
        fname = self.fn.name
        self.f.add("stmt", p, fname, "if", lid, line=line)
        self.f.add("branch", p, line=line)
        for arm, body in (("then", s.then_body), ("else", s.else_body or [])):
            y = last_yield(body)
            if y is None:
                continue
            for i, t in enumerate(y.targets):
                ty = y.target_types[i] if i < len(y.target_types) else None
                v = self.declare(fname, t, "plain", ty, line=y.line)
                self.f.add("branch_return", p, i, v, line=y.line)
                if i < len(y.values) and isinstance(y.values[i], ir.Name):
                    self.f.add("branch_yield", p, arm, i, self.vid(fname, y.values[i].id), line=y.line)
        yield self.body(s.then_body, p)
        if s.else_body is not None:
            yield self.body(s.else_body, p)
        self.f.add("stmt_end", p, self._next(), line=line)


def extract(program: ir.Program, backend: Optional[str] = None, origins: bool = True,
            only: Optional[frozenset] = None, stmts: Optional[StatementIndex] = None) -> Facts:
    """The facts of every InCore function of ``program`` (phases 0–3 read only these).

    ``origins``: record each fact's source line (``Facts.origin``, for explanations);
    ``only``: the relations to extract (None: all of them); ``stmts``: the statement
    index to fill (pos -> (function, statement)), for whoever maps numbers back."""
    facts = Facts(origin={} if origins else None, only=only)
    ex = Extractor(facts, stmts)
    for fn in program.functions:
        facts.add("func_kind", fn.name, fn.func_type, line=fn.line)
        if fn.is_incore:
            ex.function(fn)
    if backend:
        facts.add("backend", backend)
    # duplicates (e.g. a return var declared by both arms of a branch) are harmless
    # to the rules but noisy to read: keep each row once, in first-seen order
    distinct_rows(facts)
    facts.drop_empty()
    return facts
