"""The dataflow graph of a solved program, and its pictures.

``build_graph`` turns one InCore function of the *solved* program into a networkx
``MultiDiGraph``: a node per Tile or Tensor var (its memory space, the op that
defines it, its source line), an edge from each operand to the var it feeds,
labelled with the operand slot; loop iter-args get ``init``/``carry`` edges and
loop or branch return vars ``yield``/``then``/``else`` edges.  Loops, branches,
while loops and ``with`` scopes are clusters (``graph.graph["clusters"]``).
Moves that the solver inserted and statements that residency hoisted out of a
loop are marked.  The graph only *displays* the solution: which var sits where and
what moved is read from the solved program, ``Solution.moves`` and
``Solution.residency``; nothing here decides it.

Pictures:
  * ``to_dot``: Graphviz DOT text, written here (no pydot/pygraphviz needed);
  * ``render_dot``: SVG/PNG through the Graphviz ``dot`` program when installed;
  * ``to_svg_builtin``: a pure-Python SVG (no Graphviz): nodes in program order,
    clusters as nested boxes, edges as labelled arcs — the fallback;
  * ``to_html``: one self-contained page (inline SVG, a little inline JS, no network).
"""
from __future__ import annotations

import html
import shutil
import subprocess
from typing import Iterable, Optional, Sequence

import networkx as nx

from tilemem import ir
from tilemem.facts.extract import last_yield
from tilemem.ir.printer import print_expr

from tilemem.tools.colors import (HOIST_PEN, MOVE_PEN, OTHER_COLOR, SPACE_COLORS, SPACE_ORDER,  # noqa: F401
                                  UNRESOLVED_COLOR, space_color)


# ----------------------------------------------------------------------------- building


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


def _record_field(rec, *names):
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
        fn = _record_field(rec, "function")
        if fn is not None and fn != solved.name:
            continue
        var = _record_field(rec, "var", "name")
        reason = _record_field(rec, "reason")
        if not isinstance(var, str):
            continue
        var = var.split(":", 1)[-1]
        if reason is not None:
            reasons[var] = str(reason)
        if _record_field(rec, "hoisted") is True:
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


# ----------------------------------------------------------------------------- DOT


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def node_label(nid: str, a: dict) -> str:
    name = a.get("name", nid)
    if a.get("kind") == "effect":
        return f"{a.get('op')}\nline {a.get('line')}"
    space = a.get("space") or "no space"
    op = a.get("op") or ""
    parts = [name, op, space]
    if a.get("move"):
        parts[1] = f"{op} (inserted)"
    if a.get("hoisted"):
        parts.append("hoisted")
    return "\n".join(p for p in parts if p)


def node_tooltip(nid: str, a: dict) -> str:
    bits = [a.get("name", nid)]
    if a.get("type"):
        bits.append(a["type"])
    if a.get("line"):
        bits.append(f"line {a['line']}")
    if a.get("move"):
        bits.append("tile.move inserted by tilemem")
    if a.get("reason"):
        bits.append(a["reason"])
    return "\n".join(bits)


def _node_attrs(name: str, a: dict) -> dict:
    attrs = {"label": node_label(name, a), "fillcolor": space_color(a.get("space")),
             "tooltip": node_tooltip(name, a)}
    kind = a.get("kind")
    if kind == "tensor":
        attrs["shape"] = "note"
    elif kind == "iter_arg":
        attrs["shape"] = "ellipse"
    elif kind == "effect":
        attrs["shape"] = "cds"
        attrs["fillcolor"] = "#f7f7f7"
    else:
        attrs["shape"] = "box"
    styles = ["filled"]
    if kind not in ("tensor", "iter_arg", "effect"):
        styles.append("rounded")
    if a.get("space") is None and kind != "effect":
        styles.append("dashed")
    if a.get("move"):
        styles.append("bold")
        attrs["color"] = MOVE_PEN
        attrs["penwidth"] = "2.5"
    if a.get("hoisted"):                 # double border; a hoisted move stays red
        attrs["peripheries"] = "2"
        if not a.get("move"):
            attrs["color"] = HOIST_PEN
            attrs["penwidth"] = "2"
    attrs["style"] = ",".join(styles)
    return attrs


