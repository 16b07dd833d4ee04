"""Where rule text comes from: the sources a RuleSet is loaded from, the shipped rule
files, and each source parsed once per process.

A source is a path (``str``/``PathLike`` naming a ``.dl`` file or an existing file), an
``importlib.resources`` Traversable, a ``(name, text)`` pair, or a string of rule text
(any other ``str``; it is named ``<text>``, ``<text1>``, ...).  Parsed files are cached
per process (key: path + mtime + size, or a hash of the text).
"""
from __future__ import annotations

import functools
import os
import _thread          # (the locks of threading, without its ~4 M instructions of import)
from collections import OrderedDict
from pathlib import Path
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional, Union

from tilemem.cache import sha256
from tilemem.datalog.errors import Diagnostic, RuleError
from tilemem.resources import resource_dir

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable
    from tilemem.datalog.syntax import ParsedFile

__all__ = ["LruCache", "is_traversable", "resolve", "read_source", "base_of",
           "package_root", "package_rule_files", "shipped_names", "parse", "with_base",
           "clear_parsed"]

if TYPE_CHECKING:
    Source = Union[str, os.PathLike, Traversable, tuple]


def is_traversable(x) -> bool:
    """An importlib.resources Traversable (its module is imported only when a source
    is neither text nor a path)."""
    from importlib.resources.abc import Traversable
    return isinstance(x, Traversable)


class LruCache:
    """A per-process cache that keeps the ``limit`` most recently used values; safe to
    share between threads."""

    def __init__(self, limit: int):
        self.limit = limit
        self._lock = _thread.allocate_lock()
        self._entries: OrderedDict = OrderedDict()

    def get(self, key):
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_parsed = LruCache(512)


def _text_key(name: str, text: str) -> tuple:
    return ("text", name, sha256(text.encode("utf-8", "surrogatepass")).hexdigest())


def resolve(src: Source, index: int) -> tuple[tuple, str, Optional[str]]:
    """Return (cache key, display name, text-or-None-if-path-should-be-read)."""
    if isinstance(src, tuple):
        if len(src) != 2 or not all(isinstance(x, str) for x in src):
            raise TypeError("a (name, text) source must be a pair of strings")
        name, text = src
        return _text_key(name, text), name, text
    if isinstance(src, str) and ("\n" in src or not (src.endswith(".dl") or os.path.isfile(src))):
        name = f"<text{index}>" if index else "<text>"
        return _text_key(name, src), name, src
    if isinstance(src, (str, os.PathLike)):
        path = os.fspath(src)
        try:
            st = os.stat(path)
        except OSError as err:
            raise RuleError([Diagnostic(path, 1, 1, f"cannot read rule file: {err.strerror}")])
        return ("path", _real_path(path), st.st_mtime_ns, st.st_size), path, None
    if is_traversable(src):
        text = src.read_text(encoding="utf-8")
        return _text_key(src.name, text), src.name, text
    raise TypeError(f"unsupported rule source: {src!r}")


# path as given -> (the folder's identity when it was resolved, its real path)
_real_paths: dict = {}


def _real_path(path: str) -> str:
    """``os.path.realpath`` of a rule file, remembered per process while the folder it
    names is the same folder (device, inode and modification time: renaming or replacing
    an entry, a symlink's among them, changes the folder's time).  Resolving walks
    every component of the path with an ``lstat``: a solve looks up the ~30 shipped
    files' rule set four times (~7 ms of a small kernel's solve)."""
    stamp = _folder_stamps((os.path.dirname(path) or ".",))
    if stamp is None:
        return str(Path(path).resolve())
    got = _real_paths.get(path)
    if got is not None and got[0] == stamp:
        return got[1]
    real = str(Path(path).resolve())
    _real_paths[path] = (stamp, real)
    return real


def read_source(src: Source, name: str, text: Optional[str]) -> str:
    """The text of a source :func:`resolve` gave ``name`` and ``text`` (None: read the
    file ``src`` names)."""
    if text is not None:
        return text
    try:
        return Path(src).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RuleError([Diagnostic(name, 1, 1, f"cannot read rule file: {err}")])


def base_of(src: Source):
    """The folder of a rule file, for the .facts files it names (None for rule text)."""
    if not isinstance(src, tuple) and _is_package_file(src):     # a shipped rule file
        return package_root()
    if isinstance(src, os.PathLike) or \
            isinstance(src, str) and (src.endswith(".dl") or os.path.isfile(src)) and "\n" not in src:
        return Path(src).parent
    return None


@functools.lru_cache(maxsize=1)
def _package_paths() -> frozenset:
    return frozenset(str(f) for f in package_rule_files())


def _is_package_file(src: "Traversable") -> bool:
    return str(src) in _package_paths()


@functools.lru_cache(maxsize=1)
def package_root():
    """The folder of the shipped rule files (and of the .facts files they read)."""
    return resource_dir("rules")


# (the folders' identities, the files) of the last listing of the shipped rule files
_listed: Optional[tuple] = None


def _folder_stamps(folders) -> Optional[tuple]:
    try:
        return tuple((st.st_dev, st.st_ino, st.st_mtime_ns)
                     for st in map(os.stat, folders))
    except (OSError, TypeError):
        return None


def package_rule_files() -> list["Traversable"]:
    """The shipped rule files, sorted by name: ``rules/*.dl``, and in their place the
    ``*.dl`` of a phase's folder (``rules/p4_residency/``), sorted by name too.

    The listing is remembered while the folders it read are unchanged (adding, removing
    or renaming a file changes its folder's modification time): a solve asks four times."""
    global _listed
    listed = _listed
    if listed is not None:
        folders, stamps, files = listed
        if _folder_stamps(folders) == stamps:
            return list(files)
    root = package_root()
    files, folders = _list_rule_files(root)
    stamps = _folder_stamps(folders) if isinstance(root, Path) else None
    if stamps is not None:
        _listed = (folders, stamps, tuple(files))
    return files


def _list_rule_files(root) -> tuple[list, list]:
    folders = [root]
    files = []
    for f in sorted(root.iterdir(), key=lambda f: f.name):
        if f.name.endswith(".dl") and f.is_file():
            files.append(f)
        elif f.is_dir() and f.name[:1] == "p":
            folders.append(f)
            files.extend(sorted((g for g in f.iterdir() if g.name.endswith(".dl") and g.is_file()),
                                key=lambda g: g.name))
    return files, folders


@functools.lru_cache(maxsize=1)
def shipped_names() -> list[str]:
    """The display names the shipped rule files get in a RuleSet's sources."""
    return [resolve(f, i)[1] for i, f in enumerate(package_rule_files())]


def parse(src: Source, index: int) -> "ParsedFile":
    """The ``index``-th source parsed (cached per process), with the folder its .facts
    files are read from."""
    from tilemem.datalog.syntax import parse_program
    key, name, text = resolve(src, index)
    cached = _parsed.get(key)
    if cached is not None:
        return cached
    text = read_source(src, name, text)
    parsed = with_base(parse_program(text, name), base_of(src))
    _parsed.put(key, parsed)
    return parsed


def with_base(parsed: "ParsedFile", base) -> "ParsedFile":
    from tilemem.datalog.syntax import ParsedFile
    return ParsedFile(parsed.name, parsed.items, parsed.errors, base)


def clear_parsed() -> None:
    """Forget every parsed source of this process."""
    _parsed.clear()
