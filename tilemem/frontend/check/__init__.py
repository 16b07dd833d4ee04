"""Printed IR checked as strictly as hand-written DSL (issue #27).

:func:`check_printed` runs the structure checks (:mod:`.structure`) and the op-call
checks (:mod:`.calls`) over a program read from printed text and rejects it with every
problem found (:mod:`.problems`), each a located ``file:line:col: error:``."""
from __future__ import annotations

from typing import Optional

from tilemem import ir
from tilemem.frontend.check.calls import CallCheck, call_table
from tilemem.frontend.check.problems import MAX_PROBLEMS, Problems, ProgramErrors
from tilemem.frontend.check.structure import StructureCheck
from tilemem.ir.walk import own_exprs, statements

__all__ = ["check_printed", "ProgramErrors", "MAX_PROBLEMS"]


def check_printed(program: ir.Program, path: str, text: Optional[str], declared_ops=frozenset()) -> None:
    """Raise a TilememError (a :class:`ProgramErrors` for several) naming every problem
    of the program; return when there is none."""
    problems = Problems(path, text)
    table = call_table(declared_ops)
    functions = {fn.name: fn for fn in program.functions}
    for fn in program.functions:
        structure = StructureCheck(program, fn, functions, problems)
        calls = CallCheck(fn, table, problems)
        name = structure.name
        for s, depth in statements(fn.body):
            found: list = []
            _walk(own_exprs(s), name, found)
            structure.statement(s, found)
            calls.statement(s, depth, found)
    problems.raise_any()


_Name, _Call, _ListExpr, _TupleExpr, _DictExpr, _Subscript, _BinOp, _UnaryOp = (
    ir.Name, ir.Call, ir.ListExpr, ir.TupleExpr, ir.DictExpr, ir.Subscript, ir.BinOp, ir.UnaryOp)
_NameItems, _HELD = ir.NameItems, ir.HELD_ITEMS


def _walk(stack: list, name, found: list) -> None:
    """One walk of a statement's own expressions (``stack``) serves both checks: each
    name read is passed to ``name`` as met (a list of a million names is not kept), the
    calls are kept in ``found``.  The nodes of ``ir.subexpressions(e, constants=False)``
    in its order (pre-order, left to right), by an inlined walk: the checks visit every
    node of the program."""
    stack.reverse()
    while stack:
        x = stack.pop()
        tx = type(x)
        if tx is _Name:
            name(x)
        elif tx is _Call:
            found.append(x)
            stack.extend([v for _, v in reversed(x.kwargs)])
            stack.extend(reversed(x.args))
        elif tx is _ListExpr or tx is _TupleExpr:
            items = x.items
            ti = type(items)
            if ti is _NameItems:
                for n in items:         # (held names are leaves: met at once)
                    name(n)
            elif ti not in _HELD:
                stack.extend(reversed(items))
        elif tx is _Subscript:
            stack.extend(reversed(x.index))
            stack.append(x.value)
        elif tx is _BinOp:
            stack.append(x.right)
            stack.append(x.left)
        elif tx is _UnaryOp:
            stack.append(x.operand)
        elif tx is _DictExpr:
            for k, v in reversed(x.items):
                stack.append(v)
                stack.append(k)
