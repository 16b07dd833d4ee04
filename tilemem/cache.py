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
from time import time_ns
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["cache_dir", "private_dir", "private_file", "read_private", "write_private", "prune",
           "sha256", "cached_data", "package_text", "module_code"]


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
        try:                         # read now: the access time says so, the write time stays
            os.utime(f.fileno(), ns=(time_ns(), os.fstat(f.fileno()).st_mtime_ns))
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
    """Keep ``keep`` entries of the cache directory whose names start with ``prefix`` (an
    entry: the files ``NAME.*`` of one key), remove the others.

    Entries read back since they were written (re-used: each checkout's shipped rule set,
    read by every command) outlast entries only ever written: a test suite or a fuzzer
    stores dozens of one-off ``--rules`` sets in a minute, and under plain LRU they pushed
    every other checkout's shipped set out (64 slots, all one-offs; each command there
    then rebuilt its rules, ~0.55 s, and stored them again).  The ``keep // 4`` newest
    entries not yet re-used are kept too (a new checkout's set must live to be read
    again); the rest of the slots go to re-used entries, most recently read first, then
    to the newer one-offs.  (Each distinct set stores ~1 MB: without a bound the
    directory grows with every rule file edited.)"""
    if directory is None or not private_dir(directory):
        return
    try:
        # key -> [files, last write, last read] (read_private sets the access time)
        entries: dict[str, list] = {}
        with os.scandir(directory) as it:
            for e in it:
                if e.name.startswith(prefix) and e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    entry = entries.setdefault(e.name.split(".", 1)[0], [[], 0, 0])
                    entry[0].append(e.path)
                    entry[1] = max(entry[1], st.st_mtime_ns)
                    entry[2] = max(entry[2], st.st_atime_ns)
        if len(entries) <= keep:
            return
        reused = sorted((x for x in entries.values() if x[2] > x[1]), key=lambda x: x[2], reverse=True)
        fresh = sorted((x for x in entries.values() if x[2] <= x[1]), key=lambda x: x[1], reverse=True)
        probation = max(1, keep // 4)
        kept = fresh[:probation] + reused + fresh[probation:]
        for files, _, _ in kept[keep:]:
            for path in files:
                try:
                    os.unlink(path)
                except OSError:
                    pass
    except OSError:
        pass


def cached_data(kind: str, inputs, build, convert, keep: int = 8):
    """``convert(data)``, ``data`` the value of ``build()`` -- plain data, what :mod:`marshal`
    keeps (numbers, strings, tuples, lists, dicts, sets) -- as this cache kept it in
    ``KIND-KEY.marshal``, else built now and kept.  ``KEY`` digests ``inputs`` (bytes: the
    texts the data is built from and the code that builds and reads it) and Python's version
    (marshal's format is Python's).  A file that does not load, or that ``convert`` refuses
    (any exception), is rebuilt, never trusted; ``keep`` entries of ``kind`` are kept."""
    import marshal
    import sys
    path = None
    try:
        d = cache_dir()
        if d is not None:
            h = sha256(f"{kind}\0{sys.version}\0".encode())
            for part in inputs:
                h.update(len(part).to_bytes(8, "little"))
                h.update(part)
            path = d / f"{kind}-{h.hexdigest()[:32]}.marshal"
            raw = read_private(path)
            if raw is not None:
                return convert(marshal.loads(raw))
    except Exception:           # no home directory, a damaged or foreign file: built again
        pass
    data = build()
    got = convert(data)
    try:
        write_private(path, marshal.dumps(data))
        prune(path.parent, kind + "-", keep)
    except Exception:           # read-only or foreign cache directory: no cache
        pass
    return got


def package_text(module_file: str, package: str, name: str) -> str:
    """The text of the data file ``name`` next to the module ``module_file`` of ``package``
    (read directly: importlib.resources, for a package inside a zip file only, imports
    zipfile, tempfile and random -- ~40 M instructions of a start)."""
    try:
        with open(os.path.join(os.path.dirname(module_file), name), encoding="utf-8") as f:
            return f.read()
    except OSError:
        import importlib.resources
        return (importlib.resources.files(package) / name).read_text(encoding="utf-8")


def module_code(module_file: str) -> bytes:
    """The source of a module (a key of what it builds); empty when it has none to read."""
    try:
        with open(module_file, "rb") as f:
            return f.read()
    except OSError:
        return b""
