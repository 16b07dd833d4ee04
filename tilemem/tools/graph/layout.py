"""tilemem's own SVG layout (no Graphviz): the fallback of ``tilemem graph``.

Within a function, nodes go top to bottom in program order (indented by their nesting),
so every loop or branch is a contiguous run of rows drawn as a plain box, and edges are
labelled arcs to the right of the node column.  Each function is a group
(``<g class="cluster function" id="fn_<i>">``) with a frame; the functions are placed in
columns (``look.arrange``) so a kernel of many functions stays near a 16:10 page.  Node
ids (``data-id``, ``data-src``/``data-dst`` of edges) are qualified by the function.
"""
from __future__ import annotations

import html
from typing import Optional, Sequence

import networkx as nx

from tilemem.tools.colors import HOIST_PEN, MOVE_PEN
from tilemem.tools.graph.look import arrange, legend_items, node_attrs, node_label, node_tooltip, \
    qualified

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
    q = {n: _esc(qualified(fn, n)) for n, _ in nodes}

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
        out.append(f'<path class="edge" data-src="{q[u]}" data-dst="{q[v]}" '
                   f'd="M{arc_x0:.0f},{y1:.0f} C{arc_x0 + bulge:.0f},{y1:.0f} {arc_x0 + bulge:.0f},{y2:.0f} '
                   f'{arc_x0 + 2:.0f},{y2:.0f}" fill="none" stroke="{color}"{dash} marker-end="url(#arrow)"/>')
        out.append(f'<text x="{arc_x0 + bulge * 0.75 + 3:.0f}" y="{(y1 + y2) / 2 + 3:.0f}" font-size="9" '
                   f'fill="{color}">{_esc(a.get("label", ""))}</text>')

    for n, a in nodes:
        at = node_attrs(n, a)
        y, h = y_of[n], height[n]
        stroke = at.get("color", "#333")
        sw = at.get("penwidth", "1")
        dash = ' stroke-dasharray="4,3"' if "dashed" in at.get("style", "") else ""
        rx = 8 if "rounded" in at.get("style", "") else (h / 2 if at.get("shape") == "ellipse" else 2)
        out.append(f'<g class="node" data-id="{q[n]}"><title>{_esc(node_tooltip(n, a))}</title>')
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
    for label, fill, kind in legend_items(graphs):
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


def to_svg_builtin(graphs: Sequence[nx.MultiDiGraph], title: Optional[str] = None,
                   legend: bool = True) -> str:
    """A pure-Python SVG of the graphs (no Graphviz); see the module docstring."""
    top = 30.0 if title else 0.0
    drawn = []
    for g in graphs:
        out: list[str] = []
        h, w = _svg_function(g, 0.0, out)
        drawn.append((w, h, out))
    sizes = [(w + 20, h + 20) for w, h, _ in drawn]
    body: list[str] = []
    if title:
        body.append(f'<text x="10" y="20" font-size="13" fill="#333">{_esc(title)}</text>')
    x = 0.0
    width, height = 300.0, top
    for col in arrange(sizes):
        y = top
        col_w = max(sizes[i][0] for i in col)
        for i in col:
            w, h, out = drawn[i]
            fn = graphs[i].graph.get("function", f"f{i}")
            body.append(f'<g class="cluster function" id="fn_{i}" data-function="{_esc(fn)}" '
                        f'transform="translate({x:.0f},{y:.0f})">')
            body.append(f'<rect class="frame" x="2" y="2" width="{w:.0f}" height="{h:.0f}" rx="6" '
                        f'fill="none" stroke="#333" stroke-width="1.2"/>')
            body.extend(out)
            body.append("</g>")
            y += sizes[i][1]
        x += col_w
        width, height = max(width, x), max(height, y)
    legend_end = _svg_legend(graphs, width + 10, 30, body) if legend else 0
    total_w = width + (180 if legend else 10)
    total_h = max(height, legend_end) + 10
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
            f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="Helvetica, Arial, sans-serif">',
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
            '<rect width="100%" height="100%" fill="white"/>']
    return "\n".join(head + body + ["</svg>"]) + "\n"
