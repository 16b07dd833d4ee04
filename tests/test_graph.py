"""``tilemem graph`` and ``tilemem.tools.graph``: the dataflow graph of the solved program."""
from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

import tilemem
from cli_helpers import CORPUS, REPO, run, run_in_process
from tilemem.tools.graph import build_graph, build_graphs, to_dot, to_html, to_svg_builtin

EXAMPLE = REPO / "examples" / "matmul_bias_relu.pto"
LOOP = REPO / "examples" / "accumulate_loop.pto"
STATIONARY = CORPUS / "test_tensor_matmul_stationary_lhs_loads_once_1"
PHI = CORPUS / "test_cast_of_if_phi_acc_operand_gets_move_1" / "before.pto"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")


def _edges(g):
    return {(u, v, a["label"]) for u, v, a in g.edges(data=True)}


# --------------------------------------------------------------------------- the graph


def test_nodes_carry_the_solved_spaces_and_edges_the_operand_slots():
    sol = tilemem.solve(EXAMPLE, backend="910B")
    (g,) = build_graphs(sol)
    assert g.graph["function"] == "kernel"
    for var, space in sol.spaces["kernel"].items():
        assert g.nodes[var]["space"] == space
    assert g.nodes["a_tile_Left"]["space"] == "Left" and g.nodes["a_tile_Left"]["move"]
    assert g.nodes["c_tile"]["op"] == "tile.matmul" and not g.nodes["c_tile"]["move"]
    assert {("a_tile_Left", "c_tile", "0"), ("b_tile_Right", "c_tile", "1"),
            ("a_tile", "a_tile_Left", "0")} <= _edges(g)
    assert {m.name for m in sol.moves} == {n for n, a in g.nodes(data=True) if a["move"]}
    assert g.nodes["a"]["kind"] == "tensor" and g.nodes["a"]["space"] == "DDR"


def test_loops_are_clusters_with_iter_args_and_carried_values():
    (g,) = build_graphs(tilemem.solve(LOOP))
    clusters = g.graph["clusters"]
    (cid,) = clusters
    assert clusters[cid]["label"] == "for k in pl.range(0, 256, 64)"
    assert clusters[cid]["kind"] == "loop"
    assert g.nodes["acc"]["kind"] == "iter_arg" and g.nodes["acc"]["cluster"] == cid
    assert g.nodes["a_k"]["cluster"] == cid and g.nodes["acc_out"]["cluster"] is None
    edges = _edges(g)
    assert {("acc0", "acc", "init"), ("acc_next", "acc_out", "yield"),
            ("acc_next", "acc", "carry"), ("acc", "acc_next", "0")} <= edges


@needs_corpus
def test_branches_and_a_redefined_name():
    (g,) = build_graphs(tilemem.solve(PHI))
    kinds = sorted(c["kind"] for c in g.graph["clusters"].values())
    assert kinds == ["arm", "arm", "if"]
    assert {("seed", "acc", "then"), ("acc_more", "acc", "else"), ("acc", "acc_Vec", "0")} <= _edges(g)
    # `out_0 = tile.store(narrowed, .., out_0)` redefines the parameter: a new node, no self-loop
    stores = [n for n, a in g.nodes(data=True) if a["name"] == "out_0" and a["op"] == "tile.store"]
    assert len(stores) == 1 and ("out_0", stores[0], "2") in _edges(g)
    assert all(u != v for u, v in g.edges())


@needs_corpus
def test_hoisted_statements_are_marked():
    """A statement in fewer loops after solving than before was hoisted (residency)."""
    before = tilemem.parse((STATIONARY / "before.pto").read_text()).function("kernel")
    after = tilemem.parse((STATIONARY / "after.pto").read_text()).function("kernel")
    g = build_graph(after, before, moves=["lhs__ssa_v0_mat_Left", "rhs_n__tile_Right"])
    hoisted = {n for n, a in g.nodes(data=True) if a["hoisted"]}
    assert hoisted == {"lhs__ssa_v0_mat", "lhs__ssa_v0_mat_Left"}     # the load and its move
    assert g.nodes["lhs__ssa_v0_mat"]["cluster"] is None
    assert g.nodes["rhs_n__tile"]["cluster"] is not None
    assert "hoisted" in to_dot([g])


def test_residency_records_mark_hoisted_nodes_per_function():
    sol = tilemem.solve(LOOP)
    fn = sol.program.function("kernel")
    recs = [{"function": "kernel", "var": "a_k", "hoisted": True, "reason": "hoisted out of the loop at line 9"},
            {"function": "kernel", "var": "b_k", "hoisted": False, "reason": "its source stays"},
            {"function": "other", "var": "a_l", "hoisted": True, "reason": "elsewhere"}]
    g = build_graph(fn, sol.source.function("kernel"), residency=recs)
    assert {n for n, a in g.nodes(data=True) if a["hoisted"]} == {"a_k"}
    assert g.nodes["b_k"]["reason"] == "its source stays" and g.nodes["a_l"]["reason"] is None
    page = to_html(to_svg_builtin([g]), to_dot([g]), "t", recs)
    assert "Residency decisions</h3>" in page
    assert "<td>b_k</td><td></td><td>stays</td><td>its source stays</td>" in page


