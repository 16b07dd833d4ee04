"""How nodes, edges and the legend look — shared by every layout (DOT, built-in, HTML).

Colours come from the one memory-space palette (``tilemem.tools.colors``), so a space has
the same colour in DOT, SVG, PNG, the HTML page and on a terminal.
"""
from __future__ import annotations

from tilemem.ir.optable import op_table
from tilemem.tools.colors import (HOIST_PEN, MOVE_PEN, SPACE_ORDER, UNRESOLVED_COLOR,
                                  space_color)


def qualified(function: str, node: str) -> str:
    """A node's id in every picture: its function, a colon, its id in the function's graph."""
    return f"{function}:{node}"


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
        bits.append(f"{op_table().inserted_move} inserted by tilemem")
    if a.get("reason"):
        bits.append(a["reason"])
    return "\n".join(bits)


def node_attrs(name: str, a: dict) -> dict:
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


def edge_attrs(a: dict) -> dict:
    attrs = {"label": a.get("label", "")}
    kind = a.get("kind")
    if kind == "carry":
        attrs.update(style="dashed", constraint="false", color="#777777", fontcolor="#777777")
    elif kind in ("init", "yield", "alias"):
        attrs.update(style="dotted")
    return attrs


def legend_items(graphs) -> list[tuple[str, str, str]]:
    """(label, fill, kind) rows of the legend: the spaces used, then the marks used."""
    used = [a.get("space") for g in graphs for _, a in g.nodes(data=True) if a.get("kind") != "effect"]
    items = [("Tensor (DDR)" if s == "DDR" else s, space_color(s), "space")
             for s in SPACE_ORDER if s in used]
    items += [(s, space_color(s), "space") for s in sorted({s for s in used if s and s not in SPACE_ORDER})]
    if None in used:
        items.append(("no space", UNRESOLVED_COLOR, "unresolved"))
    if any(a.get("move") for g in graphs for _, a in g.nodes(data=True)):
        items.append((f"inserted {op_table().inserted_move}", "#ffffff", "move"))
    if any(a.get("hoisted") for g in graphs for _, a in g.nodes(data=True)):
        items.append(("hoisted out of loop (double border)", "#ffffff", "hoist"))
    return items


def arrange(sizes: list[tuple[float, float]], aspect: float = 1.6) -> list[list[int]]:
    """Columns of function indices (program order within each column) whose bounding box is
    closest to ``aspect`` (width / height): each function goes to the currently shortest
    column, for 1 to n columns, and the best count wins.  One function: one column."""
    n = len(sizes)
    best, best_score = [list(range(n))], None
    for ncols in range(1, n + 1):
        cols: list[list[int]] = [[] for _ in range(ncols)]
        heights = [0.0] * ncols
        for i, (w, h) in enumerate(sizes):
            c = min(range(ncols), key=lambda k: heights[k])
            cols[c].append(i)
            heights[c] += h
        width = sum(max(sizes[i][0] for i in col) for col in cols if col)
        height = max(heights)
        score = abs((width / max(height, 1.0)) / aspect - 1.0)
        if best_score is None or score < best_score:
            best, best_score = [c for c in cols if c], score
        if width > aspect * height * 1.5:    # wider and wider from here on
            break
    return best
