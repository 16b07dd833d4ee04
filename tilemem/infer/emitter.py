"""Phase 3 — apply a derived solution to the IR.

The rules have decided everything: each var's space (``space``), where each move
goes and which argument slots read it (``move_at``, ``move_use``, ``move_slot``),
the moves' layout kwargs (``move_blayout``, ``move_slayout``), which producers are
retargeted (``retarget``) and which calls get their result type re-derived
(``rederive``).  The emitter only rebuilds the text: new annotations (through
``tilemem.ir.views``/``tilemem.ir.typerules``), inserted ``tile.move`` statements,
substituted arguments and remapped var lists in call attrs.
"""
from __future__ import annotations

from collections import defaultdict
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.facts.extract import StatementIndex
from tilemem.ir import names, typerules
from tilemem.ir.optable import op_table
from tilemem.ir.rewrite import RewritePattern, rewrite_function
from tilemem.ir.walk import statements
from tilemem.ir.views import respace, retype
from tilemem.frontend.wellformed import binds, names_in
from tilemem.records import Record, record, replace

# Call attrs that list vars; they follow argument substitution (dump_vars entries
# are expanded to every replacement used for that var).
_VAR_LIST_ATTRS = ("dump_vars", "manual_dep_edges", "compiler_manual_dep_edges",
                   "arg_direction_overrides_vars")


@record(extras=True)
class Solution3(Record):
    """The phase-0..3 results the emitter reads, indexed for lookup."""
    def __init__(self, space: dict[str, str], resolved: set[str],
                 move_at: dict[int, list[tuple[str, str]]],
                 move_use: dict[tuple[int, int], tuple[str, str]],
                 move_slot: dict[tuple[int, str, str], int],
                 blayout: dict[tuple[int, str, str], str],
                 slayout: dict[tuple[int, str, str], str], retarget: dict[int, tuple[str, str]],
                 rederive: set[int], replaced: set[str], name_hint: dict[str, str],
                 fresh: set[int], type_source: dict[str, dict[str, str]]):
        self.space, self.resolved, self.move_at = space, resolved, move_at
        self.move_use, self.move_slot, self.blayout = move_use, move_slot, blayout
        self.slayout, self.retarget, self.rederive = slayout, retarget, rederive
        self.replaced, self.name_hint = replaced, name_hint
        self.fresh = fresh          # the assignments that bind a fresh Var for a name
        # function -> name written without a type -> the name whose written type it has
        self.type_source = type_source

    @classmethod
    def from_relations(cls, rel) -> "Solution3":
        move_at = defaultdict(list)
        for p, v, t in rel("move_at"):
            move_at[p].append((v, t))
        type_source: dict[str, dict[str, str]] = defaultdict(dict)
        for v, x in rel("type_source"):
            fn, _, name = v.partition(":")
            type_source[fn][name] = x.partition(":")[2]
        space = {v: s for v, s in rel("space")}
        return cls(
            space=space,
            resolved={f for (f,) in rel("resolved_function")},
            move_at=dict(move_at),
            move_use={(p, i): (v, t) for p, i, v, t in rel("move_use")},
            move_slot={(p, v, t): i for p, v, t, i in rel("move_slot")},
            blayout={(p, v, t): l for p, v, t, l in rel("move_blayout")},
            slayout={(p, v, t): l for p, v, t, l in rel("move_slayout")},
            retarget={p: (k, s) for p, k, s in rel("retarget")},
            rederive={p for (p,) in rel("rederive")},
            # (the vars the pass replaces: every resolved var and the re-created
            # pl.while_ iter-args, p3_rewrite.dl)
            replaced={*space, *(v for (v,) in rel("recreated_iter_arg"))},
            name_hint={v: h for v, h in rel("name_hint")},
            fresh={p for p, _ in rel("fresh_redefinition")},
            type_source=dict(type_source),
        )


