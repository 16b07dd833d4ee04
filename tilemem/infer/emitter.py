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
from typing import Optional

from tilemem import ir
from tilemem.facts.extract import BRIDGE_ATTR, Facts
from tilemem.ir.walk import last_yield
from tilemem.ir import names, typerules
from tilemem.ir.views import respace, retype
from tilemem.ir.optable import op_table
from tilemem.ir.walk import run_nested
from tilemem.frontend.wellformed import names_in
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
                 rederive: set[int], replaced: set[str], name_hint: dict[str, str]):
        self.space, self.resolved, self.move_at = space, resolved, move_at
        self.move_use, self.move_slot, self.blayout = move_use, move_slot, blayout
        self.slayout, self.retarget, self.rederive = slayout, retarget, rederive
        self.replaced, self.name_hint = replaced, name_hint

    @classmethod
    def from_relations(cls, rel) -> "Solution3":
        move_at = defaultdict(list)
        for p, v, t in rel("move_at"):
            move_at[p].append((v, t))
        return cls(
            space={v: s for v, s in rel("space")},
            resolved={f for (f,) in rel("resolved_function")},
            move_at=dict(move_at),
            move_use={(p, i): (v, t) for p, i, v, t in rel("move_use")},
            move_slot={(p, v, t): i for p, v, t, i in rel("move_slot")},
            blayout={(p, v, t): l for p, v, t, l in rel("move_blayout")},
            slayout={(p, v, t): l for p, v, t, l in rel("move_slayout")},
            retarget={p: (k, s) for p, k, s in rel("retarget")},
            rederive={p for (p,) in rel("rederive")},
            replaced={v for (v,) in rel("replaced_var")},
            name_hint={v: h for v, h in rel("name_hint")},
        )


@record(extras=True)
class MoveRecord(Record):
    def __init__(self, function: str, consumer_line: Optional[int], producer: str, target: str,
                 name: str):
        self.function, self.consumer_line, self.producer = function, consumer_line, producer
        self.target, self.name = target, name


