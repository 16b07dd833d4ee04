"""The dataflow graph of a solved program, and its pictures — one module per job:

* ``build``: the networkx graph of each InCore function (nodes, operand edges, clusters);
* ``look``: how nodes, edges and the legend look, shared by every layout;
* ``dot``: Graphviz DOT text, and SVG/PNG through the ``dot`` program when installed;
* ``layout``: tilemem's own pure-Python SVG layout (the fallback without Graphviz);
* ``html``: one self-contained page (pan/zoom, search, function index, legend, decisions).
"""
from tilemem.tools.colors import space_color
from tilemem.tools.graph.build import build_graph, build_graphs, hoisted_statements
from tilemem.tools.graph.dot import GRAPHVIZ_HINT, have_dot, render, render_dot, to_dot
from tilemem.tools.graph.html import to_html
from tilemem.tools.graph.layout import to_svg_builtin
from tilemem.tools.graph.look import node_label, node_tooltip, qualified

__all__ = ["build_graph", "build_graphs", "hoisted_statements", "to_dot", "render", "render_dot", "have_dot",
           "GRAPHVIZ_HINT", "to_svg_builtin", "to_html", "node_label", "node_tooltip", "qualified",
           "space_color"]
