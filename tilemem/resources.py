"""Where the grammar and rule files are.

Installed, they are the packages ``tilemem.grammar`` and ``tilemem.rules`` (the
repository's top-level ``grammar/`` and ``rules/``, mapped into the wheel).  Run from
a source checkout without installing (e.g. ``python -m tilemem`` in the repository),
those packages do not exist, and the folders next to ``tilemem/`` are used instead.
"""
from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path


def resource_dir(name: str):
    """The ``grammar`` or ``rules`` folder, as a Path (or an importlib Traversable when
    the package is not a folder, e.g. inside a zip file)."""
    try:
        spec = find_spec(f"tilemem.{name}")
    except ModuleNotFoundError:
        spec = None
    if spec is None:
        return Path(__file__).resolve().parent.parent / name
    # the folder itself: importlib.resources would give the same Path, at the cost of
    # importing it (zipfile, tempfile, ...: 3 ms of every start)
    for loc in spec.submodule_search_locations or ():
        if Path(loc).is_dir():
            return Path(loc)
    from importlib.resources import files
    return files(f"tilemem.{name}")