class _FunctionRewriter:
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
        self.split_modes: list[Optional[ir.Expr]] = []
        self.move_hints: dict[str, str] = {}       # inserted move -> its name hint
        self._hinted: dict = {}    # (id(type), len(move_hints)) -> (type, hinted(type))
        self._spaces: dict[str, Optional[str]] = {}     # plain name -> space_of(name)
        self._collect(fn)

    # -- names and types ----------------------------------------------------
    def vid(self, name: str) -> str:
        return f"{self.fn.name}:{name}"

    def _collect(self, fn: ir.Function):
        for p in fn.params:
            self.declared[p.name] = p.type
            self.used_names.add(p.name)
        inits: dict[str, str] = {}

        def walk(stmts):
            # a generator walk run by ir.walk.run_nested: nesting costs heap, not stack
            for s in stmts:
                if isinstance(s, ir.Assign):
                    for t in s.targets:
                        self.used_names.add(t)
                    if len(s.targets) == 1 and s.type is not None:
                        self.declared.setdefault(s.targets[0], s.type)
                elif isinstance(s, ir.Yield):
                    for i, t in enumerate(s.targets):
                        self.used_names.add(t)
                        ty = s.target_types[i] if i < len(s.target_types) else None
                        if ty is not None:
                            self.declared.setdefault(t, ty)
                elif isinstance(s, ir.For):
                    if s.loop_var:
                        self.used_names.add(s.loop_var)
                    for i, ia in enumerate(s.iter_args or []):
                        self.used_names.add(ia)
                        init = s.init_values[i] if i < len(s.init_values) else None
                        if isinstance(init, ir.Name):
                            inits[ia] = init.id
                    yield walk(s.body)
                    y = last_yield(s.body)
                    if y is not None:
                        for i, t in enumerate(y.targets):
                            if i >= len(s.iter_args or []):
                                continue
                            ia = s.iter_args[i]
                            ty = y.target_types[i] if i < len(y.target_types) else None
                            if ty is not None:
                                # the loop-carried type: iter-arg and return var share it
                                # (the printer never prints an iter-arg's own type)
                                self.declared.setdefault(ia, ty)
                            elif t not in self.declared:
                                inits.setdefault(t, ia)
                elif isinstance(s, ir.If):
                    yield walk(s.then_body)
                    yield walk(s.else_body or [])
                    # An unannotated branch return var (``a, b = pl.yield_(x, y)``) has the
                    # type of the value the then-branch yields for it (else the else-branch's):
                    # PyPTO's reader types the phi from the first yield it meets.
                    for arm in (s.then_body, s.else_body or []):
                        y = last_yield(arm)
                        if y is None:
                            continue
                        for i, t in enumerate(y.targets):
                            if t not in self.declared and i < len(y.values) and isinstance(y.values[i], ir.Name):
                                inits.setdefault(t, y.values[i].id)
                elif isinstance(s, (ir.While, ir.With)):
                    if isinstance(s, ir.With) and s.as_name:
                        self.used_names.add(s.as_name)
                    yield walk(s.body)

        run_nested(walk(fn.body))
        # iter-args (and unannotated loop return vars) have the type of what seeds them
        for _ in range(len(inits) + 1):
            changed = False
            for ia, src in inits.items():
                if ia not in self.declared and src in self.declared:
                    self.declared[ia] = self.declared[src]
                    changed = True
            if not changed:
                break

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
        """The name hint PyPTO had in memory for a var (the rules' ``name_hint``; an
        inserted move's is ``<producer hint>_<Space>``).  A move is named after its
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
    def rewrite_body(self, stmts: list[ir.Stmt], scope: dict) -> list[ir.Stmt]:
        local = dict(scope)            # moves made here are visible in nested lists only
        out: list[ir.Stmt] = []
        for s in stmts:
            p = self.pos_of.get(id(s))
            if p is not None:
                keys = self.sol.move_at.get(p, [])
                for v, t in sorted(keys, key=lambda k: (self.sol.move_slot.get((p, k[0], k[1]), 0), k)):
                    out.append(self.make_move(p, s, v, t, local))
            out.append(self.rewrite_stmt(s, p, local))
        return out

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

    def rewrite_stmt(self, s: ir.Stmt, p: Optional[int], local: dict) -> ir.Stmt:
        if isinstance(s, ir.Assign):
            value = s.value
            if isinstance(value, ir.Call):
                value = self.rewrite_call(p, value, local)
            typ = s.type
            if len(s.targets) == 1 and isinstance(typ, ir.TileType):
                name = s.targets[0]
                space = self.space_of(name)
                if space is not None:
                    typ, value = self.retype_definition(p, typ, value, space)
                    self.env[name] = typ
            # (whether PyPTO rebuilt it matters only to a statement with comments)
            comments = s.comments
            if comments and self.rebuilt(s.targets, s.value):
                comments = []
            if value is s.value and typ is s.type and comments is s.comments:
                return s                # unchanged statements are shared, not copied
            return replace(s, value=value, type=typ, comments=comments)
        if isinstance(s, ir.EvalStmt):
            # the base IRMutator rebuilds an EvalStmt with MutableCopy: comments stay
            # (mutator.cpp:1057-1068); only a rebuilt AssignStmt loses them
            if isinstance(s.expr, ir.Call):
                expr = self.rewrite_call(p, s.expr, local)
                return s if expr is s.expr else replace(s, expr=expr)
            return s
        if isinstance(s, ir.For):
            if s.kind == "split_aiv":
                # inside pl.split_aiv the printer omits the shard ops' split= kwarg
                self.split_modes.append(s.iter.kwarg("mode"))
                try:
                    return replace(s, body=self.rewrite_body(s.body, local))
                finally:
                    self.split_modes.pop()
            return _with_bodies(s, body=self.rewrite_body(s.body, local))
        if isinstance(s, ir.If):
            return _with_bodies(s, then_body=self.rewrite_body(s.then_body, local),
                                else_body=None if s.else_body is None
                                else self.rewrite_body(s.else_body, local))
        if isinstance(s, (ir.While, ir.With)):
            return _with_bodies(s, body=self.rewrite_body(s.body, local))
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
        (``replaced_var``); a rebuilt statement loses its comments."""
        replaced = self.replaced
        if not replaced:            # (most functions)
            return False
        return any(t in replaced for t in targets) or any(n.id in replaced for n in names_in(value))

    def retype_definition(self, p, typ: ir.TileType, value: ir.Expr, space: str):
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
                    scope_split=self.split_modes[-1] if self.split_modes else None,
                    memo=self.derived)
            except typerules.DeductionError:
                derived = None      # PyPTO would reject the program; keep the written view
            if isinstance(derived, ir.TileType):
                return self.hinted(derived), value
            return retype(typ, space), value
        # the call is not rebuilt: the LHS keeps the call's (written) view, in its new space
        return respace(typ, space), value

    def run(self) -> ir.Function:
        body = self.rewrite_body(self.fn.body, {})
        fn = replace(self.fn, body=body)
        fn = self.split_redefinitions(fn)
        return self.printed_names(fn)

    def split_redefinitions(self, fn: ir.Function) -> ir.Function:
        """A tile var assigned again is a new Var after the pass: PyPTO rebuilds every
        ``AssignStmt`` of a tile var from a call with a fresh Var of the same hint, and
        later reads (in visit order, whatever the scope) see the newest
        (infer_tile_memory_space_pass.cpp:720-745, the LHS sync), so it prints ``t``,
        ``t_1``.  A name assigned twice is one Var in both readings: the DSL reader knows
        it, and the printer gives distinct Vars distinct names.  A plain alias
        (``t = u``) is no call: it keeps the current Var; so does a call whose deduced
        type is its argument's own type when that argument is the var itself
        (``t = pl.tile.write(t, ...)``: the pass makes a new Var only for a new type
        object, :711-745; op table ``op_type_passthrough``)."""
        from tilemem.ir.optable import op_table
        passthrough = op_table().type_passthrough
        defined: set[str] = {p.name for p in fn.params}
        current: dict[str, str] = {}
        serial = 0

        def use(e):
            return names.rename_expr(e, current) if current else e

        def walk(stmts):
            nonlocal serial
            out = []
            for st in stmts:
                # (a statement nothing is renamed in is kept, not copied: statements
                # are shared between the input and output programs, see _with_bodies)
                if isinstance(st, ir.Assign):
                    value = use(st.value)
                    targets = st.targets
                    if (len(targets) == 1 and isinstance(st.value, ir.Call)
                            and isinstance(st.type, ir.TileType) and self.space_of(targets[0]) is not None):
                        name = targets[0]
                        slot = passthrough.get(value.op)
                        same = slot is not None and slot < len(value.args) and \
                            isinstance(value.args[slot], ir.Name) and \
                            value.args[slot].id == current.get(name, name)
                        if name in defined and not same:
                            serial += 1
                            key = f"{name}#{serial}"
                            self.move_hints[key] = self.name_hint(name)
                            current[name] = key
                            targets = [key]
                        defined.add(name)
                    else:
                        defined.update(targets)
                    if targets is not st.targets or value is not st.value:
                        st = replace(st, targets=list(targets), value=value)
                elif isinstance(st, ir.EvalStmt):
                    expr = use(st.expr)
                    if expr is not st.expr:
                        st = replace(st, expr=expr)
                elif isinstance(st, (ir.Return, ir.Yield)):
                    values = [use(v) for v in st.values]
                    if any(a is not b for a, b in zip(values, st.values)):
                        st = replace(st, values=values)
                    if isinstance(st, ir.Yield):
                        defined.update(st.targets)
                elif isinstance(st, ir.For):
                    it = use(st.iter)
                    if st.loop_var:
                        defined.add(st.loop_var)
                    defined.update(st.iter_args or [])
                    st = replace(st, iter=it, body=walk(st.body))
                elif isinstance(st, ir.If):
                    st = replace(st, cond=use(st.cond), then_body=walk(st.then_body),
                                 else_body=None if st.else_body is None else walk(st.else_body))
                elif isinstance(st, ir.While):
                    st = replace(st, cond=use(st.cond), body=walk(st.body))
                elif isinstance(st, ir.With):
                    st = replace(st, item=use(st.item), body=walk(st.body))
                out.append(st)
            return out

        return replace(fn, body=walk(fn.body))

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


