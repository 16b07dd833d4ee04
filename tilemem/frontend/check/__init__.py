"""Printed IR checked as strictly as hand-written DSL (issue #27).

:func:`check_printed` runs the structure checks (:mod:`.structure`) and the op-call
checks (:mod:`.calls`) over a program read from printed text and rejects it with every
problem found (:mod:`.problems`), each a located ``file:line:col: error:``."""
from __future__ import annotations

from typing import Optional

from tilemem import ir
from tilemem.frontend.check.calls import check_calls
from tilemem.frontend.check.problems import MAX_PROBLEMS, Problems, ProgramErrors
from tilemem.frontend.check.structure import check_structure

__all__ = ["check_printed", "ProgramErrors", "MAX_PROBLEMS"]


def check_printed(program: ir.Program, path: str, text: Optional[str], declared_ops=frozenset()) -> None:
    """Raise a TilememError (a :class:`ProgramErrors` for several) naming every problem
    of the program; return when there is none."""
    problems = Problems(path, text)
    check_structure(program, problems)
    check_calls(program, problems, declared_ops)
    problems.raise_any()