@record(extras=True)
class MoveRecord(Record):
    def __init__(self, function: str, consumer_line: Optional[int], producer: str, target: str,
                 name: str):
        self.function, self.consumer_line, self.producer = function, consumer_line, producer
        self.target, self.name = target, name


def _declarations(fn: ir.Function) -> tuple[dict[str, ir.Type], set[str]]:
    """What a function declares: the type each name is first written with, and every
    name it binds (one walk of its statements, which changes nothing)."""
    declared: dict[str, ir.Type] = {p.name: p.type for p in fn.params}
    used_names: set[str] = {p.name for p in fn.params}
    Assign, Yield = ir.Assign, ir.Yield
    for s, _ in statements(fn.body):
        used_names.update(binds(s))
        cls = s.__class__
        if cls is Assign:
            if len(s.targets) == 1 and s.type is not None:
                declared.setdefault(s.targets[0], s.type)
        elif cls is Yield:
            for t, ty in zip(s.targets, s.target_types):
                if ty is not None:
                    declared.setdefault(t, ty)
    return declared, used_names


class _Scope:
    """What a statement list of the phase-3 rewrite sees: the moves made before it in
    it or in an enclosing list (``(var id, space)`` -> the move's name), and the mode
    of the innermost ``pl.split_aiv`` around it (None outside one)."""
    __slots__ = ("moves", "split_mode")

    def __init__(self, moves: dict, split_mode: Optional[ir.Expr]):
        self.moves, self.split_mode = moves, split_mode