def _with_bodies(s: ir.Stmt, **bodies) -> ir.Stmt:
    """``s`` with new statement lists, or ``s`` itself when every list holds the same
    statements (unchanged statements are shared between input and output programs:
    the output of a large program then costs a fraction of its memory)."""
    for k, v in bodies.items():
        old = getattr(s, k)
        if v is not old and (v is None or old is None or len(v) != len(old)
                             or any(a is not b for a, b in zip(v, old))):
            return replace(s, **bodies)
    return s


def _strip_bridge(e: ir.Expr) -> ir.Expr:
    """Remove the residency bridge mark from every call attrs dict inside e (``e`` itself
    when it has none)."""
    if isinstance(e, ir.Call):
        kwargs = []
        for k, v in e.kwargs:
            if k == "attrs" and isinstance(v, ir.DictExpr):
                items = tuple((a, b) for a, b in v.items
                              if not (isinstance(a, ir.StrConst) and a.value == BRIDGE_ATTR))
                if not items:
                    continue
                if len(items) != len(v.items):
                    v = replace(v, items=items)
            kwargs.append((k, _strip_bridge(v)))
        args = tuple(_strip_bridge(a) for a in e.args)
        if len(kwargs) == len(e.kwargs) and all(a is b for a, b in zip(args, e.args)) \
                and all(a[1] is b[1] for a, b in zip(kwargs, e.kwargs)):
            return e
        return replace(e, args=args, kwargs=tuple(kwargs))
    return e


