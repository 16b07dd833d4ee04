"""The on-disk cache of validated rule sets, shared by the processes of one user.

A rule set is stored in two parts: its *program* -- predicates, strata, dependencies,
the rule files' facts as rows, and whatever the engines compiled from the rules
(clingo's program text) -- as marshalled plain data, which is all a solve needs; and
the full syntax tree of the rules as a pickle, loaded only when something reads it (the
pyDatalog engine, explanations).

Building the rule language's parser and parsing and validating the shipped rules take
~0.55 s (the op table's rows are read from .facts files, not parsed); reading the
program ~1 ms (unpickling the whole tree ~20 ms).  The key covers every input of the
RuleSet: the name and text of every source and the .facts files they read, and the code
that builds it and compiles it for the engines (every module of this package and the
grammar by size and modification time, the Python version), so a changed rule file or a
new tilemem simply misses.
Entries live in a per-user directory ($TILEMEM_CACHE_DIR, else $XDG_CACHE_HOME/tilemem,
else ~/.cache/tilemem) that must belong to the user and not be writable by others (a
pickle is code; the program decides what the engine runs); the files themselves
must be this user's private regular files.  TILEMEM_NO_CACHE=1 turns the cache off.
Any failure just means no cache.
"""
from __future__ import annotations

import functools
from pathlib import Path
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Callable, Optional, Sequence

from tilemem.cache import cache_dir, prune, read_private, sha256, write_private
from tilemem.datalog.fact_files import fact_file_versions
from tilemem.resources import resource_dir

__all__ = ["FORMAT", "PROGRAM", "CACHED_RULE_SETS", "entry_path", "load_tree", "store_tree",
           "load_program", "store_program"]

#: the version of what is stored (a program of another format is not read)
FORMAT = "6"

#: the suffix of a rule set's program: plain data (dicts, lists, tuples, strings,
#: numbers) as :mod:`marshal` writes it, which reads it about twice as fast as JSON, its
#: rows already tuples; marshal runs nothing (it can hold a code object, which the
#: program's reader would refuse as a value of the wrong type, and never calls)
PROGRAM = ".marshal"

#: rule sets kept on disk (the most recently used; ~750 kB each with the shipped rules)
CACHED_RULE_SETS = 64


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """The version of the code that builds and reads a cached rule set: every module of
    this package and the rule grammar, each by name, size and modification time -- how
    Python's own bytecode cache tells a changed module (reading and hashing the ~190 kB
    of source instead cost ~12 M instructions of every start)."""
    import os
    import sys
    h = sha256(f"{FORMAT}\0{sys.version}\0".encode())
    here = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(n for n in os.listdir(here) if n.endswith(".py")):
        st = os.stat(os.path.join(here, name))
        h.update(f"{name}\0{st.st_mtime_ns}\0{st.st_size}\0".encode())
    grammar = resource_dir("grammar").joinpath("datalog.lark")
    if isinstance(grammar, Path):
        st = grammar.stat()
        h.update(f"datalog.lark\0{st.st_mtime_ns}\0{st.st_size}\0".encode())
    else:                       # not a file of the file system (a zip): its bytes
        h.update(grammar.read_bytes())
    return h.hexdigest()


def entry_path(texts: Sequence[tuple], suffix: str = ".pickle") -> Optional[Path]:
    """The cache file of a rule set's tree (``.pickle``) or program (:data:`PROGRAM`); ``texts``
    are the sources' (name, text, folder)."""
    d = cache_dir()
    if d is None:
        return None
    h = sha256(_code_digest().encode())
    for name, text, *base in texts:
        base = base[0] if base else None
        # the .facts files a source reads are inputs of the rule set too
        facts = [p for ref_digest in fact_file_versions(text, base) for p in ref_digest]
        for part in (name, text, *facts):
            b = part.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
    return d / f"rules-{h.hexdigest()[:32]}{suffix}"


def load_tree(texts, kind: type):
    """The whole rule set (its tree too, an instance of ``kind``) from the pickle cache,
    or None."""
    try:
        data = read_private(entry_path(texts))
        if data is None:
            return None
        import pickle
        rs = pickle.loads(data)
        return rs if isinstance(rs, kind) else None
    except Exception:
        return None


def store_tree(texts, rs) -> None:
    try:
        import pickle
        write_private(entry_path(texts), pickle.dumps(rs, protocol=pickle.HIGHEST_PROTOCOL))
        prune(cache_dir(), "rules-", CACHED_RULE_SETS)
    except Exception:
        pass


def load_program(texts, build: Callable[[dict, list, Path], object]):
    """``build(data, texts, path)`` of the rule set's program (the plain ``data`` stored
    at ``path``), or None when there is none or it cannot be built."""
    try:
        path = entry_path(texts, PROGRAM)
        data = read_private(path)
        if data is None:
            return None
        import marshal
        return build(marshal.loads(data), texts, path)
    except Exception:
        return None


def store_program(path: Optional[Path], program: dict) -> None:
    try:
        import marshal
        write_private(path, marshal.dumps(program))
        prune(cache_dir(), "rules-", CACHED_RULE_SETS)
    except Exception:
        pass