class _FunctionRewriter(RewritePattern):
    def __init__(self, fn: ir.Function, sol: Solution3, pos_of: dict[int, int],
                 used_at: Optional[set] = None, replaced: Optional[dict] = None,
                 derived: Optional[typerules.CallTypes] = None, nameless: Optional[dict] = None):
        self.fn = fn
        # the call types derived so far in this solve (typerules.derive_call_type's memo)
        self.derived = typerules.CallTypes() if derived is None else derived
        # id(type) -> (type, whether no Name is inside it), for hinted (shared as derived)
        self.nameless: dict = {} if nameless is None else nameless
        self.sol = sol
        self.pos_of = pos_of
        # the statements where a move is read, and the function's vars the pass replaces
        # (rebuilt); emit() gives both for every function (see _indexed)
        if used_at is None or replaced is None:
            used_at, replaced = _indexed(sol)
        self.used_at = used_at
        self.replaced = replaced.get(fn.name, ())
        self.declared: dict[str, ir.Type] = {}      # plain name -> type as written
        self.env: dict[str, ir.Type] = {}           # plain name -> type after the rewrite
        self.used_names: set[str] = set()
        self.moves: list[MoveRecord] = []
        self.move_hints: dict[str, str] = {}       # inserted move -> its name hint
        self.fresh_at: set[int] = set()     # id() of the rewritten fresh redefinitions
        self._hinted: dict = {}    # (id(type), len(move_hints)) -> (type, hinted(type))
        self._spaces: dict[str, Optional[str]] = {}     # plain name -> space_of(name)
        self._collect(fn)

    # -- names and types ----------------------------------------------------
    def vid(self, name: str) -> str:
        return f"{self.fn.name}:{name}"

    def _collect(self, fn: ir.Function):
        declared, self.used_names = _declarations(fn)
        # a var written without a type has the one written for its type source (the
        # rules' type_source: an iter-arg its loop's carried type, a return var its
        # iter-arg's or the yielded value's)
        for name, src in self.sol.type_source.get(fn.name, {}).items():
            if name not in declared and src in declared:
                declared[name] = declared[src]
        self.declared = declared

    def space_of(self, name: str) -> Optional[str]:
        try:
            return self._spaces[name]
        except KeyError:
            s = self._spaces[name] = self.sol.space.get(self.vid(name))
            return s

    def new_type(self, name: str) -> Optional[ir.Type]:
        """The var's type after the pass: as rewritten at its definition, else retyped."""
        if name in self.env:
            return self.env[name]
        t = self.declared.get(name)
        s = self.space_of(name)
        if isinstance(t, ir.TileType) and s is not None:
            t = retype(t, s)
            self.env[name] = t
        return t

    def name_hint(self, name: str) -> str:
        """The name hint PyPTO had in memory for a var (the rules' ``name_hint``, its
        printed name where they give none; an inserted move's is ``<producer hint>_<Space>``).  A move is named after its
        producer's hint, and a var inside a type prints as its hint."""
        h = self.move_hints.get(name)
        if h is not None:
            return h
        return self.sol.name_hint.get(self.vid(name), name)

    def hinted(self, t: ir.TileType) -> ir.TileType:
        """PyPTO prints a var inside a type by its name hint, not its de-duplicated name;
        a derived type copies var names from the arguments, so map them back."""
        # (derived types are shared: one without a Name is kept as it is, and one with is
        # mapped once while the hints stay the same; move_hints only grows, so its size
        # tells them)
        got = self.nameless.get(id(t))
        if got is None:
            got = self.nameless[id(t)] = (t, not _holds_name(t))
        if got[1]:
            return t
        key = (id(t), len(self.move_hints))
        got = self._hinted.get(key)
        if got is None:
            got = self._hinted[key] = (t, self._hinted_type(t))
        return got[1]

    def _hinted_type(self, t: ir.TileType) -> ir.TileType:
        # (an expression, list or type in which no name changes is returned as it is)
        def expr(e):
            cls = e.__class__
            if cls is ir.IntConst:
                return e
            if cls is ir.Name:
                h = self.name_hint(e.id)
                return e if h == e.id else replace(e, id=h)
            if isinstance(e, ir.Name):
                h = self.name_hint(e.id)
                return e if h == e.id else replace(e, id=h)
            if isinstance(e, ir.BinOp):
                left, right = expr(e.left), expr(e.right)
                return e if left is e.left and right is e.right else replace(e, left=left, right=right)
            if isinstance(e, ir.UnaryOp):
                operand = expr(e.operand)
                return e if operand is e.operand else replace(e, operand=operand)
            if isinstance(e, ir.Call):
                args = exprs(e.args)
                return e if args is e.args else replace(e, args=args)
            return e

        def exprs(xs):
            if xs is None:
                return None
            new = tuple([expr(x) for x in xs])
            if xs.__class__ is tuple and all(a is b for a, b in zip(new, xs)):
                return xs
            return new

        view = t.view
        if view is not None:
            valid, stride = exprs(view.valid_shape), exprs(view.stride)
            offset = None if view.start_offset is None else expr(view.start_offset)
            if valid is not view.valid_shape or stride is not view.stride or offset is not view.start_offset:
                view = replace(view, valid_shape=valid, stride=stride, start_offset=offset)
        shape = exprs(t.shape)
        if shape is t.shape and view is t.view:
            return t
        return replace(t, shape=shape, view=view)

    def fresh_name(self, base: str) -> str:
        name, k = base, 0
        while name in self.used_names:
            k += 1
            name = f"{base}_{k}"
        self.used_names.add(name)
        return name

    # -- statements -----------------------------------------------------------
    # -- the pattern (tilemem.ir.rewrite) ---------------------------------------
    def rewrite(self, s: ir.Stmt, scope: _Scope):
        """The moves made for ``s`` (in slot order), then ``s`` rewritten."""
        p = self.pos_of.get(id(s))
        keys = self.sol.move_at.get(p) if p is not None else None
        if not keys:
            return self.rewrite_stmt(s, p, scope)
        slot = self.sol.move_slot
        out = [self.make_move(p, s, v, t, scope.moves)
               for v, t in sorted(keys, key=lambda k: (slot.get((p, k[0], k[1]), 0), k))]
        out.append(self.rewrite_stmt(s, p, scope))
        return out

    def body_scope(self, owner: ir.Stmt, scope: _Scope) -> _Scope:
        # moves made in a list are visible in the lists nested in it, not outside;
        # inside pl.split_aiv the printer omits the shard ops' split= kwarg
        mode = scope.split_mode
        if isinstance(owner, ir.For) and owner.kind == "split_aiv":
            mode = owner.iter.kwarg("mode")
        return _Scope(dict(scope.moves), mode)

    def make_move(self, p: int, consumer: ir.Stmt, v: str, t: str, local: dict) -> ir.Assign:
        src = v.split(":", 1)[1]
        hint = f"{self.name_hint(src)}_{t}"
        name = self.fresh_name(hint)     # unique for now; printed names are given in run()
        self.move_hints[name] = hint
        kwargs = [("target_memory", ir.Dotted(("pl", "Mem", t)))]
        if (p, v, t) in self.sol.blayout:
            kwargs.append(("blayout", ir.Dotted(("pl", "TileLayout", self.sol.blayout[(p, v, t)]))))
        if (p, v, t) in self.sol.slayout:
            kwargs.append(("slayout", ir.Dotted(("pl", "TileLayout", self.sol.slayout[(p, v, t)]))))
        call = ir.Call("pl." + op_table().inserted_move, (ir.Name(src),), tuple(kwargs))
        mtype = typerules.derive_call_type(call, self.new_type, lhs_space=t, memo=self.derived)
        self.env[name] = mtype
        local[(v, t)] = name
        self.moves.append(MoveRecord(self.fn.name, getattr(consumer, "line", None), src, t, name))
        return ir.Assign([name], mtype, call, line=getattr(consumer, "line", None))

    def rewrite_call(self, p: Optional[int], call: ir.Call, local: dict) -> ir.Call:
        if p not in self.used_at:
            # no argument of the statement reads a move: none is substituted, and the
            # attrs' var lists map every var to itself (the call is returned as it is)
            return call
        args = list(call.args)
        replaced: dict[str, list[str]] = defaultdict(list)
        for i, a in enumerate(args):
            key = self.sol.move_use.get((p, i)) if p is not None else None
            if key is not None and key in local and isinstance(a, ir.Name):
                args[i] = ir.Name(local[key])
            if isinstance(a, ir.Name):
                new = args[i].id
                if new not in replaced[a.id]:
                    replaced[a.id].append(new)
        kwargs = list(call.kwargs)
        for j, (k, val) in enumerate(kwargs):
            if k == "attrs" and isinstance(val, ir.DictExpr):
                new = self.remap_attrs(val, replaced)
                if new != val:
                    kwargs[j] = (k, new)
        if all(a is b for a, b in zip(args, call.args)) and \
                all(a is b for a, b in zip(kwargs, call.kwargs)):
            return call                 # unchanged: shared with the input program
        return replace(call, args=tuple(args), kwargs=tuple(kwargs))

    def remap_attrs(self, d: ir.DictExpr, replaced: dict[str, list[str]]) -> ir.DictExpr:
        items = []
        for key, val in d.items:
            if isinstance(key, ir.StrConst) and key.value in _VAR_LIST_ATTRS and isinstance(val, ir.ListExpr):
                new_items = []
                for e in val.items:
                    if isinstance(e, ir.Name) and e.id in replaced:
                        subs = replaced[e.id] if key.value == "dump_vars" else replaced[e.id][:1]
                        new_items.extend(ir.Name(n) for n in subs)
                    else:
                        new_items.append(e)
                val = replace(val, items=tuple(new_items))
            items.append((key, val))
        return replace(d, items=tuple(items))

    def rewrite_stmt(self, s: ir.Stmt, p: Optional[int], scope: _Scope) -> ir.Stmt:
        """``s``'s own parts rewritten (its bodies are the walker's)."""
        if isinstance(s, ir.Assign):
            value = s.value
            if isinstance(value, ir.Call):
                value = self.rewrite_call(p, value, scope.moves)
            typ = s.type
            if len(s.targets) == 1 and isinstance(typ, ir.TileType):
                name = s.targets[0]
                space = self.space_of(name)
                if space is not None:
                    typ, value = self.retype_definition(p, typ, value, space, scope.split_mode)
                    self.env[name] = typ
            # (whether PyPTO rebuilt it matters only to a statement with comments)
            comments = s.comments
            if comments and self.rebuilt(s.targets, s.value):
                comments = []
            if not (value is s.value and typ is s.type and comments is s.comments):
                s = replace(s, value=value, type=typ, comments=comments)
            # (else: unchanged statements are shared, not copied)
            if p is not None and p in self.sol.fresh:
                self.fresh_at.add(id(s))
            return s
        if isinstance(s, ir.EvalStmt):
            # the base IRMutator rebuilds an EvalStmt with MutableCopy: comments stay
            # (mutator.cpp:1057-1068); only a rebuilt AssignStmt loses them
            if isinstance(s.expr, ir.Call):
                expr = self.rewrite_call(p, s.expr, scope.moves)
                return s if expr is s.expr else replace(s, expr=expr)
            return s
        if isinstance(s, ir.Yield):
            types = list(s.target_types)
            for i, t in enumerate(s.targets):
                if i < len(types) and isinstance(types[i], ir.TileType):
                    space = self.space_of(t)
                    if space is not None:
                        types[i] = retype(types[i], space)
                        self.env[t] = types[i]
            if all(a is b for a, b in zip(types, s.target_types)):
                return s
            return replace(s, target_types=types)
        return s

    def rebuilt(self, targets: list[str], value: ir.Expr) -> bool:
        """PyPTO rebuilds a statement that defines or reads a var the pass replaces
        (one of ``space`` or ``recreated_iter_arg``); a rebuilt statement loses its comments."""
        replaced = self.replaced
        if not replaced:            # (most functions)
            return False
        return any(t in replaced for t in targets) or any(n.id in replaced for n in names_in(value))

    def retype_definition(self, p, typ: ir.TileType, value: ir.Expr, space: str,
                          split_mode: Optional[ir.Expr]):
        """The LHS annotation of a resolved tile definition (and its possibly retargeted call)."""
        if not isinstance(value, ir.Call):
            return retype(typ, space), value
        retarget = self.sol.retarget.get(p) if p is not None else None
        if retarget is not None:
            kwarg, target = retarget
            value = value.with_kwarg(kwarg, ir.Dotted(("pl", "Mem", target)))
            return typerules.retargeted_type(typ, target, space), value
        if p is not None and p in self.sol.rederive:
            try:
                derived = typerules.derive_call_type(
                    value, self.new_type, lhs_space=space, lhs_memref=typ.memref,
                    scope_split=split_mode,
                    memo=self.derived)
            except typerules.DeductionError:
                derived = None      # PyPTO would reject the program; keep the written view
            if isinstance(derived, ir.TileType):
                return self.hinted(derived), value
            return retype(typ, space), value
        # the call is not rebuilt: the LHS keeps the call's (written) view, in its new space
        return respace(typ, space), value

    def run(self) -> ir.Function:
        fn = rewrite_function(self.fn, self, _Scope({}, None))
        if self.fresh_at:
            fn = rewrite_function(fn, _Redefinitions(self))
        return self.printed_names(fn)

    def printed_names(self, fn: ir.Function) -> ir.Function:
        """Name every var as PyPTO's printer does, from the name hints (printer.md §6):
        a move defined before a user var sharing its hint takes the bare name."""
        order = names.definitions(fn)
        # (name_hint of each)
        moved, given, prefix = self.move_hints, self.sol.name_hint, fn.name + ":"
        mapping = names.renamed(order, [h if (h := moved.get(n)) is not None else given.get(prefix + n, n)
                                        for n in order])
        if not mapping:
            return fn
        for m in self.moves:
            m.name = mapping.get(m.name, m.name)
        return names.rename(fn, mapping)


