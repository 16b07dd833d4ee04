"""Where the grammar and rule files are.

Installed, they are the packages ``tilemem.grammar`` and ``tilemem.rules`` (the
repository's top-level ``grammar/`` and ``rules/``, mapped into the wheel).  Run from
a source checkout without installing (e.g. ``python -m tilemem`` in the repository),
those packages do not exist, and the folders next to ``tilemem/`` are used instead.
"""
from __future__ import annotations

import importlib.resources
from pathlib import Path


def resource_dir(name: str):
    """The ``grammar`` or ``rules`` folder, as an importlib Traversable or a Path."""
    try:
        return importlib.resources.files(f"tilemem.{name}")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / name
