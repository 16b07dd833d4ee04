"""The result cache: what a command answered for an input, kept in the project.

As ruff's ``.ruff_cache`` and mypy's ``.mypy_cache``: ``tilemem solve``, ``verify`` and
``why`` answer an input they have seen before, unchanged and under the same options,
from here instead of solving it again.  An entry is keyed by everything the answer
depends on (:func:`result_key`): the input's bytes and display path, the command and
its options (backend, engine, reading, limits, ...), the bytes of the user's rule files
and the ``.facts`` files they read, and tilemem itself (its version and every file of
the package, the shipped rules and grammars included, by name, size and modification
time), so an entry never goes stale: anything changed simply misses.

Where: ``[tool.tilemem] cache-dir`` (relative to its pyproject.toml), ``--cache-dir`` or
``$TILEMEM_RESULT_CACHE_DIR``; by default ``.tilemem_cache`` in the project (the folder
of the pyproject.toml that configures tilemem, else the current directory).  The
directory ignores itself in git (a ``.gitignore`` holding ``*``) and is tagged as a cache
(``CACHEDIR.TAG``).  ``--no-cache``, ``TILEMEM_NO_RESULT_CACHE=1`` or ``TILEMEM_NO_CACHE=1``
(every cache) turn it off.

Entries are JSON (data, never code): a file that does not parse, is truncated, holds
another format or another key is ignored (a miss) and replaced by the next store.
Each is written to a temp file of the same directory and renamed over the entry, so
concurrent processes read the old entry or the new one, never half of one.  The
directory is bounded (:data:`MAX_BYTES`): past it, the least recently used entries
(reading an entry touches it) are removed.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
TYPE_CHECKING = False    # (typing is not imported at run time: ~12 M instructions of a start)
if TYPE_CHECKING:
    from typing import Any, Optional, Sequence

from tilemem.cache import sha256

__all__ = ["ResultCache", "result_key", "default_dir", "FORMAT", "MAX_BYTES"]

FORMAT = "tilemem-result/1"
NAME = ".tilemem_cache"
#: the size the entries of one cache directory are kept under (the 352 real kernels'
#: solved programs take ~60 MB)
MAX_BYTES = 512 << 20
_GITIGNORE = "# Automatically created by tilemem.\n*\n"
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by tilemem.\n"
        "# For information about cache directory tags see https://bford.info/cachedir/\n")
_SUFFIX = ".json"
_TEMP = ".tmp-"


def default_dir(config_file: Optional[Path]) -> Path:
    """``.tilemem_cache`` beside the project's pyproject.toml, else in the current
    directory."""
    return (Path(config_file).parent if config_file else Path.cwd()) / NAME


def disabled_by_environment() -> bool:
    env = os.environ
    return bool(env.get("TILEMEM_NO_CACHE") or env.get("TILEMEM_NO_RESULT_CACHE"))


_code_value: Optional[str] = None


def _code_fingerprint() -> str:
    """tilemem's version and every file of the package, its rules and grammars, by
    name, size and modification time (~1 ms: stat, not read, each file)."""
    global _code_value
    if _code_value is None:
        from tilemem import __version__
        from tilemem.resources import resource_dir
        parts = [__version__]
        roots = [Path(__file__).resolve().parent]
        for name in ("rules", "grammar"):
            d = resource_dir(name)
            if isinstance(d, Path) and d not in roots and roots[0] not in d.parents:
                roots.append(d)
        for root in roots:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for f in sorted(filenames):
                    if f.endswith((".pyc", ".pyo")):
                        continue
                    try:
                        st = os.stat(os.path.join(dirpath, f))
                    except OSError:
                        continue
                    parts.append(f"{os.path.relpath(os.path.join(dirpath, f), root)}"
                                 f":{st.st_size}:{st.st_mtime_ns}")
        _code_value = sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return _code_value


def _rules_fingerprint(rules: Sequence[str]) -> list[str]:
    """The bytes of each user rule file (by hash) and the ``.facts`` files it reads (by
    size and modification time, as the rule program's own cache keys them); a file that
    cannot be read is named as such (the solve then reports it)."""
    if not rules:
        return []
    from tilemem.datalog.fact_files import fact_file_versions    # as the rule program's cache
    out = []
    for r in rules:
        try:
            data = Path(r).read_bytes()
        except OSError as e:
            out.append(f"{r}:unreadable:{e.errno}")
            continue
        out.append(f"{os.path.abspath(r)}:{sha256(data).hexdigest()}")
        out.extend(f"{ref}:{version}" for ref, version in
                   fact_file_versions(data.decode("utf-8", "replace"), Path(r).parent))
    return out


def result_key(command: str, text: str, path: str, rules: Sequence[str] = (),
               **options: Any) -> str:
    """The key of one answer: the command, the input (display path and text), the user's
    rule files and the command's ``options`` (JSON-able values), and tilemem itself."""
    h = sha256()
    head = json.dumps([FORMAT, _code_fingerprint(), command, path, _rules_fingerprint(rules),
                       sorted(options.items())], default=str)
    for part in (head, text):
        b = part.encode("utf-8", "surrogatepass")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


class ResultCache:
    """One cache directory (see the module docstring).  Every failure to read or write
    it is a miss or a skipped store: the cache never makes a command fail."""

    def __init__(self, directory: "str | os.PathLike", max_bytes: int = MAX_BYTES):
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self._stores = 0

    def _path(self, key: str) -> Path:
        return self.directory / (key + _SUFFIX)

    def get(self, key: str) -> Optional[Any]:
        """The answer stored under ``key``, or None (absent, unreadable, or not an entry
        of this format and key: never trusted)."""
        path = self._path(key)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            with os.fdopen(fd, "rb") as f:
                raw = f.read()
                try:
                    os.utime(f.fileno())        # used now: kept longest by the bound
                except (OSError, NotImplementedError, TypeError):
                    pass
            entry = json.loads(raw)
        except (OSError, ValueError, RecursionError):
            return None
        if type(entry) is not dict or entry.get("format") != FORMAT or entry.get("key") != key \
                or "answer" not in entry:
            return None
        return entry["answer"]

    def put(self, key: str, answer: Any) -> None:
        """Store ``answer`` (JSON-able) under ``key``, atomically; then keep the directory
        under its bound."""
        try:
            data = json.dumps({"format": FORMAT, "key": key, "answer": answer},
                              separators=(",", ":"), ensure_ascii=False).encode(
                                  "utf-8", "surrogatepass")
            self._prepare()
            _write_atomic(self._path(key), data)
        except (OSError, ValueError, TypeError, RecursionError):
            return
        self._stores += 1
        if self._stores == 1 or self._stores % 64 == 0:      # a scan per process, then
            self.prune()                                     # one per 64 stores

    def _prepare(self) -> None:
        """Create the directory, ignored by git and tagged as a cache."""
        d = self.directory
        if (d / ".gitignore").is_file():
            return
        d.mkdir(parents=True, exist_ok=True)
        for name, content in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _TAG)):
            if not (d / name).exists():
                _write_atomic(d / name, content.encode())

    def entries(self) -> list[tuple[str, int, float]]:
        """(path, size, last use) of every entry."""
        out = []
        try:
            with os.scandir(self.directory) as it:
                for e in it:
                    if e.name.endswith(_SUFFIX) and not e.name.startswith("."):
                        try:
                            st = e.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        out.append((e.path, st.st_size, st.st_mtime))
                    elif e.name.startswith(_TEMP) and _stale(e):
                        try:                    # a writer killed between write and rename
                            os.unlink(e.path)
                        except OSError:
                            pass
        except OSError:
            pass
        return out

    def prune(self) -> None:
        """Remove the least recently used entries while they take more than
        ``max_bytes`` (down to 80% of it, so that the next stores do not prune again)."""
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return
        goal = self.max_bytes * 4 // 5
        for path, size, _ in sorted(entries, key=lambda e: e[2]):
            if total <= goal:
                break
            try:
                os.unlink(path)
                total -= size
            except FileNotFoundError:
                total -= size                                # another process removed it
            except OSError:
                pass

    def clear(self) -> None:
        for path, _, _ in self.entries():
            try:
                os.unlink(path)
            except OSError:
                pass


def _stale(entry) -> bool:
    try:
        return time.time() - entry.stat(follow_symlinks=False).st_mtime > 3600
    except OSError:
        return False


def _write_atomic(path: Path, data: bytes) -> None:
    """A temp file in the entry's directory, renamed over the entry.  Not
    :func:`tilemem.files.write_atomic`: that one writes through a symlink to its target,
    which in a cache directory others may write to would let an entry's name point the
    write anywhere; here a rename replaces whatever the name is."""
    from tilemem.files import replace_atomic
    replace_atomic(path, data, prefix=_TEMP, suffix=".part")
