"""Worker processes that survive their tasks: results in order, budgets, dead workers.

``run_tasks(tasks, run, jobs, ...)`` runs ``run(task)`` for every task in up to ``jobs``
worker processes and yields the results in task order.  Unlike
``multiprocessing.Pool`` (whose ``imap`` waits forever for the task of a worker the
OOM killer took), the parent watches every worker:

* a worker that dies (a signal, an exit) is reported for the task it held
  (``died(task, reason)`` makes its result) and replaced; the other tasks go on;
* a task over its time budget (``timeout`` seconds, wall clock) has its worker killed
  and is reported (``timed_out(task, seconds)``);
* each worker's address space is capped at its size after start-up plus ``memory``
  bytes (``RLIMIT_AS``), so a task that needs more gets a ``MemoryError`` (or the
  engine's allocation failure) instead of taking the machine to the OOM killer;
* workers ignore SIGINT: Ctrl-C reaches the parent only, which stops them all
  (closing the generator, or any exception in it, kills every worker).

Workers are forked where the platform can (they inherit what the parent loaded, e.g.
the rule program, and keep it for every task they run), spawned elsewhere; ``init``
runs once in each worker before its first task.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator, Optional, Sequence

from tilemem.datalog.forked import cpu_count       # (re-exported: -j 0)

__all__ = ["run_tasks", "cpu_count", "signal_name"]


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _limit_memory(budget: int) -> None:
    """Cap this process's address space at its current size plus ``budget`` bytes."""
    try:
        import resource
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + budget
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        pass


_STARTUP_HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP} \
    if hasattr(signal, "pthread_sigmask") else set()


def _worker(conn, run, init, memory) -> None:
    # started with these signals blocked (_Slot): a Ctrl-C to the process group that
    # comes while the worker starts waits until it ignores SIGINT, instead of raising
    # KeyboardInterrupt (and printing a traceback) in a worker still running the
    # parent's handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the parent's to handle
    for sig in (signal.SIGTERM, signal.SIGHUP):      # the parent's handlers are not ours
        signal.signal(sig, signal.SIG_DFL)
    if _STARTUP_HELD:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STARTUP_HELD)
    try:
        if init is not None:
            init()
        if memory:
            _limit_memory(memory)
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):               # the parent is gone
                break
            if task is None:
                break
            result = run(task)
            try:
                conn.send(result)
            except (BrokenPipeError, OSError):
                break
    except BaseException:         # noqa: BLE001 - the parent reports the task as failed
        os._exit(1)
    os._exit(0)


class _Slot:
    """One worker process and the task it holds."""

    def __init__(self, ctx, run, init, memory):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, run, init, memory), daemon=True)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STARTUP_HELD) if _STARTUP_HELD else None
        try:                      # the worker inherits the mask (see _worker)
            self.proc.start()
        finally:                  # a signal that came meanwhile is the parent's now
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        child.close()
        self.index: Optional[int] = None
        self.started = 0.0

    def give(self, index: int, task) -> None:
        self.index, self.started = index, time.monotonic()
        self.conn.send(task)

    def kill(self) -> None:
        try:
            self.proc.kill()
        except (OSError, ValueError, AttributeError):
            pass
        self.proc.join(5)
        self.conn.close()

    def death(self) -> str:
        """How the worker ended: 'signal 9: SIGKILL' or 'exit status 1'."""
        self.proc.join(5)
        code = self.proc.exitcode
        if code is not None and code < 0:
            return f"signal {-code}: {signal_name(-code)}"
        return f"exit status {code}"


def _context():
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def run_tasks(tasks: Sequence[Any], run: Callable[[Any], Any], jobs: int, *,
              died: Callable[[Any, str], Any], timed_out: Callable[[Any, float], Any],
              timeout: Optional[float] = None, memory: Optional[int] = None,
              init: Optional[Callable[[], None]] = None) -> Iterator[Any]:
    """Yield ``run(task)`` for every task, in order, computed in up to ``jobs`` workers
    (see the module docstring).  ``run``, ``init`` and the tasks and results must be
    picklable where workers are spawned."""
    tasks = list(tasks)
    if not tasks:
        return
    ctx = _context()
    n_workers = max(1, min(jobs, len(tasks)))
    idle: list[_Slot] = []
    busy: list[_Slot] = []
    done: dict[int, Any] = {}
    next_task = 0
    next_out = 0
    try:
        while next_out < len(tasks):
            # hand out work: one task per worker, in order
            while next_task < len(tasks) and len(busy) < n_workers:
                if idle:
                    slot = idle.pop()
                    if not slot.proc.is_alive():      # died while idle: not the task's fault
                        slot.kill()
                        continue
                else:
                    slot = _Slot(ctx, run, init, memory)
                try:
                    slot.give(next_task, tasks[next_task])
                except (BrokenPipeError, OSError):    # died before its first task
                    done[next_task] = died(tasks[next_task], slot.death())
                    slot.kill()
                    next_task += 1
                    continue
                busy.append(slot)
                next_task += 1
            while next_out in done:
                yield done.pop(next_out)
                next_out += 1
            if not busy:
                continue
            wait_for = None
            if timeout:
                now = time.monotonic()
                wait_for = max(0.0, min(s.started + timeout for s in busy) - now)
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], wait_for)
            for slot in list(busy):
                if slot.conn in ready or slot.proc.sentinel in ready:
                    result = _receive(slot)
                    busy.remove(slot)
                    if result is _DEAD:
                        done[slot.index] = died(tasks[slot.index], slot.death())
                        slot.kill()
                    else:
                        done[slot.index] = result
                        idle.append(slot)
                elif timeout and time.monotonic() - slot.started >= timeout:
                    busy.remove(slot)
                    slot.kill()
                    done[slot.index] = timed_out(tasks[slot.index], timeout)
    finally:
        for slot in busy + idle:
            slot.kill()


_DEAD = object()


def _receive(slot: _Slot):
    """The worker's result, or _DEAD if it died without one."""
    try:
        if slot.conn.poll():
            return slot.conn.recv()
    except (EOFError, OSError):
        pass
    except Exception:             # a truncated message from a dying worker
        pass
    return _DEAD
