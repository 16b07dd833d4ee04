"""What a command shows of one solved program, as plain data.

A :class:`SolvedProgram` holds everything ``tilemem solve`` prints or writes about a
program -- the solved text, the text it is compared with, the JSON form of the solution,
the warnings and the residency report -- so that the command can answer from it whether
it was just solved (:meth:`SolvedProgram.of`) or read back from the result cache
(:meth:`SolvedProgram.from_dict`, :mod:`tilemem.resultcache`).  Importing this module
loads nothing of the solver.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.errors import Diagnostic
from tilemem.records import Record, field_names, is_record, record

__all__ = ["SolveWarning", "SolvedProgram", "SOLUTION_SCHEMA"]

SOLUTION_SCHEMA = "tilemem-solution/1"


#: a warning of a solve is the one located-message type, with severity "warning" (the
#: name stays for the API: ``Solution.warnings`` holds these)
SolveWarning = Diagnostic


def _plain(x):
    """A JSON-friendly copy of a record (a tilemem record, dataclass, named tuple, dict or
    object)."""
    if is_record(x):            # (before dataclasses: a record would build its fields)
        return {f: _plain(getattr(x, f)) for f in field_names(x) if not f.startswith("_")}
    if hasattr(type(x), "__dataclass_fields__") and not isinstance(x, type):
        import dataclasses      # (a dataclass of the caller's)
        return {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x)
                if not f.name.startswith("_")}
    if hasattr(x, "_asdict"):
        return {k: _plain(v) for k, v in x._asdict().items()}
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted((_plain(v) for v in x), key=repr)
    if x is None or isinstance(x, (str, int, float, bool)):
        return x
    if hasattr(x, "__dict__"):
        return {k: _plain(v) for k, v in vars(x).items() if not k.startswith("_")}
    return str(x)


def solution_json(sol, path: str, changed: Optional[bool]) -> dict:
    """The stable JSON form of a Solution (schema ``tilemem-solution/1``, see README)."""
    doc = {
        "schema": SOLUTION_SCHEMA,
        "path": path,
        "program": sol.program.name,
        "reading": sol.program.reading,
        "backend": sol.backend,
        "changed": changed,
        "spaces": {fn: dict(sorted(vs.items())) for fn, vs in sorted(sol.spaces.items())},
        "moves": [{"function": m.function, "name": m.name, "producer": m.producer,
                   "target": m.target, "consumer_line": m.consumer_line} for m in sol.moves],
        "warnings": [{"line": w.line, "column": w.col, "code": w.code, "message": w.message,
                      "var": w.var} for w in sol.warnings],
    }
    residency = getattr(sol, "residency", None)
    if residency is not None:
        doc["residency"] = [_plain(r) for r in residency]
    return doc


def _report(verdict) -> tuple:
    """(line, note lines) of a residency verdict (a record of another kind: its text)."""
    lines = getattr(verdict, "report_lines", None)
    return getattr(verdict, "line", None), lines() if lines else [str(verdict)]


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


@record(extras=True)
class SolvedProgram(Record):
    """One program's answer (see the module docstring).

    ``text``: the solved program (ending with a newline); ``base``: what it is compared
    with for ``--diff`` and ``--check`` (the input for printed IR, None then; the program
    as PyPTO's front end sees it for hand-written DSL); ``solution``: its JSON form,
    ``changed`` left None; ``report``: the residency verdicts as ``(line, note lines)``
    (None without a backend)."""
    def __init__(self, name: str, text: str, solution: dict, warnings: list,
                 report: Optional[list], base: Optional[str] = None):
        self.name, self.text, self.solution = name, text, solution
        self.warnings, self.report, self.base = warnings, report, base

    @classmethod
    def of(cls, sol, path: str) -> "SolvedProgram":
        base = None
        if sol.program.reading == "dsl":
            from tilemem.ir.printer import print_program
            base = _with_newline(print_program(sol.source, path))
        report = None if sol.residency is None else [_report(d) for d in sol.residency]
        return cls(sol.program.name, _with_newline(sol.text), solution_json(sol, path, None),
                   list(sol.warnings), report, base)

    def json(self, changed: bool) -> dict:
        return dict(self.solution, changed=changed)

    def to_dict(self) -> dict:
        return {"name": self.name, "text": self.text, "solution": self.solution,
                "warnings": [w.to_list() for w in self.warnings],
                "report": self.report, "base": self.base}

    @classmethod
    def from_dict(cls, d: dict) -> "SolvedProgram":
        """Raises on anything but a dict :meth:`to_dict` made (a damaged entry is a miss)."""
        warnings = [Diagnostic.from_list(w) for w in d["warnings"]]
        report = None if d["report"] is None else [(line, list(lines)) for line, lines in d["report"]]
        if not (isinstance(d["name"], str) and isinstance(d["text"], str)
                and isinstance(d["solution"], dict) and isinstance(d["base"], (str, type(None)))):
            raise ValueError("not a solved program")
        return cls(d["name"], d["text"], d["solution"], warnings, report, d["base"])
