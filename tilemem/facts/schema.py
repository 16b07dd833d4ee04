"""The input schema: the relations a program's facts fill, as the rule files declare them.

There is one schema, the typed ``.decl`` + ``.input`` lines of the rule files
(``.decl assign(pos: number, var: symbol)``, as Soufflé writes them).  This module only
reads it:

* the program's relations are the ``.input`` relations whose rows do not come from a
  ``.facts`` file (the op table's do), all declared in ``rules/schema.dl``:
  :func:`program_relations`, in its order;
* the phase-4 relations are those ``schema.dl`` lists as ``residency_input``, extracted
  only for the residency rules: :func:`phase4_relations`.
"""
from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["program_relations", "phase4_relations", "file_phase"]

_PHASE_FILE = re.compile(r"^p(\d+)_")


def file_phase(name: str) -> int:
    """A rule file's place in the pipeline: ``schema.dl`` and ``program.dl`` 0, ``pN_*.dl``
    and the files of a folder ``pN_*/`` N + 1, others after."""
    parts = name.replace("\\", "/").rsplit("/", 2)
    base = parts[-1]
    if base in ("schema.dl", "program.dl"):
        return 0
    m = _PHASE_FILE.match(base) or (_PHASE_FILE.match(parts[-2]) if len(parts) > 1 else None)
    return int(m.group(1)) + 1 if m else 100


@lru_cache(maxsize=1)
def _schema():
    from tilemem.datalog import RuleSet
    rules = RuleSet.from_package()
    found = []
    for name, info in rules.predicates.items():
        if info.from_program:
            loc = info.loc          # its .decl (in the JSON program: no syntax tree needed)
            found.append((file_phase(loc.file), loc.file, loc.line, name, info))
    found.sort(key=lambda t: t[:3])
    relations = {name: info.columns or tuple(f"c{i}" for i in range(info.arity))
                 for *_, name, info in found}
    # (from the rule program's fact rows: the facts' syntax trees are a 0.9 MB pickle
    # a solve never needs)
    phase4 = frozenset(row[0] for row in rules.fact_rows.get("residency_input", ()))
    return relations, phase4


def program_relations() -> dict[str, tuple[str, ...]]:
    """Every relation a program's facts fill -> its column names, in pipeline order."""
    return _schema()[0]


def phase4_relations() -> frozenset:
    """The relations only the whole-program extraction (phase 4) fills."""
    return _schema()[1]
