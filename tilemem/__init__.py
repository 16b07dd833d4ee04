"""tilemem: PyPTO's InferTileMemorySpace pass re-implemented as a Datalog constraint solver.

Library use::

    import tilemem, pathlib
    sol = tilemem.solve(pathlib.Path("kernel.pto"), backend="910B")   # a str is program text
    print(sol.text)          # the annotated program, as PyPTO prints it
    sol.spaces               # {function: {var: space}}
    sol.moves                # the inserted tile.move statements
    print(sol.why("c_tile")) # why c_tile is in its space (tilemem why's answer)

    ws = tilemem.Workspace(text, backend="910B")     # kept solved under edits
    sol = ws.edit((12, 8), (12, 14), "b_tile")       # only the edited function is solved again

Functions
    solve(source, backend=None, rules=(), path=None, engine=None, limits=None, form=None,
          program=None) -> Solution     infer the memory space of every tile (source:
                                        program text, a path-like or an open file)
    solve_all(...) -> list[Solution]    every program of a .py module, each on its own
    parse(text, path="<input>", ...) -> ir.Program    read program text into the IR
    print_program(program) -> str       print the IR as PyPTO prints it

Solution (what solve returns), its fields
    text        the annotated program, as PyPTO prints it
    program     the rewritten IR (tilemem.ir node classes)
    spaces      {function: {var: space}}
    moves       the inserted moves (MoveRecord: function, consumer_line, producer,
                target, name)
    backend     the backend solved for (None: no residency phase)
    source      the program as read
    path        the name messages give
    residency   phase 4 verdicts with a backend (ResidencyDecision), else None
    warnings    SolveWarning records (PyPTO's contract breaks, a bridge mark without a
                backend, unread --rules relations)
  and its questions: why(var, move or pattern) and why_not(var, space) (Answer
  objects: the words of `tilemem why`), explain(var) and proofs(pattern) (proof
  trees), explain_residency(var), query(pattern), close().

Answer objects (tilemem.explain)
    ProofNode   a proof tree (str(): indented; to_dict(): JSON-able)
    WhyNot      why a fact does not hold: each rule that could derive it and the
                premise it fails on
    Answer      the words of `tilemem why`: a paragraph, the deciding steps, notes

Exceptions: every error the library raises on purpose is a TilememError
    TilememError    an error about the input, located (path, line, col, message)
    UnlocatedError  a TilememError at no position of an input (the base of those below)
    UsageError      a bad argument or setting (an unknown backend, ...)
    ExplainError    a question explanations cannot answer (an unknown var, ...)
    DatalogError    a rule file or query that cannot be used (QueryError: a bad pattern)

Everything is imported on first use (``tilemem --version`` stays fast); ``dir(tilemem)``
and ``help(tilemem)`` list it all.  The package is typed (PEP 561, ``py.typed``).
"""
from __future__ import annotations

import importlib

# The modules a solve loads import ``typing`` for the type checker only: under
# ``from __future__ import annotations`` no annotation is evaluated, and the names come
# from ``if TYPE_CHECKING:`` blocks, ``TYPE_CHECKING`` a module's own False (which mypy
# takes as true).  Importing typing costs ~12 M instructions of a ~100 M-instruction
# start (tests/test_startup.py keeps it off the solve path).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it (imported when the name is first used)
_LAZY = {
    "solve": "tilemem.api",
    "solve_all": "tilemem.api",
    "parse": "tilemem.api",
    "Solution": "tilemem.api",
    "SolveWarning": "tilemem.api",
    "print_program": "tilemem.ir.printer",
    "Workspace": "tilemem.workspace",
    "MoveRecord": "tilemem.infer.emitter",
    "ResidencyDecision": "tilemem.residency.verdicts",
    "Limits": "tilemem.limits",
    "ProofNode": "tilemem.explain",
    "WhyNot": "tilemem.explain",
    "Answer": "tilemem.explain.rendering",
    "TilememError": "tilemem.errors",
    "UnlocatedError": "tilemem.errors",
    "UsageError": "tilemem.errors",
    "ExplainError": "tilemem.explain",
    "DatalogError": "tilemem.datalog",
    "QueryError": "tilemem.datalog",
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tilemem' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value          # the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    """The public names (imported or not yet) and the module's own dunders."""
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
