"""The dataflow graph of one solved InCore function, as a networkx ``MultiDiGraph``.

A node per Tile or Tensor var (its memory space, the op that defines it, its source
line), an edge from each operand to the var it feeds, labelled with the operand slot;
loop iter-args get ``init``/``carry`` edges and loop or branch return vars
``yield``/``then``/``else`` edges.  Loops, branches, while loops and ``with`` scopes are
clusters (``graph.graph["clusters"]``).  Moves that the solver inserted and statements
that residency hoisted out of a loop are marked.  The graph only *displays* the
solution: which var sits where and what moved is read from the solved program,
``Solution.moves`` and ``Solution.residency``; nothing here decides it.

Node ids are var names within one function's graph; every picture qualifies them by
the function (``function:name``), so two functions' ``t__tile`` never meet.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

import networkx as nx

from tilemem import ir
from tilemem.ir.walk import last_yield
from tilemem.ir.printer import print_expr


def _loop_header(s: ir.For) -> str:
    it = ir.replace(s.iter, kwargs=tuple((k, v) for k, v in s.iter.kwargs if k != "init_values"))
    head = s.loop_var or "_"
    return f"for {head} in {print_expr(it)}"


def _stmt_paths(fn: ir.Function) -> tuple[dict[str, tuple], dict[str, list[tuple]]]:
    """(var -> the loops around its assignment, var -> the loops around each call reading it).

    A loop is identified by its header line (or its walk index), outermost first.
    """
    defs: dict[str, tuple] = {}
    reads: dict[str, list[tuple]] = {}
    counter = [0]

    def walk(body, path):
        for s in body:
            if isinstance(s, (ir.Assign, ir.EvalStmt)):
                if isinstance(s, ir.Assign):
                    for t in s.targets:
                        defs.setdefault(t, path)
                call = s.value if isinstance(s, ir.Assign) else s.expr
                if isinstance(call, ir.Call):
                    for a in call.args:
                        if isinstance(a, ir.Name):
                            reads.setdefault(a.id, []).append(path)
            elif isinstance(s, ir.For):
                counter[0] += 1
                walk(s.body, path + (s.line or counter[0],))
            elif isinstance(s, ir.If):
                walk(s.then_body, path)
                walk(s.else_body or [], path)
            elif isinstance(s, (ir.While, ir.With)):
                walk(s.body, path)
    walk(fn.body, ())
    return defs, reads


def record_field(rec, *names):
    """The first of ``names`` a record (dict or object) has a value for."""
    for n in names:
        v = rec.get(n) if isinstance(rec, dict) else getattr(rec, n, None)
        if v is not None:
            return v
    return None


class _Builder:
    """Walks one solved function in program order and adds its nodes, edges and clusters.

    Node ids are var names; a name assigned again (e.g. ``out_0 = tile.store(.., out_0)``)
    gets a fresh id ``name@line`` and later uses refer to the newest definition.
    """

    def __init__(self, fn: ir.Function, moves: set[str], hoisted: dict[str, str],
                 reasons: dict[str, str]):
        self.fn = fn
        self.g = nx.MultiDiGraph(name=fn.name, function=fn.name, clusters={})
        self.moves = moves
        self.hoisted = hoisted
        self.reasons = reasons
        self.cur: dict[str, str] = {}      # var name -> id of its newest node
        self.n_clusters = 0
        self.order = 0

    def cluster(self, label: str, kind: str, parent: Optional[str], line=None) -> str:
        self.n_clusters += 1
        cid = f"c{self.n_clusters}"
        self.g.graph["clusters"][cid] = {"label": label, "kind": kind, "parent": parent, "line": line}
        return cid

    def ref(self, e) -> Optional[str]:
        """The node an operand expression reads, if it is a var the graph shows."""
        return self.cur.get(e.id) if isinstance(e, ir.Name) else None

    def add(self, name: str, cluster, *, kind: str, space, op, line, typ=None,
            first_def: bool = True) -> str:
        nid = name
        if nid in self.g:
            nid = f"{name}@{line}"
            k = 2
            while nid in self.g:
                nid = f"{name}@{line}#{k}"
                k += 1
        self.order += 1
        self.g.add_node(nid, name=name, kind=kind, space=space, op=op, line=line, cluster=cluster,
                        order=self.order, move=name in self.moves and first_def,
                        hoisted=name in self.hoisted and first_def,
                        reason=self.reasons.get(name) or self.hoisted.get(name), type=typ)
        if kind != "effect":
            self.cur[name] = nid
        return nid

    def var(self, name: str, typ, cluster, op=None, line=None) -> str:
        if isinstance(typ, ir.TileType):
            kind, space = "tile", typ.space
        else:
            kind, space = "tensor", "DDR"
        return self.add(name, cluster, kind=kind, space=space, op=op, line=line, typ=_type_text(typ),
                        first_def=name not in self.cur)

    def edge(self, src: Optional[str], dst: str, label: str, kind: str = "operand"):
        if src is not None and src in self.g and dst in self.g:
            self.g.add_edge(src, dst, label=label, kind=kind)

    def build(self) -> nx.MultiDiGraph:
        for p in self.fn.params:
            if isinstance(p.type, (ir.TileType, ir.TensorType)):
                self.var(p.name, p.type, None, op=f"param ({p.direction})", line=p.line)
        self.body(self.fn.body, None)
        return self.g

    def body(self, stmts, cluster):
        for s in stmts:
            self.stmt(s, cluster)

    def stmt(self, s, cluster):
        if isinstance(s, ir.Assign):
            if len(s.targets) != 1:
                return
            target, v = s.targets[0], s.value
            if isinstance(v, ir.Call) and isinstance(s.type, (ir.TileType, ir.TensorType)):
                reads = [(i, self.ref(a)) for i, a in enumerate(v.args)]
                nid = self.var(target, s.type, cluster, op=v.op or v.func, line=s.line)
                for i, src in reads:
                    self.edge(src, nid, str(i))
            elif isinstance(v, ir.Name) and self.ref(v) is not None:
                src = self.ref(v)
                if isinstance(s.type, (ir.TileType, ir.TensorType)):
                    nid = self.var(target, s.type, cluster, op="alias", line=s.line)
                else:
                    nid = self.like(target, src, cluster, "alias", s.line)
                self.edge(src, nid, "alias", kind="alias")
        elif isinstance(s, ir.EvalStmt) and isinstance(s.expr, ir.Call):
            call = s.expr
            reads = [(i, self.ref(a)) for i, a in enumerate(call.args) if self.ref(a) is not None]
            if reads:
                nid = self.add(f"{call.op or call.func}", cluster, kind="effect", space=None,
                               op=call.op or call.func, line=s.line)
                for i, src in reads:
                    self.edge(src, nid, str(i))
        elif isinstance(s, ir.For):
            self.loop(s, cluster)
        elif isinstance(s, ir.If):
            self.branch(s, cluster)
        elif isinstance(s, ir.While):
            c = self.cluster(f"while {print_expr(s.cond)}", "while", cluster, s.line)
            self.body(s.body, c)
        elif isinstance(s, ir.With):
            c = self.cluster(f"with {print_expr(s.item)}", "with", cluster, s.line)
            self.body(s.body, c)

    def like(self, name: str, src: str, cluster, op: str, line) -> str:
        """A node for an unannotated var that holds the same kind of value as node ``src``."""
        a = self.g.nodes[src]
        kind = a["kind"] if a["kind"] in ("tile", "tensor") else "tile"
        return self.add(name, cluster, kind=kind, space=a["space"], op=op, line=line,
                        typ=a.get("type"), first_def=name not in self.cur)

    def loop(self, s: ir.For, cluster):
        c = self.cluster(_loop_header(s), "loop", cluster, s.line)
        inits = s.init_values
        iters: dict[int, str] = {}
        for i, ia in enumerate(s.iter_args or []):
            src = self.ref(inits[i]) if i < len(inits) else None
            if src is not None:
                a = self.g.nodes[src]
                iters[i] = self.add(ia, c, kind="iter_arg", space=a["space"], op="iter-arg",
                                    line=s.line, typ=a.get("type"))
                self.edge(src, iters[i], "init", kind="init")
        self.body(s.body, c)
        y = last_yield(s.body)
        if y is None:
            return
        for i, t in enumerate(y.targets):
            src = self.ref(y.values[i]) if i < len(y.values) else None
            if src is None:
                continue
            ty = y.target_types[i] if i < len(y.target_types) else None
            nid = self.result(t, ty, src, cluster, "loop result", y.line)
            self.edge(src, nid, "yield", kind="yield")
            if i in iters:
                self.edge(src, iters[i], "carry", kind="carry")

    def result(self, name, typ, src, cluster, op, line) -> str:
        """A loop/branch return var: typed by its annotation, else like the yielded value."""
        if name in self.cur and self.g.nodes[self.cur[name]].get("op") == op:
            return self.cur[name]          # the other arm of a branch already made it
        if isinstance(typ, (ir.TileType, ir.TensorType)):
            return self.var(name, typ, cluster, op=op, line=line)
        return self.like(name, src, cluster, op, line)

    def branch(self, s: ir.If, cluster):
        c = self.cluster(f"if {print_expr(s.cond)}", "if", cluster, s.line)
        arms = [("then", s.then_body)] + ([("else", s.else_body)] if s.else_body is not None else [])
        yields = []
        before = dict(self.cur)
        after_arms = []
        for arm, body in arms:
            self.cur = dict(before)        # each arm sees the definitions before the if
            a = self.cluster(arm, "arm", c, None)
            self.body(body, a)
            y = last_yield(body)
            yields.append((arm, y, [self.ref(v) for v in y.values] if y else []))
            after_arms.append(self.cur)
        for cur in after_arms:
            for k, v in cur.items():
                self.cur.setdefault(k, v)
        made: dict[str, str] = {}
        for arm, y, srcs in yields:
            if y is None:
                continue
            for i, t in enumerate(y.targets):
                src = srcs[i] if i < len(srcs) else None
                if src is None:
                    continue
                if t not in made:
                    ty = y.target_types[i] if i < len(y.target_types) else None
                    made[t] = self.result(t, ty, src, cluster, "branch result", y.line)
                self.edge(src, made[t], arm, kind="yield")


def _type_text(t) -> Optional[str]:
    if t is None:
        return None
    from tilemem.ir.printer import print_type
    try:
        return print_type(t)
    except Exception:  # a display nicety only
        return None


def hoisted_statements(source: Optional[ir.Function], solved: ir.Function) -> set[str]:
    """Statements the solved function has outside a loop that held them: a var assigned in
    fewer loops than in the source, or a new var (an inserted move) assigned in fewer loops
    than every call that reads it (moves are otherwise placed next to their consumer)."""
    if source is None:
        return set()
    before, _ = _stmt_paths(source)
    after, reads = _stmt_paths(solved)
    out = set()
    for v, p in after.items():
        if v in before:
            if len(p) < len(before[v]):
                out.add(v)
        elif reads.get(v) and all(len(p) < len(r) and r[:len(p)] == p for r in reads[v]):
            out.add(v)
    return out


def build_graph(solved: ir.Function, source: Optional[ir.Function] = None,
                moves: Iterable[str] = (), residency: Optional[Sequence] = None) -> nx.MultiDiGraph:
    """The dataflow graph of one (solved) InCore function; see the module docstring.

    ``source``: the function as it was before solving (to find hoisted statements);
    ``moves``: names of the moves the solver inserted; ``residency``: the solution's
    residency decisions (``Solution.residency``: records with ``var``, ``reason`` and,
    when present, ``function`` and ``hoisted``) — a hoisted record marks its node, and
    every record's reason (why it was hoisted, or which rule refused) becomes the
    node's tooltip.
    """
    hoisted = {v: "hoisted out of its loop (loop-invariant residency)"
               for v in hoisted_statements(source, solved)}
    reasons: dict[str, str] = {}
    for rec in residency or ():
        fn = record_field(rec, "function")
        if fn is not None and fn != solved.name:
            continue
        var = record_field(rec, "var", "name")
        reason = record_field(rec, "reason")
        if not isinstance(var, str):
            continue
        var = var.split(":", 1)[-1]
        if reason is not None:
            reasons[var] = str(reason)
        if record_field(rec, "hoisted") is True:
            hoisted[var] = str(reason) if reason is not None else hoisted.get(var, "hoisted")
    return _Builder(solved, set(moves), hoisted, reasons).build()


def build_graphs(sol, function: Optional[str] = None) -> list[nx.MultiDiGraph]:
    """One graph per InCore function of a ``tilemem.Solution`` (or only ``function``)."""
    from tilemem.errors import UsageError
    incore = [f for f in sol.program.functions if f.is_incore]
    if function is not None:
        chosen = [f for f in incore if f.name == function]
        if not chosen:
            names = ", ".join(f.name for f in incore) or "none"
            raise UsageError(f"no InCore function '{function}' (InCore functions: {names})")
        incore = chosen
    residency = getattr(sol, "residency", None)
    graphs = []
    for fn in incore:
        src = sol.source.function(fn.name) if sol.source is not None else None
        moves = [m.name for m in sol.moves if m.function == fn.name]
        graphs.append(build_graph(fn, src, moves, residency))
    return graphs