def _edge_attrs(a: dict) -> dict:
    attrs = {"label": a.get("label", "")}
    kind = a.get("kind")
    if kind == "carry":
        attrs.update(style="dashed", constraint="false", color="#777777", fontcolor="#777777")
    elif kind in ("init", "yield", "alias"):
        attrs.update(style="dotted")
    return attrs


def _fmt_attrs(d: dict) -> str:
    return ", ".join(f"{k}={_q(str(v))}" for k, v in d.items())


def _legend_items(graphs) -> list[tuple[str, str, str]]:
    """(label, fill, kind) rows of the legend: the spaces used, then the marks used."""
    used = [a.get("space") for g in graphs for _, a in g.nodes(data=True) if a.get("kind") != "effect"]
    items = [("Tensor (DDR)" if s == "DDR" else s, space_color(s), "space")
             for s in SPACE_ORDER if s in used]
    items += [(s, space_color(s), "space") for s in sorted({s for s in used if s and s not in SPACE_ORDER})]
    if None in used:
        items.append(("no space", UNRESOLVED_COLOR, "unresolved"))
    if any(a.get("move") for g in graphs for _, a in g.nodes(data=True)):
        items.append(("inserted tile.move", "#ffffff", "move"))
    if any(a.get("hoisted") for g in graphs for _, a in g.nodes(data=True)):
        items.append(("hoisted out of loop (double border)", "#ffffff", "hoist"))
    return items


def _legend_lines(graphs, ind: str) -> list[str]:
    """The legend as one node with an HTML-like table (compact, placed by dot)."""
    rows = []
    for label, fill, kind in _legend_items(graphs):
        border = {"move": f' COLOR="{MOVE_PEN}" BORDER="3"', "hoist": f' COLOR="{HOIST_PEN}" BORDER="3"'}.get(kind, ' BORDER="1"')
        text = html.escape(label)
        rows.append(f'<TR><TD BGCOLOR="{fill}"{border} WIDTH="18"> </TD><TD ALIGN="LEFT">{text}</TD></TR>')
    table = ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="2">'
             '<TR><TD COLSPAN="2"><B>memory space</B></TD></TR>' + "".join(rows) + "</TABLE>>")
    return [f'{ind}"legend" [shape="box", style="rounded", color="#999999", fontsize="10", label={table}];']


