"""A raised recursion limit, shared safely by concurrent callers.

``sys.setrecursionlimit`` is process-wide.  The parser and the printer raise it while they
work on deeply nested programs; done naively (save, raise, restore the saved value) two
threads interleave badly: the first one out restores the low limit under the second one
(which may then fail on a program it could handle), and the second one out "restores" the
raised limit for good.  Here the limit is raised by the first user and restored by the
last one, as ``tilemem.datalog.engine.gc_paused`` does for the garbage collector.
"""
from __future__ import annotations

import sys
import _thread          # (the locks of threading, without its ~4 M instructions of import)

__all__ = ["DEEP_LIMIT", "deep_recursion"]

DEEP_LIMIT = 20000

_lock = _thread.allocate_lock()
_users = 0
_saved = 0


class deep_recursion:
    """``with deep_recursion(): ...`` runs with a recursion limit of at least DEEP_LIMIT."""

    def __enter__(self):
        global _users, _saved
        with _lock:
            if _users == 0:
                _saved = sys.getrecursionlimit()
                if _saved < DEEP_LIMIT:
                    sys.setrecursionlimit(DEEP_LIMIT)
            _users += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        global _users
        with _lock:
            _users -= 1
            if _users == 0 and sys.getrecursionlimit() != _saved:
                sys.setrecursionlimit(_saved)
        return False
