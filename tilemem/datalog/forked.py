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

``start_forked(fn, *args)`` starts the same child and returns at once: the parent goes
on with its own work and asks for the answer later (``Forked.result``), or ends the
child (``Forked.cancel``) -- the printed-IR check of a large file runs so on a spare
core while the file is solved (tilemem.frontend.check.alongside).
"""
from __future__ import annotations

import marshal
import os
import sys
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["NOT_RUN", "run_forked", "start_forked", "Forked", "cpu_count"]

#: what :func:`run_forked` returns when it could not run the function apart
NOT_RUN = object()

_RESULT, _ERROR = b"r", b"e"


def cpu_count() -> int:
    """The CPUs this process may run on (a child started here runs beside it only where
    there are two; ``tilemem solve -j 0`` starts one worker a CPU)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_forked(fn, *args):
    """``fn(*args)`` run in a forked child (see the module docstring)."""
    child = start_forked(fn, *args)
    return NOT_RUN if child is None else child.result()


def _threads_run() -> bool:
    """Whether threads other than this one run (a fork copies the calling thread only).
    Without the threading module (whose import costs ~4 M instructions of a start) no
    thread of its can run: _thread's own count tells the rest."""
    threading = sys.modules.get("threading")
    if threading is not None:
        return threading.active_count() != 1
    import _thread
    return _thread._count() != 0


def start_forked(fn, *args) -> "Optional[Forked]":
    """Start ``fn(*args)`` in a forked child and return it (its :meth:`Forked.result`
    waits for the answer); None where it cannot run apart (no fork, other threads)."""
    if not hasattr(os, "fork") or _threads_run():
        return None
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:                                        # pragma: no cover - the child
        _child(r, w, fn, args)
    os.close(w)
    return Forked(pid, r)


class Forked:
    """A child started by :func:`start_forked`: wait for its answer once (``result``) or
    end it (``cancel``)."""

    def __init__(self, pid: int, fd: int):
        self.pid, self.fd = pid, fd

    def result(self):
        """The child's answer (``fn``'s value), or its exception raised here, or
        ``NOT_RUN`` when it ended with neither."""
        try:
            with os.fdopen(self.fd, "rb") as answer:
                data = answer.read()
        except BaseException:                           # e.g. Ctrl-C: the child goes too
            _kill(self.pid)
            raise
        finally:
            _reap(self.pid)
        kind, body = data[:1], memoryview(data)[1:]
        if kind == _RESULT:
            return marshal.loads(body)
        if kind == _ERROR and body:
            import pickle               # (~4 ms to import: only when the child raised)
            raise pickle.loads(body)
        return NOT_RUN

    def cancel(self) -> None:
        """Kill the child and wait for it (its answer is not wanted)."""
        _kill(self.pid)
        try:
            os.close(self.fd)
        except OSError:
            pass
        _reap(self.pid)


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