class _Redefinitions(RewritePattern):
    """The rules' fresh redefinitions (``fresh_redefinition``: an assignment of a tile var
    bound before, which PyPTO's pass rebuilds with a new Var of the same hint) made new
    vars, named ``<name>#<k>`` until ``printed_names`` names them from their hint; the
    reads after each (in visit order, whatever the scope) read the newest."""

    def __init__(self, rw: _FunctionRewriter):
        self.rw = rw
        self.current: dict[str, str] = {}       # name -> its newest Var
        self.serial = 0

    def use(self, e):
        return names.rename_expr(e, self.current) if self.current else e

    def rewrite(self, st: ir.Stmt, scope) -> ir.Stmt:
        if isinstance(st, ir.Assign):
            value = self.use(st.value)
            targets = st.targets
            if id(st) in self.rw.fresh_at:
                name = targets[0]
                self.serial += 1
                key = f"{name}#{self.serial}"
                self.rw.move_hints[key] = self.rw.name_hint(name)
                self.current[name] = key
                targets = [key]
            if targets is not st.targets or value is not st.value:
                return replace(st, targets=list(targets), value=value)
        elif isinstance(st, ir.EvalStmt):
            expr = self.use(st.expr)
            if expr is not st.expr:
                return replace(st, expr=expr)
        elif isinstance(st, (ir.Return, ir.Yield)):
            values = [self.use(v) for v in st.values]
            if any(a is not b for a, b in zip(values, st.values)):
                return replace(st, values=values)
        elif isinstance(st, ir.For):
            it = self.use(st.iter)
            if it is not st.iter:
                return replace(st, iter=it)
        elif isinstance(st, (ir.If, ir.While)):
            cond = self.use(st.cond)
            if cond is not st.cond:
                return replace(st, cond=cond)
        elif isinstance(st, ir.With):
            item = self.use(st.item)
            if item is not st.item:
                return replace(st, item=item)
        return st


