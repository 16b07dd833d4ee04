"""Printed IR checked as strictly as hand-written DSL (issue #27).

:func:`check_printed` runs the structure checks (:mod:`.structure`) and the op-call
checks (:mod:`.calls`) over a program read from printed text and rejects it with every
problem found (:mod:`.problems`), each a located ``file:line:col: error:``.  The same
walk judges each function as :func:`tilemem.frontend.wellformed.check_program` would
(which every solve runs next): that check does not walk again the functions it passes."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.frontend.check.calls import CallCheck, call_table
from tilemem.frontend.check.problems import MAX_PROBLEMS, Problems, ProgramErrors
from tilemem.frontend.check.structure import StructureCheck
from tilemem.frontend.wellformed import Verdicts
from tilemem.ir.nodes import INT64_RANGE
from tilemem.ir.walk import own_exprs, statements

__all__ = ["check_printed", "ProgramErrors", "MAX_PROBLEMS"]


def check_printed(program: ir.Program, path: str, text: Optional[str], declared_ops=frozenset()) -> None:
    """Raise a TilememError (a :class:`ProgramErrors` for several) naming every problem
    of the program; return when there is none."""
    problems = Problems(path, text)
    table = call_table(declared_ops)
    functions = {fn.name: fn for fn in program.functions}
    subexpressions, Name, Call, IntConst, Dotted = ir.subexpressions, ir.Name, ir.Call, ir.IntConst, ir.Dotted
    verdicts = Verdicts(program)
    for fn in program.functions:
        structure = StructureCheck(program, fn, functions, problems)
        calls = CallCheck(fn, table, problems)
        verdicts.function(fn)
        for s, depth in statements(fn.body):
            # one walk of the statement's own expressions serves the three checks: names
            # are checked as met (a list of a million names is not kept), calls kept,
            # constants and dotted names judged as check_program judges them
            found = []
            verdicts.statement(s)
            for e in own_exprs(s):
                for x in subexpressions(e, constants=False):
                    tx = type(x)
                    if tx is Name:
                        structure.name(x)
                    elif tx is Call:
                        found.append(x)
                    elif tx is IntConst:
                        if x.value not in INT64_RANGE:
                            verdicts.ok = False
                    elif tx is Dotted:
                        verdicts.dotted(x)
            structure.statement(s, found)
            calls.statement(s, depth, found)
    problems.raise_any()
    # check_program follows on every solve: the functions found to pass it are not walked again
    verdicts.hand_on()