def strip_bridge_marks(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
    out = []
    for s in stmts:
        if isinstance(s, ir.Assign):
            v = _strip_bridge(s.value)
            if v is not s.value:
                s = replace(s, value=v)
        elif isinstance(s, ir.EvalStmt):
            v = _strip_bridge(s.expr)
            if v is not s.expr:
                s = replace(s, expr=v)
        elif isinstance(s, ir.For):
            s = _with_bodies(s, body=strip_bridge_marks(s.body))
        elif isinstance(s, ir.If):
            s = _with_bodies(s, then_body=strip_bridge_marks(s.then_body),
                             else_body=None if s.else_body is None
                             else strip_bridge_marks(s.else_body))
        elif isinstance(s, (ir.While, ir.With)):
            s = _with_bodies(s, body=strip_bridge_marks(s.body))
        out.append(s)
    return out


def _indexed(sol: Solution3) -> tuple[set, dict]:
    """The statements where a move is read (``move_use``'s positions) and, per function,
    the names of its vars the pass replaces (``replaced_var``'s ``function:name`` ids; a
    function's name is an identifier, so the id splits at its first colon)."""
    replaced: dict[str, set] = {}
    for v in sol.replaced:
        fn, _, name = v.partition(":")
        replaced.setdefault(fn, set()).add(name)
    return {p for p, _ in sol.move_use}, replaced


def emit(program: ir.Program, facts: Facts, sol: Solution3):
    """Phase 3: the rewritten program and the list of inserted moves."""
    pos_of = {id(stmt): p for p, (_, stmt) in facts.stmts.items()}
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


def apply_hoists(program: ir.Program, facts: Facts, hoists: list[tuple[int, int]]) -> ir.Program:
    """Phase 4: move each hoisted statement, in program order, to just before its loop."""
    if not hoists:
        return program
    by_loop: dict[int, list[int]] = defaultdict(list)
    for p, loop in hoists:
        by_loop[loop].append(p)
    pos_of = {id(stmt): p for p, (_, stmt) in facts.stmts.items()}
    moved = {p for p, _ in hoists}

    def body(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in stmts:
            p = pos_of.get(id(s))
            if isinstance(s, ir.For):
                for h in sorted(by_loop.get(p, [])):
                    out.append(facts.stmts[h][1])
                inner = [x for x in s.body if pos_of.get(id(x)) not in moved]
                out.append(_with_bodies(s, body=body(inner)))
            elif isinstance(s, ir.If):
                out.append(_with_bodies(s, then_body=body(s.then_body),
                                        else_body=None if s.else_body is None
                                        else body(s.else_body)))
            elif isinstance(s, (ir.While, ir.With)):
                out.append(_with_bodies(s, body=body(s.body)))
            else:
                out.append(s)
        return out

    return replace(program, functions=[replace(fn, body=body(fn.body)) if fn.is_incore else fn
                                       for fn in program.functions])


def strip_program_bridge_marks(program: ir.Program) -> ir.Program:
    """The residency bridge mark is private to the pass: removed from every function."""
    return replace(program, functions=[_with_bodies(fn, body=strip_bridge_marks(fn.body))
                                       for fn in program.functions])
