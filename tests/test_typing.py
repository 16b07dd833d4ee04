"""The library as a typed, documented API: ``help(tilemem)`` lists it, and mypy (strict)
accepts its public surface (the files ``[tool.mypy]`` names in pyproject.toml)."""
from __future__ import annotations

import pydoc
import subprocess
import sys

import pytest

import tilemem
from cli_helpers import REPO


def test_help_lists_the_library():
    text = pydoc.render_doc(tilemem, renderer=pydoc.plaintext)
    for name in ("solve", "solve_all", "parse", "print_program", "Workspace"):
        assert f"{name}(" in text or f"class {name}" in text, name
    # Solution and its fields, the answer objects, the exceptions
    for cls in ("Solution", "Answer", "WhyNot", "ProofNode", "TilememError", "UsageError",
                "ExplainError", "DatalogError", "QueryError"):
        assert f"class {cls}" in text, cls
    for field in ("text", "program", "spaces", "moves", "residency", "warnings"):
        assert f"    {field} " in text, field


def test_every_public_name_resolves_and_dir_lists_it():
    assert set(tilemem.__all__) <= set(dir(tilemem))
    for name in tilemem.__all__:
        assert getattr(tilemem, name) is not None, name
    assert issubclass(tilemem.ExplainError, tilemem.TilememError)
    with pytest.raises(AttributeError):
        tilemem.no_such_name


def test_mypy_strict_on_the_public_api(tmp_path):
    pytest.importorskip("mypy", reason="mypy is not installed (pip install 'tilemem[test]')")
    r = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path)],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout
