"""One self-contained HTML page for the dataflow graphs of a solved program.

The page works offline: the SVG (Graphviz's or the built-in layout), the styles and the
scripts are inline; pan and zoom come from svg-pan-zoom (BSD-2-Clause, vendored in
``vendor/``, inlined with its notice).  Around the picture:

* a side bar that stays in view: a search box (a tile by name or ``function:name``;
  Enter goes to the next match), the legend, and an index of the functions (a click
  brings that function's cluster into view);
* the page opens at a readable zoom (0.9 to 1.5 screen pixels per point) on the first
  function, not at "fit everything";
* hovering a node highlights it and its edges in a colour no mark uses;
* a table of every decision: the memory space of every tile, every inserted move with
  the line that needed it, every residency verdict.

For tests and scripts, the page reports on its own ``<body>``: ``data-ready``,
``data-start-zoom`` and ``data-zoom`` (screen pixels per SVG unit when it opened, and
now), ``data-errors`` (uncaught script errors), and
with ``#search=TEXT`` in the address it runs that search at load and sets
``data-search-hits``.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Optional, Sequence

from tilemem.ir.optable import op_table
from tilemem.tools.colors import HOIST_PEN, HOVER_PEN, MOVE_PEN, SPACE_ORDER, space_color
from tilemem.tools.graph.build import record_field
from tilemem.tools.graph.look import legend_items, qualified

VENDOR = Path(__file__).resolve().parent / "vendor"


def _esc(s) -> str:
    return html.escape("" if s is None else str(s), quote=True)


def _swatch(space: Optional[str]) -> str:
    return f'<span class="sw" style="background:{space_color(space)}"></span>{_esc(space or "no space")}'


# ----------------------------------------------------------------------------- tables


def _spaces_table(graphs) -> str:
    rows = []
    for gi, g in enumerate(graphs):
        fn = g.graph.get("function", "")
        for n, a in sorted(g.nodes(data=True), key=lambda x: x[1].get("order", 0)):
            if a.get("kind") not in ("tile", "iter_arg"):
                continue
            marks = " ".join(m for m in ("inserted move" if a.get("move") else "",
                                         "hoisted" if a.get("hoisted") else "") if m)
            rows.append(f'<tr data-id="{_esc(qualified(fn, n))}" data-fn="fn_{gi}"><td>{_esc(fn)}</td>'
                        f'<td><a href="#" class="goto">{_esc(a.get("name", n))}</a></td>'
                        f'<td>{_swatch(a.get("space"))}</td><td>{_esc(a.get("op"))}</td>'
                        f'<td>{_esc(a.get("line"))}</td><td>{_esc(marks)}</td></tr>')
    return ('<h3 id="spaces">Memory space of every tile</h3>\n<table class="decisions" id="spaces-table">'
            '<tr><th>function</th><th>tile</th><th>space</th><th>defined by</th><th>line</th>'
            '<th>marks</th></tr>\n' + "\n".join(rows) + "\n</table>")


def _moves_table(moves, source_lines) -> str:
    rows = []
    for m in moves or ():
        fn, name = record_field(m, "function"), record_field(m, "name")
        line = record_field(m, "consumer_line")
        text = source_lines[line - 1].strip() if source_lines and line and 0 < line <= len(source_lines) else ""
        reason = f"line {line}: " if line else ""
        reason += f"<code>{_esc(text)}</code> reads it in {_esc(record_field(m, 'target'))}" if text else \
            f"its consumer needs {_esc(record_field(m, 'target'))}"
        rows.append(f'<tr data-id="{_esc(qualified(fn, name))}"><td>{_esc(fn)}</td>'
                    f'<td><a href="#" class="goto">{_esc(name)}</a></td><td>{_esc(record_field(m, "producer"))}</td>'
                    f'<td>{_swatch(record_field(m, "target"))}</td><td>{reason}</td></tr>')
    if not rows:
        return f'<h3 id="moves">Inserted moves</h3>\n<p>No {op_table().inserted_move} was inserted.</p>'
    return ('<h3 id="moves">Inserted moves</h3>\n<table class="decisions" id="moves-table"><tr>'
            '<th>function</th><th>move</th><th>copies</th><th>to</th><th>why (the line that needs it)</th>'
            '</tr>\n' + "\n".join(rows) + "\n</table>")


def _residency_table(residency) -> str:
    if residency is None:
        return ('<h3 id="residency">Residency decisions</h3>\n<p>No backend was set: the '
                'loop-invariant residency phase did not run.</p>')
    rows = []
    for rec in residency:
        fn, var = record_field(rec, "function"), record_field(rec, "var")
        cells = [fn, var, record_field(rec, "line"), "hoisted" if record_field(rec, "hoisted") else "stays",
                 record_field(rec, "reason")]
        rows.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    if not rows:
        return '<h3 id="residency">Residency decisions</h3>\n<p>No marked Mat load inside a loop.</p>'
    return ('<h3 id="residency">Residency decisions</h3>\n<table class="decisions" id="residency-table"><tr>'
            "<th>function</th><th>var</th><th>line</th><th>verdict</th><th>reason</th></tr>\n"
            + "\n".join(rows) + "\n</table>")


def _legend(graphs) -> str:
    rows = []
    for label, fill, kind in legend_items(graphs):
        if kind == "move":
            box = f'<span class="sw" style="background:#fff;border:2.5px solid {MOVE_PEN}"></span>'
        elif kind == "hoist":
            box = f'<span class="sw" style="background:#fff;border:3px double {HOIST_PEN}"></span>'
        elif kind == "unresolved":
            box = '<span class="sw" style="background:#fff;border:1px dashed #333"></span>'
        else:
            box = f'<span class="sw" style="background:{fill}"></span>'
        rows.append(f"<li>{box}{_esc(label)}</li>")
    rows.append(f'<li><span class="sw" style="background:#fff;border:3px solid {HOVER_PEN}"></span>'
                f'hovered / found</li>')
    return '<div id="legend"><h2>Legend</h2><ul>' + "".join(rows) + "</ul></div>"


def _index(graphs) -> str:
    items = []
    for gi, g in enumerate(graphs):
        fn = g.graph.get("function", "")
        n_tiles = sum(1 for _, a in g.nodes(data=True) if a.get("kind") in ("tile", "iter_arg"))
        n_moves = sum(1 for _, a in g.nodes(data=True) if a.get("move"))
        extra = f", {n_moves} move{'s' if n_moves != 1 else ''}" if n_moves else ""
        items.append(f'<li><a href="#" data-fn="fn_{gi}">{_esc(fn)}</a> '
                     f'<span class="n">{n_tiles} tile{"s" if n_tiles != 1 else ""}{extra}</span></li>')
    return f'<nav id="index"><h2>Functions ({len(graphs)})</h2><ol>' + "".join(items) + "</ol></nav>"


# ----------------------------------------------------------------------------- page


_CSS = """
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font-family: Helvetica, Arial, sans-serif; color: #222; font-size: 14px; }
#side { position: fixed; top: 0; left: 0; bottom: 0; width: 300px; overflow-y: auto;
        padding: 12px 14px; background: #fafafa; border-right: 1px solid #ddd; z-index: 2; }
