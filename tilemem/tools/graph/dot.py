"""Graphviz DOT text for the graphs (written here: no pydot/pygraphviz), and rendering
through the Graphviz ``dot`` program when it is installed.

Each function is one cluster (``id="fn_<i>"`` in the SVG), node ids are qualified by
their function.  ``render`` lays out each function on its own with ``dot`` and packs
them in a grid with Graphviz's ``gvpack`` (then ``neato -n2`` draws the result), so a
real kernel of 38 functions gives a picture of a sane aspect ratio instead of one row
30,000 points wide; without gvpack it falls back on one ``dot`` run.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from typing import Optional, Sequence

import networkx as nx

from tilemem.tools.colors import HOIST_PEN, MOVE_PEN
from tilemem.tools.graph.look import edge_attrs, legend_items, node_attrs, qualified


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _fmt_attrs(d: dict) -> str:
    return ", ".join(f"{k}={_q(str(v))}" for k, v in d.items())


def _legend_lines(graphs, ind: str) -> list[str]:
    """The legend as one node with an HTML-like table (compact, placed by dot)."""
    rows = []
    for label, fill, kind in legend_items(graphs):
        border = {"move": f' COLOR="{MOVE_PEN}" BORDER="3"', "hoist": f' COLOR="{HOIST_PEN}" BORDER="3"'}.get(kind, ' BORDER="1"')
        text = html.escape(label)
        rows.append(f'<TR><TD BGCOLOR="{fill}"{border} WIDTH="18"> </TD><TD ALIGN="LEFT">{text}</TD></TR>')
    table = ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="2">'
             '<TR><TD COLSPAN="2"><B>memory space</B></TD></TR>' + "".join(rows) + "</TABLE>>")
    return [f'{ind}"legend" [shape="box", style="rounded", color="#999999", fontsize="10", label={table}];']


_CLUSTER_STYLE = {"loop": 'style="rounded,filled"; fillcolor="#f4f4f8"; color="#6a6a9a";',
                  "if": 'style="rounded,dashed"; color="#8a6a3a";',
                  "arm": 'style="dotted"; color="#aaaaaa";'}


def _function_lines(g, gi: int) -> list[str]:
    """One function as a cluster (``id="fn_<gi>"`` in SVG), then its edges."""
    fn = g.graph.get("function", f"f{gi}")
    lines = [f'  subgraph {_q("cluster_fn_" + str(gi))} {{',
             f'    id="fn_{gi}"; label={_q("function " + fn)}; style="bold"; color="#333333"; fontsize=14;']
    clusters = g.graph.get("clusters", {})
    children: dict[Optional[str], list[str]] = {}
    for cid, c in clusters.items():
        children.setdefault(c["parent"], []).append(cid)
    members: dict[Optional[str], list[str]] = {}
    for n, a in sorted(g.nodes(data=True), key=lambda x: x[1].get("order", 0)):
        members.setdefault(a.get("cluster"), []).append(n)

    def nid(n):
        return _q(qualified(fn, n))

    def emit(cid: Optional[str], ind: str):
        for n in members.get(cid, []):
            lines.append(f"{ind}{nid(n)} [{_fmt_attrs(node_attrs(n, g.nodes[n]))}];")
        for sub in children.get(cid, []):
            c = clusters[sub]
            style = _CLUSTER_STYLE.get(c["kind"], 'style="rounded"; color="#888888";')
            lines.append(f"{ind}subgraph {_q('cluster_' + fn + '_' + sub)} {{")
            lines.append(f"{ind}  id=\"fn_{gi}_{sub}\"; label={_q(c['label'])}; labeljust=\"l\"; "
                         f"fontsize=10; {style}")
            emit(sub, ind + "  ")
            lines.append(f"{ind}}}")

    emit(None, "    ")
    lines.append("  }")
    for u, v, a in g.edges(data=True):
        lines.append(f"  {nid(u)} -> {nid(v)} [{_fmt_attrs(edge_attrs(a))}];")
    return lines


_HEAD = ['  node [fontname="Helvetica", fontsize=11];',
         '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];']


def _graph_attrs(title: Optional[str]) -> str:
    return ('  graph [rankdir="TB", fontname="Helvetica", fontsize=12, newrank=true, compound=true'
            + (f", label={_q(title)}, labelloc=\"t\"" if title else "") + "];")


def to_dot(graphs: Sequence[nx.MultiDiGraph], title: Optional[str] = None, legend: bool = True) -> str:
    """DOT text for the graphs: one cluster per function, node ids ``function:name``."""
    lines = ["digraph tilemem {", _graph_attrs(title), *_HEAD]
    for gi, g in enumerate(graphs):
        lines.extend(_function_lines(g, gi))
    if legend:
        lines.extend(_legend_lines(graphs, "  "))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _separate_dots(graphs, title: Optional[str], legend: bool) -> list[str]:
    """One digraph per function (and one for the legend and title), for gvpack."""
    out = []
    if legend or title:
        lines = ["digraph legend {", _graph_attrs(title), *_HEAD]
        lines.extend(_legend_lines(graphs, "  ") if legend else ['  "legend" [style=invis, label=""];'])
        out.append("\n".join(lines + ["}"]) + "\n")
    for gi, g in enumerate(graphs):
        out.append("\n".join([f"digraph {_q('fn_' + str(gi))} {{", _graph_attrs(None), *_HEAD,
                              *_function_lines(g, gi), "}"]) + "\n")
    return out


# ----------------------------------------------------------------------------- rendering


GRAPHVIZ_HINT = ("Graphviz's 'dot' program is needed for SVG/PNG pictures: install it with "
                 "'apt-get install graphviz' (Debian/Ubuntu), 'brew install graphviz' (macOS) or "
                 "'conda install graphviz'; or write .dot/.html (no Graphviz needed) "
                 "or .svg with --layout builtin")


def have_dot() -> bool:
    return shutil.which("dot") is not None


def _run(args: list, data: bytes) -> bytes:
    proc = subprocess.run(args, input=data, capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(args[0])} failed: "
                           f"{proc.stderr.decode('utf-8', 'replace').strip()[:2000]}")
    return proc.stdout


def grid_columns(sizes: Sequence[tuple[float, float]], aspect: float = 1.6) -> int:
    """How many columns a row-major grid of boxes (in order) needs to come closest to
    ``aspect`` (width / height): each column as wide as its widest box, each row as high
    as its highest."""
    import math
    n = len(sizes)
    best, best_score = 1, None
    for cols in range(1, n + 1):
        widths = [max(sizes[i][0] for i in range(c, n, cols)) for c in range(min(cols, n))]
        heights = [max(sizes[i][1] for i in range(r, min(r + cols, n))) for r in range(0, n, cols)]
        score = abs(math.log(max(sum(widths), 1.0) / max(sum(heights), 1.0) / aspect))
        if best_score is None or score < best_score:
            best, best_score = cols, score
    return best


def render(graphs: Sequence[nx.MultiDiGraph], fmt: str, title: Optional[str] = None,
           legend: bool = True) -> bytes:
    """SVG or PNG of the graphs through Graphviz: several functions are laid out one by
    one and packed in a grid (dot, gvpack, neato -n2) when gvpack is installed, else all
    in one ``dot`` run."""
    from tilemem.errors import UsageError
    dot, gvpack, neato = (shutil.which(x) for x in ("dot", "gvpack", "neato"))
    if dot is None:
        raise UsageError(GRAPHVIZ_HINT)
    if len(graphs) < 2 or gvpack is None or neato is None:
        return render_dot(to_dot(graphs, title, legend), fmt)
    # one dot run per graph: Graphviz 2.43 lays out the later graphs of one input stream
    # differently from run to run (state left by the earlier ones), each graph alone is stable
    laid = b"".join(_run([dot, "-Tdot"], g.encode("utf-8")) for g in _separate_dots(graphs, title, legend))
    sizes = [(float(m.group(3)) - float(m.group(1)), float(m.group(4)) - float(m.group(2)))
             for m in re.finditer(rb'^digraph [^\n]*\{\s*graph \[[^\]]*?bb="([-\d.]+),([-\d.]+),([-\d.]+),([-\d.]+)"',
                                  laid, re.M)]
    cols = grid_columns(sizes) if sizes else 6
    packed = _run([gvpack, f"-array_u{cols}", "-m", "24"], laid)
    # a PNG at 110 dpi, at most 100 inches (11,000 pixels) on its longer side
    png = ["-Gdpi=110", "-Gsize=100,100"] if fmt == "png" else []
    return _run([neato, "-s", "-n2", f"-T{fmt}"] + png, packed)


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