def to_dot(graphs: Sequence[nx.MultiDiGraph], title: Optional[str] = None) -> str:
    """DOT text for the graphs (one cluster per function when there are several)."""
    lines = ["digraph tilemem {",
             '  graph [rankdir="TB", fontname="Helvetica", fontsize=12, newrank=true, compound=true'
             + (f", label={_q(title)}, labelloc=\"t\"" if title else "") + "];",
             '  node [fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];']
    multi = len(graphs) > 1
    for gi, g in enumerate(graphs):
        fn = g.graph.get("function", f"f{gi}")
        ind = "  "
        if multi:
            lines.append(f'  subgraph cluster_fn_{gi} {{')
            lines.append(f'    label={_q("function " + fn)}; style="bold"; color="#333333";')
            ind = "    "
        clusters = g.graph.get("clusters", {})
        children: dict[Optional[str], list[str]] = {}
        for cid, c in clusters.items():
            children.setdefault(c["parent"], []).append(cid)
        members: dict[Optional[str], list[str]] = {}
        for n, a in sorted(g.nodes(data=True), key=lambda x: x[1].get("order", 0)):
            members.setdefault(a.get("cluster"), []).append(n)

        def nid(n):
            return _q(f"{fn}:{n}")

        def emit(cid: Optional[str], ind: str):
            for n in members.get(cid, []):
                lines.append(f"{ind}{nid(n)} [{_fmt_attrs(_node_attrs(n, g.nodes[n]))}];")
            for sub in children.get(cid, []):
                c = clusters[sub]
                style = {"loop": 'style="rounded,filled"; fillcolor="#f4f4f8"; color="#6a6a9a";',
                         "if": 'style="rounded,dashed"; color="#8a6a3a";',
                         "arm": 'style="dotted"; color="#aaaaaa";'}.get(c["kind"], 'style="rounded"; color="#888888";')
                lines.append(f"{ind}subgraph {_q('cluster_' + fn + '_' + sub)} {{")
                lines.append(f"{ind}  label={_q(c['label'])}; labeljust=\"l\"; fontsize=10; {style}")
                emit(sub, ind + "  ")
                lines.append(f"{ind}}}")

        emit(None, ind)
        for u, v, a in g.edges(data=True):
            lines.append(f"{ind}{nid(u)} -> {nid(v)} [{_fmt_attrs(_edge_attrs(a))}];")
        if multi:
            lines.append("  }")
    lines.extend(_legend_lines(graphs, "  "))
    lines.append("}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- rendering


GRAPHVIZ_HINT = ("Graphviz's 'dot' program is needed for SVG/PNG pictures: install it with "
                 "'apt-get install graphviz' (Debian/Ubuntu), 'brew install graphviz' (macOS) or "
                 "'conda install graphviz'; or write .dot/.html (no Graphviz needed) "
                 "or .svg with --engine builtin")


def have_dot() -> bool:
    return shutil.which("dot") is not None


def render_dot(dot_text: str, fmt: str) -> bytes:
    """Render DOT text with Graphviz (``fmt``: svg or png). Raises UsageError without it."""
    from tilemem.errors import UsageError
    exe = shutil.which("dot")
    if exe is None:
        raise UsageError(GRAPHVIZ_HINT)
    args = [exe, f"-T{fmt}"]
    if fmt == "png":
        args.append("-Gdpi=110")
    proc = subprocess.run(args, input=dot_text.encode("utf-8"), capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout


# -- pure-Python SVG ------------------------------------------------------------------

_GAP, _LINE_H, _CHAR_W, _INDENT, _TOP = 18, 13, 7.0, 22, 40


def _esc(s: str) -> str:
    return html.escape(s, quote=True)


def _svg_function(g: nx.MultiDiGraph, y0: float, out: list) -> tuple[float, float]:
    """Draw one function's graph starting at y0; returns (height used, width used).

    Nodes go top to bottom in program order (indented by their nesting), so every
    loop or branch is a contiguous run of rows and its box is a plain rectangle;
    edges are arcs on the right of the node column.
    """
    clusters = g.graph.get("clusters", {})

    def depth(cid):
        d = 0
        while cid is not None:
            d += 1
            cid = clusters[cid]["parent"]
        return d

    nodes = sorted(g.nodes(data=True), key=lambda x: x[1].get("order", 0))
    row = {n: i for i, (n, _) in enumerate(nodes)}
    labels = {n: node_label(n, a).split("\n") for n, a in nodes}
    node_w = max([max(len(l) for l in ls) * _CHAR_W + 24 for ls in labels.values()] + [120])
    height = {n: len(labels[n]) * _LINE_H + 12 for n in row}
    max_depth = max([depth(a.get("cluster")) for _, a in nodes] + [0])
    x_nodes = 20 + max_depth * _INDENT
    def path(cid) -> list:
        p = []
        while cid is not None:
            p.append(cid)
            cid = clusters[cid]["parent"]
        return p[::-1]

    # rows top to bottom; a node that opens k clusters gets k label lines of room above it
    y_of: dict[str, float] = {}
    opens: dict[str, list] = {}         # cluster -> the clusters opened with its first node
    y_end = y0 + _TOP
    prev: list = []
    for n, a in nodes:
        p = path(a.get("cluster"))
        new = [c for c in p if c not in prev]
        y_end += 16 * len(new)
        for c in new:
            opens[c] = new
        y_of[n] = y_end
        y_end += height[n] + _GAP
        prev = p
    fn = g.graph.get("function", "")
    out.append(f'<text x="10" y="{y0 + 22:.0f}" font-size="15" font-weight="bold">function {_esc(fn)}</text>')

    members: dict[str, list[str]] = {}
    for n, a in nodes:
        cid = a.get("cluster")
        while cid is not None:
            members.setdefault(cid, []).append(n)
            cid = clusters[cid]["parent"]
    span_right = x_nodes + node_w
    for cid, c in clusters.items():
        ms = members.get(cid)
        if not ms:
            continue
        d = depth(cid)
        x = 20 + (d - 1) * _INDENT - 10
        opened_with = opens.get(cid, [cid])
        inner = len(opened_with) - opened_with.index(cid) if cid in opened_with else 1
        top = min(y_of[n] for n in ms) - 6 - 16 * inner
        bottom = max(y_of[n] + height[n] for n in ms) + 6 + 3 * (max_depth - d)
        w = span_right + 12 + (max_depth - d) * 4 - x
        dash = ' stroke-dasharray="5,3"' if c["kind"] in ("if", "arm") else ""
        fill = "#f4f4f8" if c["kind"] == "loop" else "none"
        out.append(f'<rect x="{x}" y="{top:.0f}" width="{w:.0f}" height="{bottom - top:.0f}" rx="8" '
                   f'fill="{fill}" fill-opacity="0.6" stroke="#6a6a9a"{dash}/>')
        out.append(f'<text x="{x + 6}" y="{top + 12:.0f}" font-size="10" fill="#444">{_esc(c["label"])}</text>')

    arc_x0 = x_nodes + node_w
    max_bulge = 0.0
    for u, v, a in g.edges(data=True):
        span = abs(row[v] - row[u])
        if span == 0:
            continue
        y1 = y_of[u] + height[u] / 2 + 4
        y2 = y_of[v] + height[v] / 2 - 4
        bulge = 28 + 24 * span
        max_bulge = max(max_bulge, bulge)
        kind = a.get("kind")
        dash = (' stroke-dasharray="6,4"' if kind == "carry" else
                ' stroke-dasharray="2,3"' if kind in ("init", "yield", "alias") else "")
        color = "#777" if kind == "carry" else "#333"
        out.append(f'<path class="edge" data-src="{_esc(u)}" data-dst="{_esc(v)}" '
                   f'd="M{arc_x0:.0f},{y1:.0f} C{arc_x0 + bulge:.0f},{y1:.0f} {arc_x0 + bulge:.0f},{y2:.0f} '
                   f'{arc_x0 + 2:.0f},{y2:.0f}" fill="none" stroke="{color}"{dash} marker-end="url(#arrow)"/>')
        out.append(f'<text x="{arc_x0 + bulge * 0.75 + 3:.0f}" y="{(y1 + y2) / 2 + 3:.0f}" font-size="9" '
                   f'fill="{color}">{_esc(a.get("label", ""))}</text>')

    for n, a in nodes:
        at = _node_attrs(n, a)
        y, h = y_of[n], height[n]
        stroke = at.get("color", "#333")
        sw = at.get("penwidth", "1")
        dash = ' stroke-dasharray="4,3"' if "dashed" in at.get("style", "") else ""
        rx = 8 if "rounded" in at.get("style", "") else (h / 2 if at.get("shape") == "ellipse" else 2)
        out.append(f'<g class="node" data-id="{_esc(n)}"><title>{_esc(node_tooltip(n, a))}</title>')
        out.append(f'<rect x="{x_nodes}" y="{y:.0f}" width="{node_w:.0f}" height="{h}" rx="{rx:.0f}" '
                   f'fill="{at["fillcolor"]}" stroke="{stroke}" stroke-width="{sw}"{dash}/>')
        if at.get("peripheries") == "2":
            out.append(f'<rect x="{x_nodes - 4}" y="{y - 4:.0f}" width="{node_w + 8:.0f}" height="{h + 8}" '
                       f'rx="{rx + 3:.0f}" fill="none" stroke="{stroke}" stroke-width="1.5"/>')
        ls = labels[n]
        for i, l in enumerate(ls):
            weight = ' font-weight="bold"' if i == 0 else ""
            out.append(f'<text x="{x_nodes + node_w / 2:.0f}" y="{y + 16 + i * _LINE_H:.0f}" font-size="11" '
                       f'text-anchor="middle"{weight}>{_esc(l)}</text>')
        out.append("</g>")
    return y_end - y0 + 10, arc_x0 + max_bulge + 60


def _svg_legend(graphs, x: float, y: float, out: list) -> float:
    out.append(f'<text x="{x}" y="{y}" font-size="12" font-weight="bold">memory space</text>')
    yy = y + 8
    for label, fill, kind in _legend_items(graphs):
        if kind == "move":
            box = f'<rect x="{x}" y="{yy}" width="18" height="14" fill="white" stroke="{MOVE_PEN}" stroke-width="2.5"/>'
        elif kind == "hoist":
            box = (f'<rect x="{x}" y="{yy}" width="18" height="14" fill="white" stroke="{HOIST_PEN}" stroke-width="2"/>'
                   f'<rect x="{x - 3}" y="{yy - 3}" width="24" height="20" fill="none" stroke="{HOIST_PEN}"/>')
        else:
            dash = ' stroke-dasharray="4,3"' if kind == "unresolved" else ""
            box = f'<rect x="{x}" y="{yy}" width="18" height="14" fill="{fill}" stroke="#333"{dash}/>'
        out.append(box + f'<text x="{x + 26}" y="{yy + 11}" font-size="11">{_esc(label)}</text>')
        yy += 20
    return yy


def to_svg_builtin(graphs: Sequence[nx.MultiDiGraph], title: Optional[str] = None) -> str:
    """A pure-Python SVG of the graphs (no Graphviz): program order top to bottom."""
    body: list[str] = []
    y = 30.0 if title else 0.0
    if title:
        body.append(f'<text x="10" y="20" font-size="13" fill="#333">{_esc(title)}</text>')
    width = 300.0
    for g in graphs:
        h, w = _svg_function(g, y, body)
        y += h
        width = max(width, w)
    legend_end = _svg_legend(graphs, width, 30, body)
    total_w = width + 170
    total_h = max(y, legend_end) + 10
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
            f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="Helvetica, Arial, sans-serif">',
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
            '<rect width="100%" height="100%" fill="white"/>']
    return "\n".join(head + body + ["</svg>"]) + "\n"


# -- HTML ------------------------------------------------------------------------------

_HTML_JS = """
(function () {
  // Hover a node: highlight it and the edges that touch it (works for Graphviz and builtin SVG).
  function idOf(g) {
    if (g.dataset && g.dataset.id) return g.dataset.id;
    var t = g.querySelector('title'); return t ? t.textContent : '';
  }
  function ends(e) {
    if (e.dataset && e.dataset.src) return [e.dataset.src, e.dataset.dst];
    var t = e.querySelector('title'); if (!t) return ['', ''];
    var p = t.textContent.split('->'); return [p[0], p[1] || ''];
  }
  document.querySelectorAll('svg .node').forEach(function (n) {
    var id = idOf(n);
    n.addEventListener('mouseenter', function () {
      document.querySelectorAll('svg .edge').forEach(function (e) {
        var se = ends(e); if (se[0] === id || se[1] === id) e.classList.add('hot');
      });
      n.classList.add('hot');
    });
    n.addEventListener('mouseleave', function () {
      document.querySelectorAll('svg .hot').forEach(function (e) { e.classList.remove('hot'); });
    });
  });
})();
"""


def _decisions_table(residency) -> str:
    rows = []
    for rec in residency or ():
        cells = [_record_field(rec, "function"), _record_field(rec, "var"), _record_field(rec, "line"),
                 "hoisted" if _record_field(rec, "hoisted") else "stays", _record_field(rec, "reason")]
        rows.append("<tr>" + "".join(f"<td>{_esc('' if c is None else str(c))}</td>" for c in cells) + "</tr>")
    if not rows:
        return ""
    return ("<h2>Residency decisions</h2>\n<table><tr><th>function</th><th>var</th><th>line</th>"
            "<th>verdict</th><th>reason</th></tr>\n" + "\n".join(rows) + "\n</table>")


def to_html(svg: str, dot_text: str, title: str, residency=None) -> str:
    """One self-contained page: the SVG inline, the residency decisions (when given), the
    DOT source, a little JS; no network."""
    svg = svg[svg.find("<svg"):] if "<svg" in svg else svg
    decisions = _decisions_table(residency)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{_esc(title)}</title>
<style>
body {{ font-family: Helvetica, Arial, sans-serif; margin: 1.5em; color: #222; }}
.graph {{ overflow: auto; border: 1px solid #ddd; padding: 0.5em; }}
.graph svg {{ max-width: none; height: auto; }}
.hot path, path.hot {{ stroke: #d62728 !important; stroke-width: 2.5px; }}
.node.hot rect, .node.hot polygon, .node.hot ellipse {{ stroke-width: 3px; }}
pre {{ background: #f6f6f6; padding: 0.8em; overflow: auto; font-size: 12px; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 13px; }}
td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }}
</style>
</head>
<body>
<h1>{_esc(title)}</h1>
<p>Tile vars coloured by memory space; edges labelled by operand slot; loops and branches
drawn as boxes. Hover a node to highlight its edges.</p>
<div class="graph">
{svg}
</div>
{decisions}
<details><summary>DOT source</summary><pre>{_esc(dot_text)}</pre></details>
<script>{_HTML_JS}</script>
</body>
</html>
"""