def test_residency_reasons_become_tooltips():
    sol = tilemem.solve(EXAMPLE, backend="910B")
    fn = sol.program.function("kernel")
    g = build_graph(fn, sol.source.function("kernel"),
                    residency=[{"var": "kernel:a_tile", "reason": "declined: not in a loop"}])
    assert g.nodes["a_tile"]["reason"] == "declined: not in a loop"
    assert "declined: not in a loop" in to_dot([g])


def test_dot_text_has_clusters_legend_and_escapes():
    (g,) = build_graphs(tilemem.solve(LOOP))
    dot = to_dot([g], title='a "quoted" title')
    assert dot.startswith("digraph tilemem {") and dot.rstrip().endswith("}")
    assert 'subgraph "cluster_kernel_c1"' in dot
    assert 'label="for k in pl.range(0, 256, 64)"' in dot
    assert '"legend" [shape="box"' in dot and "memory space" in dot
    assert 'label="a \\"quoted\\" title"' in dot
    assert '"kernel:acc_next" -> "kernel:acc" [label="carry", style="dashed"' in dot


@needs_dot
def test_dot_text_is_accepted_by_graphviz():
    graphs = build_graphs(tilemem.solve(EXAMPLE, backend="910B"))
    proc = subprocess.run(["dot", "-Tsvg"], input=to_dot(graphs), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    ET.fromstring(proc.stdout[proc.stdout.index("<svg"):])


def test_builtin_svg_is_well_formed_and_complete():
    graphs = build_graphs(tilemem.solve(LOOP))
    svg = to_svg_builtin(graphs, "loop")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    titles = [t.text for t in root.iter(f"{ns}title")]
    assert len(titles) == graphs[0].number_of_nodes()
    texts = {t.text for t in root.iter(f"{ns}text")}
    assert {"acc_next", "tile.matmul_acc", "Acc", "for k in pl.range(0, 256, 64)", "memory space"} <= texts
    edges = [p for p in root.iter(f"{ns}path") if p.get("class") == "edge"]
    assert len(edges) == sum(1 for u, v in graphs[0].edges() if u != v)


def test_html_is_self_contained():
    graphs = build_graphs(tilemem.solve(LOOP))
    page = to_html(to_svg_builtin(graphs), to_dot(graphs), "t")

    class Scan(HTMLParser):
        tags, external = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            for k, v in attrs:
                if k in ("src", "href") and v and not v.startswith("#"):
                    self.external.append(v)

    s = Scan()
    s.feed(page)
    assert "svg" in s.tags and "script" in s.tags and s.external == []
    assert "digraph tilemem" in page


# --------------------------------------------------------------------------- the command


@needs_corpus
@needs_dot
def test_cli_residency_case_to_png_and_svg(tmp_path):
    src = STATIONARY / "before.pto"
    png, svg = tmp_path / "g.png", tmp_path / "g.svg"
    assert run("graph", src, "--backend", "910B", "-o", png).returncode == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = run("graph", src, "--backend", "910B", "-o", svg)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    text = svg.read_text()
    ET.fromstring(text[text.index("<svg"):])
    assert "hoisted" in text and "lhs__ssa_v0_mat_Left" in text
    assert "for n__idx_v0 in pl.range(0, 256, 128)" in text


@needs_corpus
def test_cli_move_heavy_case_dot_on_stdout(capsys):
    status, out, _ = run_in_process(capsys, "graph", PHI)
    assert status == 0 and out.startswith("digraph tilemem {")
    for move in ("x_tile_Left", "y_tile_Right", "acc_Vec"):
        assert f"{move}\\ntile.move (inserted)" in out
    assert 'label="if flag < 1"' in out


def test_cli_html_and_builtin_svg(tmp_path, capsys):
    html, svg = tmp_path / "g.html", tmp_path / "g.svg"
    assert run_in_process(capsys, "graph", EXAMPLE, "--backend", "910B", "-o", html) == (0, "", "")
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "a_tile_Left" in page
    status, out, err = run_in_process(capsys, "graph", LOOP, "-o", svg, "--layout", "builtin")
    assert (status, out, err) == (0, "", "")
    assert "acc_next" in svg.read_text()
    ET.fromstring(svg.read_text())


def test_cli_function_filter_and_errors(tmp_path, capsys):
    status, out, _ = run_in_process(capsys, "graph", EXAMPLE, "--function", "kernel", "-T", "dot")
    assert status == 0 and '"kernel:c_tile"' in out
    status, _, err = run_in_process(capsys, "graph", EXAMPLE, "--function", "nope")
    assert status == 2 and err == "tilemem: error: no InCore function 'nope' (InCore functions: kernel)\n"
    status, _, err = run_in_process(capsys, "graph", EXAMPLE, "-o", tmp_path / "g.jpeg")
    assert status == 2 and "cannot tell the picture format" in err
    status, _, err = run_in_process(capsys, "graph", EXAMPLE, "-o", tmp_path / "g.png", "--layout", "builtin")
    assert status == 2 and "PNG needs Graphviz" in err


def test_cli_without_graphviz(tmp_path, capsys, monkeypatch):
    """No `dot` on PATH: SVG/HTML fall back to the built-in layout, PNG says how to install it."""
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    svg = tmp_path / "g.svg"
    assert run_in_process(capsys, "graph", EXAMPLE, "-o", svg) == (0, "", "")
    assert 'class="node"' in svg.read_text()
    status, _, err = run_in_process(capsys, "graph", EXAMPLE, "-o", tmp_path / "g.png")
    assert status == 2 and "apt-get install graphviz" in err
    assert not (tmp_path / "g.png").exists()
