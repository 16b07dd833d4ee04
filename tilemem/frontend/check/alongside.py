"""The printed-IR check of a large program run on a spare core while the program is solved.

:func:`check_printed` only judges the program: it changes nothing the solve reads, and
what it finds (or that it finds nothing) is the answer either way.  It is ~10-15% of a
single large solve (724 lines: ~25 ms of ~0.2 s).  Where a command solves one file and
the machine has a core the solve does not use, the check runs in a forked child
(:func:`tilemem.datalog.forked.start_forked`) while the parent goes on with the solve,
and the block that asked for it (:func:`checks_alongside`) waits for it when it ends.
The child also runs :func:`tilemem.frontend.wellformed.check_program` after it (what a
solve checks first; the solve skips it, :func:`checked_alongside`), so the parent walks
the program for neither: a program either check refuses may make the solve fail or
answer anything, and that is never what is reported.  When the block ends:

* a check that found problems raises its error in place of whatever the block returned
  or raised (the same error, as the check comes first when it runs in order);
* a check that ended without an answer (killed, an error that does not come back
  pickled) is run again in process, so the answer is always the check's own;
* leaving the block by an interrupt (Ctrl-C, a signal turned into an exception) kills
  the child.

Not apart: outside such a block (the library, a batch whose workers already take every
core, the editor's server), on one core, where there is no fork or other threads run, or
for a small program (the fork would cost about what the check saves).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["checks_alongside", "check_alongside", "checked_alongside", "check_program_unless_apart",
           "core_to_spare", "MIN_TEXT"]

#: a program text shorter than this is checked in order: its check costs a few
#: milliseconds, about what a fork and a wait cost (a golden kernel is ~2-3 kB, the
#: 724-line DeepSeek v3.2 kernel 90 kB)
MIN_TEXT = 32 * 1024

#: the pending checks of the innermost checks_alongside block (None: no such block)
_pending: ContextVar[Optional[list]] = ContextVar("tilemem_checks_alongside", default=None)


def _spare_core() -> bool:
    from tilemem.datalog.forked import cpu_count
    return cpu_count() > 1


@contextmanager
def checks_alongside(enabled: bool = True):
    """Inside the block, :func:`check_alongside` may run a check apart; leaving it waits
    for every such check (see the module docstring).  ``enabled=False``: a no-op block."""
    if not enabled or not _spare_core():
        yield
        return
    pending: list = []
    token = _pending.set(pending)
    try:
        yield
    except Exception:
        _finish(pending)            # the check's error, if any, comes first
        raise
    except BaseException:           # an interrupt: the checks are not wanted
        for child, _ in pending:
            child.cancel()
        raise
    else:
        _finish(pending)
    finally:
        _pending.reset(token)


def check_alongside(program, path: str, text: Optional[str], declared_ops) -> bool:
    """Start the check of ``program`` apart when a :func:`checks_alongside` block allows
    it and the program is large enough; False: the caller checks it now."""
    pending = _pending.get()
    if pending is None or text is None or len(text) < MIN_TEXT:
        return False
    from tilemem.datalog.forked import start_forked
    args = (program, path, text, declared_ops)
    child = start_forked(_checks, *args)
    if child is None:
        return False
    pending.append((child, args))
    return True


def core_to_spare() -> bool:
    """Whether the innermost :func:`checks_alongside` block is enabled: a command solving
    one file on a machine with a core the solve does not use, where a large solve's
    phases 0-3 also run in two halves, one apart (``tilemem.infer.halves``)."""
    return _pending.get() is not None


def checked_alongside(program) -> bool:
    """Whether ``program``'s checks run apart (then its solve skips
    :func:`tilemem.frontend.wellformed.check_program`, which the child runs after
    check_printed, in that order)."""
    pending = _pending.get()
    return bool(pending) and any(args[0] is program for _, args in pending)


def check_program_unless_apart(program, path: str) -> None:
    """:func:`tilemem.frontend.wellformed.check_program` of ``program`` now, unless its
    checks run apart (:func:`checked_alongside`: the child runs it)."""
    if not checked_alongside(program):
        from tilemem.frontend.wellformed import check_program
        check_program(program, path)


def _checks(program, path: str, text: Optional[str], declared_ops) -> None:
    """Every check a printed program meets before it is solved, in order."""
    from tilemem.frontend.check import check_printed
    from tilemem.frontend.wellformed import check_program
    check_printed(program, path, text, declared_ops)
    check_program(program, path)


def _finish(pending: list) -> None:
    """Wait for every pending check; raise the first one's error."""
    from tilemem.datalog.forked import NOT_RUN
    error = None
    while pending:
        child, args = pending.pop(0)
        try:
            if child.result() is NOT_RUN:
                _checks(*args)
        except Exception as exc:
            if error is None:
                error = exc
    if error is not None:
        raise error
