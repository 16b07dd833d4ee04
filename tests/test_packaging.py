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


def test_every_rule_file_is_in_the_wheel():
    """A rule file in a phase's folder (rules/p4_residency/) ships only if package-data
    names its folder: a non-editable install would solve without it."""
    from fnmatch import fnmatchcase
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = config["package-data"]["tilemem.rules"]
    rules = REPO / "rules"
    files = [p.relative_to(rules).as_posix() for p in rules.rglob("*") if p.suffix in (".dl", ".facts")]
    # (a glob's * matches no "/": setuptools' package-data globs do not cross folders)
    shipped = [f for f in files if any(fnmatchcase(f, g) and f.count("/") == g.count("/") for g in globs)]
    assert files and sorted(set(files) - set(shipped)) == []
