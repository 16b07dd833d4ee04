"""A one-shot evaluation in a child process, so that what an engine keeps for the life
of its process goes with the child.

clingo never frees a symbol (potassco/clingo#203): every atom a grounding builds stays
in the process, and a solve's phase 4 grounds on top of what phases 0-3 left (~30 MB
of the 21,032-line MTP kernel, ~220 MB at 50,000 statements).  Grounded in a forked
child, the atoms go when the child exits; the parent keeps only the rows it reads.

``run_forked(fn, *args)`` forks, runs ``fn(*args)`` in the child and returns its
result, which must be plain data (ints, strs, tuples, lists, dicts: it comes back
marshalled), or raises the exception it raised (pickled).  It returns ``NOT_RUN``,
and the caller runs ``fn`` in process, where the platform has no fork, where other
threads run (a fork copies the calling thread only: a lock another one held would
never be released in the child), or when the child ended with no answer (killed, or an
exception that does not survive pickling): in process, ``fn`` gives the same answer or
raises its error with every detail.

A child's peak adds to what the parent held when it forked only as far as the child
writes: the parent's pages are shared, and it waits, allocating nothing, until the
child's answer is in.
"""
from __future__ import annotations

import marshal
import os
import sys
import threading

__all__ = ["NOT_RUN", "run_forked"]

#: what :func:`run_forked` returns when it could not run the function apart
NOT_RUN = object()

_RESULT, _ERROR = b"r", b"e"


def run_forked(fn, *args):
    """``fn(*args)`` run in a forked child (see the module docstring)."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return NOT_RUN
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return NOT_RUN
    if pid == 0:                                        # pragma: no cover - the child
        _child(r, w, fn, args)
    os.close(w)
    try:
        with os.fdopen(r, "rb") as answer:
            data = answer.read()
    except BaseException:                               # e.g. Ctrl-C: the child goes too
        _kill(pid)
        raise
    finally:
        _reap(pid)
    kind, body = data[:1], memoryview(data)[1:]
    if kind == _RESULT:
        return marshal.loads(body)
    if kind == _ERROR and body:
        import pickle               # (~4 ms to import: only when the child raised)
        raise pickle.loads(body)
    return NOT_RUN


def _child(r: int, w: int, fn, args) -> None:           # pragma: no cover - the child
    """Run ``fn`` and write its answer to ``w``; never returns (``os._exit``: no exit
    handler, no flush of the parent's buffered output, no teardown of the engine)."""
    code = 1
    try:
        os.close(r)
        _die_with_parent()
        try:
            data = _RESULT + marshal.dumps(fn(*args))
        except BaseException as exc:
            data = _ERROR + _pickled(exc)
        with os.fdopen(w, "wb") as out:
            out.write(data)
        code = 0
    finally:
        os._exit(code)


def _pickled(exc: BaseException) -> bytes:
    """The exception pickled, or nothing if it does not come back as itself."""
    import pickle
    try:
        data = pickle.dumps(exc)
        back = pickle.loads(data)
        if type(back) is type(exc) and str(back) == str(exc):
            return data
    except Exception:
        pass
    return b""


def _die_with_parent() -> None:                         # pragma: no cover - the child
    """On Linux, the child is killed if the parent dies (a batch worker killed over its
    time budget must not leave its evaluation running)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG
    except Exception:
        pass


def _kill(pid: int) -> None:
    import signal
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _reap(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except InterruptedError:                        # pragma: no cover
            continue
        except ChildProcessError:                       # pragma: no cover
            return
