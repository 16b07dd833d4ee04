"""What tilemem depends on by its internals is pinned to the version it reads."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tilemem.frontend.tables import LARK_MAJOR, check_lark_version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_installed_lark_is_the_major_version_whose_tables_are_read():
    import lark
    major = lark.__version__.split(".")[0]
    assert major == str(LARK_MAJOR), (
        f"lark {lark.__version__} is installed, but tilemem/frontend/tables.py reads the "
        f"internals of lark {LARK_MAJOR}.x (parse_tree_builder's child filters, the LALR "
        f"parse table): check _build against the new lark, then move LARK_MAJOR and the pin "
        f"in pyproject.toml together")


def test_pyproject_pins_lark_below_the_next_major():
    deps = re.search(r"^dependencies = \[(.*?)^\]", PYPROJECT.read_text(), re.S | re.M).group(1)
    pin = re.search(r'"lark([^"]*)"', deps).group(1)
    assert f"<{LARK_MAJOR + 1}" in pin.replace(" ", ""), pin


@pytest.mark.parametrize("version", ["2.0.0", "0.12.0"])
def test_another_major_version_is_refused_with_a_clear_message(version):
    with pytest.raises(RuntimeError, match=rf"reads the internals of lark {LARK_MAJOR}\.x .* "
                                           rf"lark {re.escape(version)} is installed"):
        check_lark_version(version)


def test_the_supported_versions_pass():
    check_lark_version(f"{LARK_MAJOR}.1.9")
    check_lark_version(f"{LARK_MAJOR}.3.1")
