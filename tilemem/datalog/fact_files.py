"""The .facts files an ``.input`` reads (Soufflé's layout): their rows as facts, and
their versions for the caches' keys."""
from __future__ import annotations

import os
import re
from pathlib import Path
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.cache import sha256
from tilemem.datalog.location import Loc
from tilemem.datalog.sources import package_root

if TYPE_CHECKING:
    from tilemem.datalog.syntax import Decl, Input, Rule

__all__ = ["fact_file_versions", "read_fact_file"]

_FACT_FILE_REF = re.compile(r'^\s*\.input\b[^\n]*?\bfilename\s*=\s*"([^"\\]*)"', re.M)


def fact_file_versions(text: str, base) -> tuple:
    """(name, version) of each .facts file a rule text names (part of the caches' keys):
    a file's modification time and size, like a rule file's; the hash of its bytes when
    it is not a file of the file system."""
    if ".input" not in text:
        return ()
    out = []
    for ref in _FACT_FILE_REF.findall(text):
        path = _fact_file(base, ref)
        try:
            if isinstance(path, Path):
                st = path.stat()
                version = f"{st.st_mtime_ns}:{st.st_size}"
            else:
                version = sha256(path.read_bytes()).hexdigest()
        except (OSError, ValueError):
            version = "missing"
        out.append((ref, version))
    return tuple(out)


def _fact_file(base, filename: str):
    if os.path.isabs(filename) or base is None:
        return Path(filename)
    return base.joinpath(*filename.split("/"))


def read_fact_file(decl: Optional[Decl], inp: Input, base, err) -> list[Rule]:
    """The rows of a Soufflé .facts file (tab-separated, one row a line) as fact Rules:
    a number column's values are integers, a symbol column's the text as it is."""
    from tilemem.datalog.syntax import Atom, Const, Rule
    filename = inp.param("filename")
    if decl is None or not decl.types or None in decl.types:
        err(inp.loc, f".input {inp.name} reads '{filename}': its .decl must give every "
                     f"column a type (number or symbol)")
        return []
    # shown as the rule files are: a package file by its name below rules/, others by path
    if base is not None and str(base) == str(package_root()) or \
            base is None or os.path.isabs(filename):
        shown = filename
    else:
        shown = str(Path(str(base)) / filename)
    try:
        text = _fact_file(base, filename).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as e:
        err(inp.loc, f".input {inp.name}: cannot read '{filename}': {getattr(e, 'strerror', None) or e}")
        return []
    out: list[Rule] = []
    arity = len(decl.columns)
    for n, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        values = line.split("\t")
        loc = Loc(shown, n, 1)
        if len(values) != arity:
            err(loc, f"{decl.name}: a row has {len(values)} value{'s' if len(values) != 1 else ''}, "
                     f"the relation has {arity}")
            continue
        args = []
        for v, t in zip(values, decl.types):
            if t == "number":
                try:
                    v = int(v)
                except ValueError:
                    err(loc, f"{decl.name}: '{v}' is not a number")
                    break
            args.append(Const(v, loc))
        else:
            head = Atom(decl.name, tuple(args), loc)
            out.append(Rule(head, (), "", loc, f"{head}."))
    return out


# The on-disk cache of validated rule sets.  Building the rule language's parser and
# parsing and validating the shipped rules take ~0.55 s (the op table's rows are read
# from .facts files, not parsed); reading the JSON program ~1 ms (unpickling the whole tree ~20 ms).  The
# key covers every input of the RuleSet: the name and text of every source, and the code
# that builds it and compiles it for the engines (every module of this package, the
# grammar, the Python version), so a changed rule file or a new tilemem simply misses.
# Entries live in a per-user directory ($TILEMEM_CACHE_DIR, else $XDG_CACHE_HOME/tilemem,