#side h1 { font-size: 16px; margin: 0 0 10px 0; word-break: break-all; }
#side h2 { font-size: 13px; margin: 14px 0 6px 0; text-transform: uppercase; color: #555; }
#search { width: 100%; padding: 6px 8px; font-size: 14px; border: 1px solid #aaa; border-radius: 4px; }
#hits { font-size: 12px; color: #555; min-height: 1.2em; margin-top: 4px; }
#legend ul, #index ol { margin: 0; padding-left: 0; list-style: none; }
#legend li { margin: 3px 0; font-size: 13px; }
#index li { margin: 2px 0; font-size: 13px; }
#index .n { color: #888; font-size: 11px; }
#index a.current { font-weight: bold; }
.sw { display: inline-block; width: 18px; height: 13px; margin-right: 7px; vertical-align: -2px;
      border: 1px solid #333; }
#main { margin-left: 300px; padding: 0 16px 24px 16px; min-width: 0; overflow-x: auto; }
table.decisions code { white-space: pre-wrap; word-break: break-all; }
#graph { height: 78vh; border: 1px solid #ccc; margin-top: 12px; background: #fff; overflow: hidden; }
#graph svg { width: 100%; height: 100%; display: block; }
.toolbar { margin: 8px 0 0 0; font-size: 12px; color: #555; }
.toolbar button { font-size: 12px; margin-right: 4px; }
table.decisions { border-collapse: collapse; margin: 0.6em 0 1.4em 0; font-size: 13px; }
table.decisions td, table.decisions th { border: 1px solid #ccc; padding: 3px 8px; text-align: left;
                                        vertical-align: top; }
table.decisions tr.match td { background: #eaf6ea; }
pre { background: #f6f6f6; padding: 0.8em; overflow: auto; font-size: 12px; max-height: 40em; }
svg .node.hot path, svg .node.hot polygon, svg .node.hot ellipse, svg .node.hot rect,
svg .node.found path, svg .node.found polygon, svg .node.found ellipse, svg .node.found rect {
  stroke: HOVER !important; stroke-width: 4px !important; }
svg .edge.hot path, svg path.edge.hot { stroke: HOVER !important; stroke-width: 3px !important; }
svg .edge.hot polygon { stroke: HOVER !important; fill: HOVER !important; }
svg .node { cursor: pointer; }
""".replace("HOVER", HOVER_PEN)

_JS = r"""
(function () {
  var body = document.body, errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message || e)); body.setAttribute('data-errors', errors.join(' | '));
  });
  var svg = document.querySelector('#graph svg');
  // ids: data-id (built-in layout) or the <title> Graphviz writes (both "function:name")
  function idOf(g) {
    if (g.getAttribute('data-id')) return g.getAttribute('data-id');
    var t = g.querySelector('title'); return t ? t.textContent : '';
  }
  function ends(e) {
    if (e.getAttribute('data-src')) return [e.getAttribute('data-src'), e.getAttribute('data-dst')];
    var t = e.querySelector('title'); if (!t) return ['', ''];
    var p = t.textContent.split('->'); return [p[0], p[1] || ''];
  }
  var nodes = {}, touching = {};
  Array.prototype.forEach.call(svg.querySelectorAll('.node'), function (n) {
    var id = idOf(n); if (id && id.indexOf(':#') < 0) nodes[id] = n;
  });
  Array.prototype.forEach.call(svg.querySelectorAll('.edge'), function (e) {
    ends(e).forEach(function (id) { (touching[id] = touching[id] || []).push(e); });
  });
  // pan and zoom (svg-pan-zoom); the page opens at a readable zoom on the first function
  var pz = svgPanZoom(svg, {zoomEnabled: true, controlIconsEnabled: true, fit: false, center: false,
                            minZoom: 0.02, maxZoom: 20, zoomScaleSensitivity: 0.3,
                            dblClickZoomEnabled: false});
  var viewport = svg.querySelector('.svg-pan-zoom_viewport');
  function box(el) {            // el's bounding box in the viewport's (unzoomed) units
    var b = el.getBBox(), m = viewport.getCTM().inverse().multiply(el.getCTM());
    var pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]];
    var xs = [], ys = [];
    pts.forEach(function (p) {
      var q = svg.createSVGPoint(); q.x = p[0]; q.y = p[1]; q = q.matrixTransform(m);
      xs.push(q.x); ys.push(q.y);
    });
    var x = Math.min.apply(null, xs), y = Math.min.apply(null, ys);
    return {x: x, y: y, w: Math.max.apply(null, xs) - x, h: Math.max.apply(null, ys) - y};
  }
  function realZoom() { return pz.getSizes().realZoom; }
  function show(el, pad, center, keep) {  // bring el into view at a readable zoom (0.9x .. 1.5x)
    var s = pz.getSizes(), b = box(el), base = s.realZoom / pz.getZoom();
    var fit = Math.min(s.width / (b.w + 2 * pad), s.height / (b.h + 2 * pad));
    var real = Math.max(0.9, Math.min(1.5, fit));
    if (keep) real = (s.realZoom >= 0.9 && s.realZoom <= 1.5) ? s.realZoom : 1.1;
    pz.zoom(real / base);
    var r = realZoom();
    var x = center ? s.width / 2 - (b.x + b.w / 2) * r : pad - b.x * r;
    var y = center ? s.height / 2 - (b.y + b.h / 2) * r : pad - b.y * r;
    pz.pan({x: x, y: y});
    body.setAttribute('data-zoom', realZoom().toFixed(3));
  }
  function cluster(fid) {
    return document.getElementById(fid) || svg.querySelector('[id="' + fid + '"]');
  }
  // hover: the node and its edges in the highlight colour
  function clearHot() {
    Array.prototype.forEach.call(svg.querySelectorAll('.hot'), function (e) { e.classList.remove('hot'); });
  }
  Object.keys(nodes).forEach(function (id) {
    var n = nodes[id];
    n.addEventListener('mouseenter', function () {
      n.classList.add('hot'); (touching[id] || []).forEach(function (e) { e.classList.add('hot'); });
    });
    n.addEventListener('mouseleave', clearHot);
  });
  // search: a tile by (part of) its name or function:name; Enter goes to the next match
  var input = document.getElementById('search'), hitsEl = document.getElementById('hits');
  var hits = [], at = -1;
  function search(text) {
    Array.prototype.forEach.call(svg.querySelectorAll('.found'), function (e) { e.classList.remove('found'); });
    Array.prototype.forEach.call(document.querySelectorAll('tr.match'), function (r) { r.classList.remove('match'); });
    hits = []; at = -1;
    var q = text.trim().toLowerCase();
    if (q) {
      Object.keys(nodes).forEach(function (id) { if (id.toLowerCase().indexOf(q) >= 0) hits.push(id); });
      hits.forEach(function (id) { nodes[id].classList.add('found'); });
      Array.prototype.forEach.call(document.querySelectorAll('tr[data-id]'), function (r) {
        if (r.getAttribute('data-id').toLowerCase().indexOf(q) >= 0) r.classList.add('match');
      });
    }
    hitsEl.textContent = q ? (hits.length + (hits.length === 1 ? ' tile' : ' tiles') + ' found' +
                              (hits.length ? ' (Enter: next)' : '')) : '';
    body.setAttribute('data-search-hits', String(hits.length));
    body.setAttribute('data-search-first', hits.length ? hits[0] : '');
    if (hits.length) next();
  }
  function next() {
    if (!hits.length) return;
    at = (at + 1) % hits.length;
    show(nodes[hits[at]], 60, true, true);
  }
  function goTo(id) { if (nodes[id]) { input.value = id; search(id); } }
  input.addEventListener('input', function () { search(input.value); });
  input.addEventListener('keydown', function (e) { if (e.key === 'Enter') { e.preventDefault(); next(); } });
  // the function index and the decision tables
  Array.prototype.forEach.call(document.querySelectorAll('#index a[data-fn]'), function (a) {
    a.addEventListener('click', function (e) {
      e.preventDefault();
      Array.prototype.forEach.call(document.querySelectorAll('#index a.current'), function (c) { c.classList.remove('current'); });
      a.classList.add('current');
      var c = cluster(a.getAttribute('data-fn')); if (c) show(c, 20, false);
      document.getElementById('graph').scrollIntoView({block: 'nearest'});
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('tr[data-id] a.goto'), function (a) {
    a.addEventListener('click', function (e) {
      e.preventDefault(); goTo(a.closest('tr').getAttribute('data-id'));
      document.getElementById('graph').scrollIntoView({block: 'nearest'});
    });
  });
  document.getElementById('fit').addEventListener('click', function () {
    pz.fit(); pz.center(); body.setAttribute('data-zoom', realZoom().toFixed(3));
  });
  document.getElementById('first').addEventListener('click', function () { start(); });
  function start() {
    var first = cluster('fn_0');
    if (first) show(first, 20, false);
    body.setAttribute('data-zoom', realZoom().toFixed(3));
  }
  start();
  body.setAttribute('data-start-zoom', realZoom().toFixed(3));
  var m = /[#&]search=([^&]*)/.exec(location.hash);
  if (m) { input.value = decodeURIComponent(m[1]); search(input.value); }
  body.setAttribute('data-ready', '1');
})();
"""


def to_html(svg: str, dot_text: str, title: str, residency=None, *, graphs: Sequence = (),
            moves: Sequence = (), source: Optional[str] = None) -> str:
    """The page (see the module docstring).  ``graphs``: the drawn graphs (index, legend,
    the space of every tile); ``moves``: ``Solution.moves``; ``residency``:
    ``Solution.residency`` (None: no backend); ``source``: the input text (each move's
    reason line)."""
    svg = svg[svg.find("<svg"):] if "<svg" in svg else svg
    lines = source.splitlines() if source else None
    spz = (VENDOR / "svg-pan-zoom.min.js").read_text(encoding="utf-8")
    notice = (VENDOR / "svg-pan-zoom.LICENSE").read_text(encoding="utf-8")
    n_tiles = sum(1 for g in graphs for _, a in g.nodes(data=True) if a.get("kind") in ("tile", "iter_arg"))
    summary = (f"{len(graphs)} function{'s' if len(graphs) != 1 else ''}, {n_tiles} tiles, "
               f"{len(moves or ())} inserted move{'s' if len(moves or ()) != 1 else ''}") if graphs else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_esc(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<aside id="side">
<h1>{_esc(title)}</h1>
<input id="search" type="search" placeholder="find a tile: name or function:name" autocomplete="off">
<div id="hits"></div>
{_legend(graphs)}
{_index(graphs) if graphs else ""}
<p><a href="#decisions">every decision (tables)</a></p>
</aside>
<div id="main">
<div class="toolbar">{_esc(summary)}. Drag to pan, wheel to zoom, hover a node for its edges.
<button id="first" type="button">first function</button><button id="fit" type="button">whole program</button></div>
<div id="graph">
{svg}
</div>
<section id="decisions">
<h2>Decisions</h2>
{_spaces_table(graphs) if graphs else ""}
{_moves_table(moves, lines) if graphs else ""}
{_residency_table(residency) if graphs or residency else ""}
</section>
<details><summary>DOT source</summary><pre>{_esc(dot_text)}</pre></details>
</div>
<script>
/* svg-pan-zoom 3.6.2, https://github.com/bumbu/svg-pan-zoom
{notice.replace("*/", "* /").replace("</", "< /")}
*/
{spz}
</script>
<script>{_JS}</script>
</body>
</html>
"""
