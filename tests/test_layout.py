"""The package's layout: no import cycle among tilemem's modules, no module too long.

What counts as an import: every ``import`` / ``from ... import`` in a module, at module
level AND inside functions.  A deferred (function-level) import that points back at a
module which imports this one is the same dependency loop, only hidden from the
interpreter: the two modules cannot be understood, tested or moved apart.  Imports under
``if TYPE_CHECKING:`` do not count (annotations only, never run).  ``from P import name``
is an edge to the module ``P.name`` when that is a module, else to ``P`` (its
``__init__``).  The graph is built from the sources' ASTs (nothing is imported).
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "tilemem"

#: a module longer than this does several jobs: split it by job, not by line count
MAX_LINES = 1200

# Cycles still to be removed, each by the helper that owns the code.  This list only
# shrinks: an entry that is no longer a cycle fails the test (delete the entry).
KNOWN_CYCLES: set[frozenset[str]] = set()



def _modules() -> dict[str, tuple[Path, bool]]:
    """module name -> (file, is a package's __init__)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
        or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every import statement of a module, at any depth, outside TYPE_CHECKING blocks."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif not _type_checking_block(node):
            todo.extend(ast.iter_child_nodes(node))


def import_graph() -> nx.DiGraph:
    """Edge ``a -> b``: module a imports module b."""
    modules = _modules()
    g = nx.DiGraph()
    for name, (path, is_package) in modules.items():
        g.add_node(name)
        here = name.split(".") if is_package else name.split(".")[:-1]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = here[:len(here) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod
                           for a in node.names]
            for target in targets:
                if target in modules and target != name:
                    g.add_edge(name, target)
    return g


def test_the_graph_sees_deferred_imports():
    """The graph is not empty and does see a function-level import (the solver loads
    the op table's rules lazily): a test that cannot see imports cannot fail."""
    g = import_graph()
    assert g.number_of_nodes() > 50
    assert g.has_edge("tilemem.datalog.program", "tilemem.datalog.checking")
    assert g.has_edge("tilemem.ir.optable", "tilemem.datalog")       # inside a function


def test_no_import_cycles():
    g = import_graph()
    cycles = {frozenset(c) for c in nx.strongly_connected_components(g) if len(c) > 1}
    new = cycles - KNOWN_CYCLES
    assert not new, "import cycles among tilemem modules:\n" + "\n".join(
        " <-> ".join(sorted(c)) for c in sorted(new, key=sorted))
    gone = KNOWN_CYCLES - cycles
    assert not gone, f"no longer a cycle, delete it from KNOWN_CYCLES: {sorted(map(sorted, gone))}"


def test_no_module_over_the_limit():
    long = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            long[path.relative_to(PACKAGE.parent).as_posix()] = n
    assert not long, f"modules over {MAX_LINES} lines (split them by job): {long}"
