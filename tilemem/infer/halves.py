"""Phases 0-3 of a large program on two cores: its InCore functions in two halves.

InCore functions are independent until phase 4 (``tilemem.workspace`` solves them one
by one), so phases 0-3 of a program are phases 0-3 of its first InCore functions and of
the others, solved apart.  Where a command solves one file with a core to spare
(:func:`tilemem.frontend.check.alongside.core_to_spare`), a large program's first half
is evaluated in a forked child (``tilemem.infer.solver.start_derive``) while this
process extracts and evaluates the second; each half is then rewritten and the two are
put together as a whole solve gives them (``tilemem.pipeline.merged_functions``).  Phase
4 and the printing follow on the whole program, as always.

The first half is a little larger: this process also extracts its facts before the
child can start (extraction is about a fifth of phases 0-3).  Where anything fails
(either half's evaluation, the child), nothing is taken from the halves and the whole
program is solved as it would have been: its error is the whole solve's own.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from tilemem.pipeline import Pipeline

from tilemem.ir.walk import statements
from tilemem.records import replace

__all__ = ["solve_in_halves", "MIN_STATEMENTS", "FIRST_SHARE"]

#: the InCore statements from which the halves pay: below, a second engine, the fork
#: and three processes on two cores (the printed-IR check's child runs too) cost what
#: the child saves (measured, whole process: 473 statements +14% wall, 1,270 +6%,
#: 5,234 -4% with a wide spread, the 21,032-line kernel's 15,207 -16%, 50,000 -5 to
#: -10%).  About where phases 0-3 run apart anyway (solver.FORK_ROWS).
MIN_STATEMENTS = 8000

#: the first half's share of the statements (see the module docstring)
FIRST_SHARE = 0.55


def solve_in_halves(pipe: Pipeline) -> bool:
    """Solve phases 0-3 and the rewrite of ``pipe``'s program in two halves and give the
    outcome to ``pipe`` (``Pipeline.adopt``); False, with nothing done, where they are
    not split: no core to spare, explanations kept (one database), user rules (they may
    join facts of two functions), two functions of one name, fewer than two InCore
    functions or :data:`MIN_STATEMENTS` statements, no fork, or a failure."""
    from tilemem.frontend.check.alongside import core_to_spare
    program = pipe.program
    if pipe.explain or pipe.rules or not core_to_spare():
        return False
    names = [fn.name for fn in program.functions]
    incore = [fn for fn in program.functions if fn.is_incore]
    if len(incore) < 2 or len(set(names)) != len(names):
        return False
    sizes = [sum(1 for _ in statements(fn.body)) for fn in incore]
    total = sum(sizes)
    if total < MIN_STATEMENTS:
        return False
    cut, acc = 1, sizes[0]
    while cut < len(incore) - 1 and acc < FIRST_SHARE * total:
        acc += sizes[cut]
        cut += 1
    first, second = _sub(pipe, incore[:cut]), _sub(pipe, incore[cut:])
    from tilemem.infer.solver import start_derive
    stmts: dict = {}
    started = start_derive(first.program, pipe.backend, pipe.engine, pipe.limits, stmts)
    if started is None:
        return False
    solved: dict = {}
    try:
        second.phase3()              # (itself apart when large: Pipeline.phase3)
        solved.update(second.by_function())  # (while the child works on the first half)
    except BaseException as exc:
        started.cancel()
        if isinstance(exc, Exception):
            return False             # the whole solve says what is wrong
        raise
    try:
        first.adopt_phase3(started.result(), stmts)
        solved.update(first.by_function())
    except Exception:
        return False
    from tilemem.pipeline import merged_functions
    pipe.adopt(*merged_functions(program, solved))
    return True


def _sub(pipe: Pipeline, functions: list) -> Pipeline:
    from tilemem.pipeline import Pipeline
    return Pipeline(replace(pipe.program, functions=functions), backend=pipe.backend,
                    path=pipe.path, text=pipe.text, engine=pipe.engine, limits=pipe.limits)