def _holds_name(t: ir.TileType) -> bool:
    """Whether a Name is inside the dims, view or start offset of ``t`` (what
    ``_FunctionRewriter.hinted`` maps), or ``t`` holds a list where it makes a tuple:
    False says hinted(t) is t."""
    v = t.view
    seqs = (t.shape,) if v is None else (t.shape, v.valid_shape, v.stride)
    if any(x is not None and x.__class__ is not tuple for x in seqs):
        return True                 # (hinted makes them tuples)
    exprs = list(t.shape)
    if v is not None:
        exprs += [*(v.valid_shape or ()), *(v.stride or ()), v.start_offset]
    for e in exprs:
        if e is None or e.__class__ is ir.IntConst:
            continue
        if any(isinstance(x, ir.Name) for x in ir.subexpressions(e)):
            return True
    return False


def _indexed(sol: Solution3) -> tuple[set, dict]:
    """The statements where a move is read (``move_use``'s positions) and, per function,
    the names of its vars the pass replaces (``Solution3.replaced``'s ``function:name`` ids; a
    function's name is an identifier, so the id splits at its first colon)."""
    replaced: dict[str, set] = {}
    for v in sol.replaced:
        fn, _, name = v.partition(":")
        replaced.setdefault(fn, set()).add(name)
    return {p for p, _ in sol.move_use}, replaced


def emit(program: ir.Program, stmts: StatementIndex, sol: Solution3):
    """Phase 3: the rewritten program and the list of inserted moves (``stmts``: the
    statement index of the facts the solution was derived from)."""
    pos_of = {id(stmt): p for p, (_, stmt) in stmts.items()}
    used_at, replaced = _indexed(sol)
    derived = typerules.CallTypes()     # call types, shared by the functions (derive_call_type)
    nameless: dict = {}                 # (see _FunctionRewriter.hinted)
    functions = []
    moves: list[MoveRecord] = []
    for fn in program.functions:
        if fn.is_incore and fn.name in sol.resolved:
            rw = _FunctionRewriter(fn, sol, pos_of, used_at, replaced, derived, nameless)
            fn = rw.run()
            moves.extend(rw.moves)
        functions.append(fn)
    return replace(program, functions=functions), moves
