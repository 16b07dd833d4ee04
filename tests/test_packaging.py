"""What the wheel ships: every package of the source tree (the list in pyproject.toml is
written by hand, and a module split into a package must join it, or a non-editable
install -- CI's, a user's -- fails to import it), and ``py.typed`` (PEP 561)."""
from __future__ import annotations

import tomllib
from importlib import resources

from cli_helpers import REPO


def test_every_package_of_the_tree_is_in_the_wheel():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {".".join(p.parent.relative_to(REPO).parts)
               for p in (REPO / "tilemem").rglob("__init__.py")}
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages"


def test_py_typed_is_installed():
    assert resources.files("tilemem").joinpath("py.typed").is_file()
