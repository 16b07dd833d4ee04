"""The per-user cache: one directory, one way to read and write its files.

What is kept between processes (the compiled rule program and rule trees, the
reader's LALR tables) lives in ``$TILEMEM_CACHE_DIR``, else
``$XDG_CACHE_HOME/tilemem``, else ``~/.cache/tilemem``; ``TILEMEM_NO_CACHE=1`` turns
the cache off.  (The answers of commands are another cache, kept in the project:
:mod:`tilemem.resultcache`.)  Some entries are pickles (code): the directory and every file must be
this user's and not writable by others, a file is opened without following a symlink
and checked on the open descriptor, and written atomically.  Any failure just means
no cache.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional

__all__ = ["cache_dir", "private_dir", "private_file", "read_private", "write_private", "prune",
           "sha256"]


def sha256(data: bytes = b""):
    """A SHA-256 hash object (``hashlib.sha256``'s: ``update``, ``hexdigest``), the one
    cache keys are made with.  Python's own implementation when it is built in
    (``_sha256``, ``_sha2`` from 3.12): importing ``hashlib`` loads OpenSSL, ~3 ms of
    every process, for a few short digests."""
    global _sha256
    if _sha256 is None:
        try:
            from _sha256 import sha256 as _sha256
        except ImportError:
            try:
                from _sha2 import sha256 as _sha256
            except ImportError:         # pragma: no cover - a build without them
                from hashlib import sha256 as _sha256
    return _sha256(data)


_sha256 = None


def cache_dir() -> Optional[Path]:
    """The cache directory (not created), or None when the cache is off."""
    if os.environ.get("TILEMEM_NO_CACHE"):
        return None
    base = os.environ.get("TILEMEM_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "tilemem")
    return Path(base)


def _private(st, is_kind) -> bool:
    """The entry is of the expected kind, this user's, and not writable by others."""
    getuid = getattr(os, "getuid", None)
    return (is_kind(st.st_mode) and (getuid is None or st.st_uid == getuid())
            and not (st.st_mode & 0o022))


def private_dir(d: Path) -> bool:
    try:
        return _private(os.lstat(d), stat.S_ISDIR)
    except OSError:
        return False


def private_file(path: Path) -> bool:
    """``path`` is absent, or this user's regular file that others cannot write."""
    try:
        return _private(os.lstat(path), stat.S_ISREG)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def read_private(path: Optional[Path]) -> Optional[bytes]:
    """The bytes of a cache file, if it is this user's private regular file in a private
    directory; else None.  It is opened without following a symlink and checked on the
    open descriptor, so it cannot be swapped between the check and the read."""
    if path is None or not private_dir(path.parent):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not _private(os.fstat(f.fileno()), stat.S_ISREG):
            return None
        data = f.read()
        try:
            os.utime(f.fileno())     # used now: what prune() keeps longest
        except (OSError, NotImplementedError, TypeError):
            pass
        return data


def write_private(path: Optional[Path], data: bytes) -> None:
    """Write a cache file atomically (a temp file, mode 0600, renamed over the old one)."""
    if path is None:
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not private_dir(path.parent):
        return
    from tilemem.files import replace_atomic
    replace_atomic(path, data, prefix=".cache-")


def prune(directory: Optional[Path], prefix: str, keep: int) -> None:
    """Remove all but the ``keep`` most recently used entries of the cache directory
    whose names start with ``prefix`` (an entry: the files ``NAME.*`` of one key; used:
    the newest time one of them was written or read).  Each distinct ``--rules`` set
    stores ~750 kB: without this the directory grows with every rule file edited."""
    if directory is None or not private_dir(directory):
        return
    try:
        entries: dict[str, list[tuple[str, float]]] = {}
        with os.scandir(directory) as it:
            for e in it:
                if e.name.startswith(prefix) and e.is_file(follow_symlinks=False):
                    entries.setdefault(e.name.split(".", 1)[0], []).append(
                        (e.path, e.stat(follow_symlinks=False).st_mtime))
        if len(entries) <= keep:
            return
        by_use = sorted(entries.values(), key=lambda files: max(t for _, t in files), reverse=True)
        for files in by_use[keep:]:
            for path, _ in files:
                try:
                    os.unlink(path)
                except OSError:
                    pass
    except OSError:
        pass
