"""RuleSet: parsed, validated and stratified rule files.

A :class:`RuleSet` is immutable once built and may be shared by any number of
:class:`~tilemem.datalog.Database` objects, in any thread.  Parsed files are
cached per process (key: path + mtime + size, or a hash of the text), and so are
whole rule sets built from the same sources.

Between processes, a rule set is cached on disk in two parts (see ``_disk_path``):
the *program* -- predicates, strata, dependencies, the rule files' facts as rows, and
whatever the engines compiled from the rules (clingo's program text) -- as JSON, which
is all a solve needs and loads in ~1 ms; and the full syntax tree of the rules as a
pickle, loaded only when something reads it (the pyDatalog engine, explanations).
"""
from __future__ import annotations

import functools
import os
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from tilemem.cache import cache_dir, prune, read_private, sha256, write_private
from tilemem.resources import resource_dir
from tilemem.datalog.errors import Diagnostic, RuleError
from tilemem.datalog.location import Loc, Located
# the rule language's AST and parser (tilemem.datalog.syntax) are imported by the functions
# that build or read the syntax tree: a solve reads the JSON program and never needs them

__all__ = ["RuleSet", "PredicateInfo", "Source", "plan_body"]

Source = Union[str, os.PathLike, "Traversable", tuple]


def _traversable(x) -> bool:
    """An importlib.resources Traversable (its module is imported only when a source
    is neither text nor a path)."""
    from importlib.resources.abc import Traversable
    return isinstance(x, Traversable)


class PredicateInfo(Located):
    """Everything the rule files say about one predicate (read-only).

    ``rules`` are the rules whose head is this predicate (in file order) and ``facts``
    the ground facts written in rule files.  ``loc`` is the ``.decl`` if there is one,
    else the first place that defines (or, failing that, uses) the predicate.
    ``stratum`` is the index of the predicate's component in ``RuleSet.strata``;
    ``is_derived``: some rule (with a body) derives it.

    A plain class: the rule set of a solve read from the disk cache has no syntax tree
    until something asks for ``rules``, ``facts`` or ``doc`` (then its RuleSet loads the
    tree; see the module docstring); ``columns`` and ``loc`` are in the program.
    """
    __slots__ = ("name", "arity", "is_input", "is_derived", "stratum", "recursive",
                 "fact_file", "columns", "loc", "_detail", "_owner")
    _FIELDS = ("name", "arity", "is_input", "is_derived", "stratum", "recursive", "fact_file",
               "columns", "loc")

    def __init__(self, name: str, arity: int, columns: Optional[tuple[str, ...]], doc: str,
                 is_input: bool, rules: tuple, facts: tuple, loc: Optional[Loc],
                 stratum: int = -1, recursive: bool = False, fact_file: Optional[str] = None):
        self._set(name, arity, is_input, bool(rules), stratum, recursive, fact_file,
                  columns, loc, (doc, tuple(rules), tuple(facts)), None)

    def _set(self, *values) -> None:
        for k, v in zip(self.__slots__, values):
            object.__setattr__(self, k, v)

    @classmethod
    def _summary(cls, owner: "RuleSet", name: str, arity: int, is_input: bool,
                 is_derived: bool, stratum: int, recursive: bool,
                 fact_file: Optional[str], columns: Optional[list],
                 loc: Optional[list]) -> "PredicateInfo":
        """The info without the syntax-tree parts, which ``owner`` loads when asked."""
        info = cls.__new__(cls)
        info._set(name, arity, is_input, is_derived, stratum, recursive, fact_file,
                  tuple(columns) if columns is not None else None,
                  Loc(*loc) if loc is not None else None, None, owner)
        return info

    def _details(self) -> tuple:
        if self._detail is None:
            self._owner._load_tree()
        return self._detail

    doc = property(lambda self: self._details()[0])
    rules = property(lambda self: self._details()[1])
    facts = property(lambda self: self._details()[2])

    @property
    def from_program(self) -> bool:
        """An ``.input`` relation whose rows come from the program (``fact_file``, the
        .facts file an ``.input`` reads, is None)."""
        return self.is_input and self.fact_file is None

    def __setattr__(self, name, value):
        raise AttributeError(f"PredicateInfo is read-only: cannot set '{name}'")

    def __getstate__(self):
        return tuple(getattr(self, k) for k in self._FIELDS) + (self._details(),)

    def __setstate__(self, state):
        self._set(*state, None)

    def __repr__(self) -> str:
        return (f"PredicateInfo(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self._FIELDS)
                + ")")


# ----------------------------------------------------------------------------- sources and caches

_cache_lock = threading.Lock()
_file_cache: "OrderedDict[tuple, ParsedFile]" = OrderedDict()
_ruleset_cache: "OrderedDict[tuple, RuleSet]" = OrderedDict()
_FILE_CACHE_SIZE = 512
_RULESET_CACHE_SIZE = 64


def _cache_get(cache: OrderedDict, key):
    with _cache_lock:
        value = cache.get(key)
        if value is not None:
            cache.move_to_end(key)
        return value


def _cache_put(cache: OrderedDict, key, value, limit: int):
    with _cache_lock:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > limit:
            cache.popitem(last=False)


def _text_key(name: str, text: str) -> tuple:
    return ("text", name, sha256(text.encode("utf-8", "surrogatepass")).hexdigest())


def _resolve_source(src: Source, index: int) -> tuple[tuple, str, Optional[str]]:
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
        path = Path(src)
        try:
            st = path.stat()
        except OSError as err:
            raise RuleError([Diagnostic(str(path), 1, 1, f"cannot read rule file: {err.strerror}")])
        return ("path", str(path.resolve()), st.st_mtime_ns, st.st_size), str(path), None
    if _traversable(src):
        text = src.read_text(encoding="utf-8")
        return _text_key(src.name, text), src.name, text
    raise TypeError(f"unsupported rule source: {src!r}")


def _base_of(src: Source):
    """The folder of a rule file, for the .facts files it names (None for rule text)."""
    if not isinstance(src, tuple) and _is_package_file(src):     # a shipped rule file
        return _package_root()
    if isinstance(src, os.PathLike) or \
            isinstance(src, str) and (src.endswith(".dl") or os.path.isfile(src)) and "\n" not in src:
        return Path(src).parent
    return None


_package_paths: Optional[frozenset] = None


def _is_package_file(src: "Traversable") -> bool:
    global _package_paths
    if _package_paths is None:
        _package_paths = frozenset(str(f) for f in _package_rule_files())
    return str(src) in _package_paths


_FACT_FILE_REF = re.compile(r'^\s*\.input\b[^\n]*?\bfilename\s*=\s*"([^"\\]*)"', re.M)


def _package_root():
    global _package_root_value
    if _package_root_value is None:
        _package_root_value = resource_dir("rules")
    return _package_root_value


_package_root_value = None


def _fact_file_key(text: str, base) -> tuple:
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


def _parse_source(src: Source, index: int) -> ParsedFile:
    from tilemem.datalog.syntax import parse_program
    key, name, text = _resolve_source(src, index)
    cached = _cache_get(_file_cache, key)
    if cached is not None:
        return cached
    if text is None:
        try:
            text = Path(src).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise RuleError([Diagnostic(name, 1, 1, f"cannot read rule file: {err}")])
    parsed = _with_base(parse_program(text, name), _base_of(src))
    _cache_put(_file_cache, key, parsed, _FILE_CACHE_SIZE)
    return parsed


def _with_base(parsed: ParsedFile, base) -> ParsedFile:
    from tilemem.datalog.syntax import ParsedFile
    return ParsedFile(parsed.name, parsed.items, parsed.errors, base)


def _read_fact_file(decl: Optional[Decl], inp: Input, base, err) -> list[Rule]:
    """The rows of a Soufflé .facts file (tab-separated, one row a line) as fact Rules:
    a number column's values are integers, a symbol column's the text as it is."""
    from tilemem.datalog.syntax import Atom, Const, Rule
    filename = inp.param("filename")
    if decl is None or not decl.types or None in decl.types:
        err(inp.loc, f".input {inp.name} reads '{filename}': its .decl must give every "
                     f"column a type (number or symbol)")
        return []
    # shown as the rule files are: a package file by its name below rules/, others by path
    if base is not None and str(base) == str(_package_root()) or \
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
# else ~/.cache/tilemem) that must belong to the user and not be writable by others (a
# pickle is code; the JSON program decides what the engine runs); the files themselves
# must be this user's private regular files.  TILEMEM_NO_CACHE=1 turns the cache off.
# Any failure just means no cache.
_DISK_FORMAT = "4"
_code_digest_value: Optional[str] = None


def _code_digest() -> str:
    global _code_digest_value
    if _code_digest_value is None:
        import sys
        h = sha256(f"{_DISK_FORMAT}\0{sys.version}\0".encode())
        here = Path(__file__).resolve().parent
        for part in sorted(here.glob("*.py")):
            h.update(part.name.encode() + b"\0" + part.read_bytes())
        h.update(resource_dir("grammar").joinpath("datalog.lark").read_bytes())
        _code_digest_value = h.hexdigest()
    return _code_digest_value


def _disk_path(texts: Sequence[tuple], suffix: str = ".pickle") -> Optional[Path]:
    """The cache file of a rule set's tree (``.pickle``) or program (``.json``); ``texts``
    are the sources' (name, text, folder)."""
    d = cache_dir()
    if d is None:
        return None
    h = sha256(_code_digest().encode())
    for name, text, *base in texts:
        base = base[0] if base else None
        # the .facts files a source reads are inputs of the rule set too
        facts = [p for ref_digest in _fact_file_key(text, base) for p in ref_digest]
        for part in (name, text, *facts):
            b = part.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
    return d / f"rules-{h.hexdigest()[:32]}{suffix}"


def _disk_load(texts) -> Optional["RuleSet"]:
    """The whole rule set (its tree too) from the pickle cache, or None."""
    try:
        data = read_private(_disk_path(texts))
        if data is None:
            return None
        import pickle
        rs = pickle.loads(data)
        return rs if isinstance(rs, RuleSet) else None
    except Exception:
        return None


#: rule sets kept on disk (the most recently used; ~750 kB each with the shipped rules)
CACHED_RULE_SETS = 64


def _disk_store(texts, rs: "RuleSet") -> None:
    try:
        import pickle
        write_private(_disk_path(texts), pickle.dumps(rs, protocol=pickle.HIGHEST_PROTOCOL))
        prune(cache_dir(), "rules-", CACHED_RULE_SETS)
    except Exception:
        pass


def _program_load(texts) -> Optional["RuleSet"]:
    """The rule set's program (no tree: loaded on demand) from the JSON cache, or None."""
    try:
        path = _disk_path(texts, ".json")
        data = read_private(path)
        if data is None:
            return None
        import json
        return RuleSet._from_program(json.loads(data), texts, path)
    except Exception:
        return None


def _program_store(path: Optional[Path], rs: "RuleSet") -> None:
    try:
        import json
        write_private(path, json.dumps(rs._program(), separators=(",", ":")).encode())
        prune(cache_dir(), "rules-", CACHED_RULE_SETS)
    except Exception:
        pass


@functools.lru_cache(maxsize=1)
def _shipped_names() -> list[str]:
    """The display names the shipped rule files get in a RuleSet's sources."""
    return [_resolve_source(f, i)[1] for i, f in enumerate(_package_rule_files())]


def _package_rule_files() -> list["Traversable"]:
    root = resource_dir("rules")
    return sorted((f for f in root.iterdir() if f.name.endswith(".dl") and f.is_file()),
                  key=lambda f: f.name)


# ----------------------------------------------------------------------------- body planning


def _literal_terms(body: Sequence[Literal]) -> list:
    """Every term written in the literals, aggregates' bodies included (for the singleton
    check)."""
    from tilemem.datalog.syntax import Arith, Atom, Comparison, Negation
    out: list = []
    for lit in body:
        if isinstance(lit, Atom):
            out.extend(lit.args)
        elif isinstance(lit, Negation):
            out.extend(lit.atom.args)
        elif isinstance(lit, Comparison):
            out.extend((lit.left, lit.right))
        elif isinstance(lit, Arith):
            out.extend((lit.target, lit.left, lit.right))
        else:
            out.append(lit.result)
            if lit.target is not None:
                out.append(lit.target)
            out.extend(_literal_terms(lit.body))
    return out


def _const_type(value) -> str:
    return "number" if isinstance(value, int) else "symbol"


def _check_types(rule: Rule, decls: dict, err) -> None:
    """Every constant in a typed column has that column's type, and every variable has
    one type throughout the rule (from the typed columns it appears in, constants it is
    compared with, arithmetic, aggregates).  Untyped columns accept anything."""
    from tilemem.datalog.syntax import Aggregate, Arith, Atom, Comparison, Const
    seen: dict[str, tuple[str, str]] = {}          # var -> (type, where it got it)

    def give(t, typ: str, where: str, loc):
        if isinstance(t, Const):
            if _const_type(t.value) != typ:
                err(t.loc or loc, f"type error: {t} is a {_const_type(t.value)}, but {where} "
                                  f"is a {typ}")
            return False
        if t.is_anonymous:
            return False
        had = seen.get(t.name)
        if had is None:
            seen[t.name] = (typ, where)
            return True
        if had[0] != typ:
            err(t.loc or loc, f"type error: variable {t.name} is a {had[0]} ({had[1]}) and a "
                              f"{typ} ({where})")
            seen[t.name] = (typ, where)        # report each clash once
        return False

    def type_of(t) -> Optional[str]:
        if isinstance(t, Const):
            return _const_type(t.value)
        return None if t.is_anonymous else seen.get(t.name, (None,))[0]

    def atom(a: Atom):
        d = decls.get(a.pred)
        if d is None:
            return
        for i, t in enumerate(a.args):
            typ = d.column_type(i)
            if typ is not None:
                give(t, typ, f"column {d.columns[i]} of {a.pred}", a.loc)

    def literals(body):
        for lit in body:
            for a in lit.atoms():
                atom(a)
            if isinstance(lit, Aggregate):
                literals(lit.body)

    atom(rule.head)
    literals(rule.body)
    # tests, arithmetic and aggregates pass types on (a few rounds reach every chain)
    for _ in range(3):
        changed = False
        stack = list(rule.body)
        while stack:
            lit = stack.pop()
            if isinstance(lit, Arith):
                for t in (lit.target, lit.left, lit.right):
                    changed |= give(t, "number", f"arithmetic '{lit}'", lit.loc)
            elif isinstance(lit, Comparison):
                lt, rt = type_of(lit.left), type_of(lit.right)
                if lt and not rt:
                    changed |= give(lit.right, lt, f"'{lit}'", lit.loc)
                elif rt and not lt:
                    changed |= give(lit.left, rt, f"'{lit}'", lit.loc)
                elif lt and rt and lt != rt:
                    err(lit.loc, f"type error: '{lit}' compares a {lt} with a {rt}")
            elif isinstance(lit, Aggregate):
                stack.extend(lit.body)
                if lit.func in ("count", "sum"):
                    changed |= give(lit.result, "number", f"the {lit.func} '{lit}'", lit.loc)
                if lit.func == "sum" and lit.target is not None:
                    changed |= give(lit.target, "number", f"the sum '{lit}'", lit.loc)
                if lit.func in ("min", "max") and lit.target is not None:
                    tt = type_of(lit.target)
                    if tt:
                        changed |= give(lit.result, tt, f"the {lit.func} '{lit}'", lit.loc)
        if not changed:
            break


def order_body(body: Sequence[Literal], bound: Iterable[str] = (),
               policy: str = "eager") -> tuple[list[int], set[str], list[int]]:
    """The one place that orders a rule body: (indices into ``body`` in the order to run
    them, the variables bound at the end, the indices that never became ready — only for
    unsafe rules).  ``bound``: variables bound before the body runs (a head's, when a
    fact is explained).  Every literal runs only once its ``needs()`` are bound.

    * ``"eager"`` (evaluation): positive atoms in written order; every other literal
      right after the literals that bind its variables, as early as that is;
    * ``"written"`` (why-not: the first premise that fails, as the rule reads): every
      literal in written order, one that is not ready at its turn waiting until it is;
    * ``"selective"`` (proof search): a ready test first, else the positive atom with
      the most bound arguments (a fully bound one first), written order among equals.
    """
    from tilemem.datalog.syntax import Atom, Const, Var
    bound = set(bound)
    order: list[int] = []
    if policy == "eager":
        pending = [i for i, lit in enumerate(body) if not isinstance(lit, Atom)]

        def flush():
            progress = True
            while progress:
                progress = False
                for i in pending:
                    if body[i].ready(bound):
                        pending.remove(i)
                        order.append(i)
                        bound.update(body[i].binds())
                        progress = True
                        break      # restart: keep written order among ready literals

        flush()
        for i, lit in enumerate(body):
            if isinstance(lit, Atom):
                order.append(i)
                bound.update(lit.binds())
                flush()
        return order, bound, pending
    if policy == "written":
        waiting: list[int] = []
        for i, lit in enumerate(body):
            if isinstance(lit, Atom) or lit.ready(bound):
                order.append(i)
                bound |= lit.binds()
                progress = True
                while progress and waiting:
                    progress = False
                    for j in waiting:
                        if body[j].ready(bound):
                            waiting.remove(j)
                            order.append(j)
                            bound |= body[j].binds()
                            progress = True
                            break
            else:
                waiting.append(i)
        return order + waiting, bound, waiting
    if policy != "selective":
        raise ValueError(f"unknown body order '{policy}'")
    todo = list(range(len(body)))
    stuck: list[int] = []
    while todo:
        pick = next((i for i in todo if not isinstance(body[i], Atom) and body[i].ready(bound)),
                    None)
        if pick is None:
            atoms = [i for i in todo if isinstance(body[i], Atom)]
            if not atoms:               # unsafe leftovers (cannot happen for a valid RuleSet)
                pick = todo[0]
                stuck.append(pick)
            else:
                def score(i):
                    a = body[i]
                    nb = sum(1 for t in a.args if isinstance(t, Const)
                             or (isinstance(t, Var) and not t.is_anonymous and t.name in bound))
                    return (-(nb == a.arity), -nb, i)
                pick = min(atoms, key=score)
        todo.remove(pick)
        order.append(pick)
        bound |= body[pick].binds()
    return order, bound, stuck


def plan_body(body: Sequence[Literal]) -> tuple[tuple[Literal, ...], set[str], list[Literal]]:
    """A rule body in evaluation order (:func:`order_body`, ``"eager"``): the ordered
    body, the variables bound at the end, and the literals that never became ready
    (non-empty only for unsafe rules)."""
    order, bound, stuck = order_body(body)
    return tuple(body[i] for i in order), bound, [body[i] for i in stuck]


# ----------------------------------------------------------------------------- RuleSet


class RuleSet:
    """Parsed and validated rule files.  Build with :meth:`load` or :meth:`from_package`.

    Attributes:
        sources:    display names of the files, in load order
        rules:      every rule with a body, in file order
        planned:    for each rule, its body in evaluation order (see :func:`plan_body`)
        facts:      every ground fact written in the files, in file order
        decls:      name -> Decl
        predicates: name -> :class:`PredicateInfo`
        strata:     the strongly connected components of the predicate dependency
                    graph, in evaluation (topological) order; each is a sorted tuple
        graph:      networkx DiGraph, edge ``q -> p`` when a rule for p uses q
                    (edge attribute ``negative`` is True if some use is negated)
        warnings:   non-fatal diagnostics (singleton variables, empty predicates)
    """

    def __init__(self, parsed: Sequence[ParsedFile]):
        from tilemem.datalog.syntax import (
            Aggregate, Atom, COLUMN_TYPES, Decl, Input, Literal, Negation, Rule, Var)
        self.sources: tuple[str, ...] = tuple(p.name for p in parsed)
        errors: list[Diagnostic] = [e for p in parsed for e in p.errors]
        warnings: list[Diagnostic] = []
        items = [it for p in parsed for it in p.items]
        self.items = tuple(items)
        self.rules: tuple[Rule, ...] = tuple(i for i in items if isinstance(i, Rule) and i.body)
        self.facts: tuple[Rule, ...] = tuple(i for i in items if isinstance(i, Rule) and not i.body)

        def err(loc: Optional[Loc], msg: str):
            errors.append(Diagnostic(loc.file, loc.line, loc.col, msg) if loc
                          else Diagnostic("<rules>", 1, 1, msg))

        def warn(loc: Loc, msg: str):
            warnings.append(Diagnostic(loc.file, loc.line, loc.col, msg, "warning"))

        # --- declarations
        decls: dict[str, Decl] = {}
        inputs: dict[str, Input] = {}
        for it in items:
            if isinstance(it, Decl):
                if it.name in decls:
                    err(it.loc, f"predicate '{it.name}' is declared twice "
                                f"(first at {decls[it.name].loc})")
                elif len(set(it.columns)) != len(it.columns):
                    err(it.loc, f"duplicate column name in .decl {it.name}")
                    decls[it.name] = it
                else:
                    decls[it.name] = it
            elif isinstance(it, Input):
                if it.name in inputs:
                    err(it.loc, f"relation '{it.name}' is marked .input twice")
                inputs.setdefault(it.name, it)
                for key, value in it.params:
                    if key not in ("IO", "filename") or (key == "IO" and value != "file"):
                        err(it.loc, f".input {it.name}: unsupported parameter {key}="
                                    f"\"{value}\" (only IO=\"file\" and filename=\"...\")")
                if it.params and not it.param("filename"):
                    err(it.loc, f".input {it.name}: IO=\"file\" needs a filename=\"...\"")
        for d in decls.values():
            for c, t in zip(d.columns, d.types):
                if t is not None and t not in COLUMN_TYPES:
                    err(d.loc, f"column {c} of {d.name} has unknown type '{t}' "
                               f"(one of: {', '.join(COLUMN_TYPES)})")
        self.decls = decls

        # --- rows of .input relations read from .facts files (Soufflé's layout)
        file_rows: list[Rule] = []
        for pf in parsed:
            for it in pf.items:
                if isinstance(it, Input) and it.param("filename") and inputs.get(it.name) is it:
                    file_rows.extend(_read_fact_file(decls.get(it.name), it, pf.base, err))
        if file_rows:
            self.facts = self.facts + tuple(file_rows)

        # --- arity of every use
        arity: dict[str, tuple[int, Loc, str]] = {n: (len(d.columns), d.loc, "declared")
                                                  for n, d in decls.items()}
        first_use: dict[str, Loc] = {}

        def check_atom(atom: Atom, how: str):
            first_use.setdefault(atom.pred, atom.loc)
            known = arity.get(atom.pred)
            if known is None:
                arity[atom.pred] = (atom.arity, atom.loc, how)
            elif known[0] != atom.arity:
                err(atom.loc, f"predicate '{atom.pred}' has arity {known[0]} ({known[2]} at "
                              f"{known[1]}) but is used here with {atom.arity} argument"
                              f"{'s' if atom.arity != 1 else ''}")

        defined: dict[str, Loc] = {}
        for it in items:
            if isinstance(it, Rule):
                check_atom(it.head, "first used")
                defined.setdefault(it.head.pred, it.loc)
                for atom in it.body_atoms():
                    check_atom(atom, "first used")

        for name, inp in inputs.items():
            if name not in arity:
                err(inp.loc, f".input relation '{name}' has no .decl and no rule uses it, "
                             f"so its arity is unknown (add a .decl)")

        # --- undefined predicates
        for it in self.rules:
            for atom in it.body_atoms():
                p = atom.pred
                if p not in decls and p not in defined and p not in inputs:
                    err(atom.loc, f"undefined predicate '{p}' (no .decl, rule or fact defines it)")
        for name, d in decls.items():
            if name not in defined and name not in inputs:
                warn(d.loc, f"predicate '{name}' is declared but no rule or fact defines it "
                            f"(it is always empty)")

        # --- facts must be ground
        for f in self.facts:
            for t in f.head.args:
                if isinstance(t, Var):
                    err(t.loc, f"fact '{f.head.pred}' must be ground: "
                               f"{'anonymous variable' if t.is_anonymous else 'variable ' + t.name} "
                               f"not allowed")

        # --- types: constants and variables agree with the typed columns they meet
        for r in self.items:
            if isinstance(r, Rule):
                _check_types(r, decls, err)

        # --- safety, per rule (planning the body for evaluation on the way)
        self.planned: tuple[tuple[Literal, ...], ...] = tuple(
            self._check_safety(r, err, warn) for r in self.rules)

        # --- dependency graph and stratification (plain dicts: networkx is only
        # imported when someone asks for ``self.graph``)
        names = set(arity) | set(decls) | set(inputs)
        self.nodes: tuple[str, ...] = tuple(sorted(names))
        edges: dict[tuple[str, str], bool] = {}        # (q, p) -> negative, q used by p
        neg_sites: dict[tuple[str, str], Loc] = {}
        agg_sites: dict[tuple[str, str], Loc] = {}
        for r in self.rules:
            h = r.head.pred
            for lit in r.body:
                if isinstance(lit, Atom):
                    edges.setdefault((lit.pred, h), False)
                elif isinstance(lit, Negation):
                    edges[(lit.atom.pred, h)] = True
                    neg_sites.setdefault((lit.atom.pred, h), lit.loc)
                elif isinstance(lit, Aggregate):
                    # an aggregate needs its body's relations complete, as a negation does
                    for atom in lit.atoms():
                        edges[(atom.pred, h)] = True
                        agg_sites.setdefault((atom.pred, h), lit.loc)
        self.edges = edges
        self._graph = None
        self._ancestors: dict[str, frozenset] = {}
        # strata: the strongly connected components of the dependency graph, in
        # dependency order (among the ready ones, the one whose smallest member name is
        # smallest first: deterministic), each a sorted tuple
        import networkx as nx
        components = nx.condensation(self.graph)
        comp_of: dict[str, int] = components.graph["mapping"]
        members = {c: tuple(sorted(components.nodes[c]["members"])) for c in components}
        order = nx.lexicographical_topological_sort(components, key=lambda c: members[c][0])
        sites = [(kv, "negation") for kv in neg_sites.items()] + \
                [(kv, "aggregate") for kv in agg_sites.items() if kv[0] not in neg_sites]
        for ((q, p), loc), what in sorted(sites, key=lambda s: (s[0][1].file, s[0][1].line,
                                                                s[0][1].col)):
            if comp_of[q] == comp_of[p]:
                err(loc, f"{what} of '{q}' in a rule for '{p}' is inside a recursive cycle "
                         f"(not stratifiable): {self._describe_cycle(self.graph, p, q, what)}")
        self.strata: tuple[tuple[str, ...], ...] = tuple(members[c] for c in order)

        errors.sort(key=lambda d: (self._file_rank(d.file), d.line, d.col))
        if errors:
            raise RuleError(errors)
        self.warnings: tuple[Diagnostic, ...] = tuple(warnings)

        # --- predicate infos
        stratum_of = {n: i for i, comp in enumerate(self.strata) for n in comp}
        rules_of: dict[str, list[Rule]] = {}
        facts_of: dict[str, list[Rule]] = {}
        for r in self.rules:
            rules_of.setdefault(r.head.pred, []).append(r)
        for f in self.facts:
            facts_of.setdefault(f.head.pred, []).append(f)
        preds: dict[str, PredicateInfo] = {}
        for name in sorted(names):
            d = decls.get(name)
            recursive = len(self.strata[stratum_of[name]]) > 1 or (name, name) in edges
            preds[name] = PredicateInfo(
                name=name, arity=arity[name][0], columns=d.columns if d else None,
                doc=d.doc if d else "", is_input=name in inputs,
                rules=tuple(rules_of.get(name, ())), facts=tuple(facts_of.get(name, ())),
                loc=d.loc if d else defined.get(name, first_use.get(name)),
                stratum=stratum_of[name], recursive=recursive,
                fact_file=inputs[name].param("filename") if name in inputs else None)
        self.predicates: dict[str, PredicateInfo] = preds
        # the rule files' facts as rows of values (what engines load)
        rows: dict[str, list[tuple]] = {}
        for f in self.facts:
            rows.setdefault(f.head.pred, []).append(tuple(t.value for t in f.head.args))
        self.fact_rows: dict[str, tuple[tuple, ...]] = {k: tuple(v) for k, v in rows.items()}
        self._compiled: dict[str, object] = {}
        self._texts = None              # the sources' (name, text, folder): to rebuild the tree
        self._program_path = None       # the JSON program in the disk cache, if any

    # ------------------------------------------------------------------ the program and the tree

    #: attributes that need the syntax tree (see the module docstring)
    _TREE = ("items", "rules", "facts", "planned", "decls")

    def __getattr__(self, name: str):
        # only called for attributes the instance lacks: the tree of a rule set that
        # was read from the JSON program
        if name in RuleSet._TREE and "predicates" in self.__dict__:
            self._load_tree()
            return self.__dict__[name]
        raise AttributeError(f"'RuleSet' object has no attribute '{name}'")

    def _load_tree(self) -> None:
        """Give a rule set read from its JSON program its syntax tree: from the pickle
        cache, else by parsing the sources again."""
        from tilemem.datalog.syntax import parse_program
        with _cache_lock:
            if "rules" in self.__dict__:
                return
            texts = self._texts
        full = _disk_load(texts)
        if full is None:
            full = RuleSet([_with_base(parse_program(t[1], t[0]), t[2] if len(t) > 2 else None)
                            for t in texts])
            _disk_store(texts, full)
        with _cache_lock:
            if "rules" in self.__dict__:
                return
            if full._program() != dict(self._program(), compiled=full._compiled):
                # a program that does not match its rules (a damaged cache): the rules win
                self.__dict__.update(full.__dict__, _texts=texts, _compiled={})
                return
            for name, info in self.predicates.items():
                object.__setattr__(info, "_detail", full.predicates[name]._details())
            for name in RuleSet._TREE:
                self.__dict__[name] = full.__dict__[name]

    def _program(self) -> dict:
        """What a solve needs, as JSON-able data (see :meth:`_from_program`)."""
        return {
            "format": _DISK_FORMAT, "sources": list(self.sources), "nodes": list(self.nodes),
            "edges": [[q, p, neg] for (q, p), neg in self.edges.items()],
            "strata": [list(c) for c in self.strata],
            "predicates": [[i.name, i.arity, i.is_input, i.is_derived, i.stratum, i.recursive,
                            i.fact_file, list(i.columns) if i.columns is not None else None,
                            [i.loc.file, i.loc.line, i.loc.col] if i.loc is not None else None]
                           for i in self.predicates.values()],
            "fact_rows": {k: [list(r) for r in v] for k, v in self.fact_rows.items()},
            "warnings": [[w.file, w.line, w.col, w.message, w.severity] for w in self.warnings],
            "compiled": self._compiled,
        }

    @classmethod
    def _from_program(cls, data: dict, texts, path) -> "RuleSet":
        if data.get("format") != _DISK_FORMAT:
            raise ValueError("another format")
        rs = cls.__new__(cls)
        d = rs.__dict__
        d["sources"] = tuple(data["sources"])
        d["nodes"] = tuple(data["nodes"])
        d["edges"] = {(q, p): bool(neg) for q, p, neg in data["edges"]}
        d["strata"] = tuple(tuple(c) for c in data["strata"])
        d["warnings"] = tuple(Diagnostic(*w) for w in data["warnings"])
        d["fact_rows"] = {k: tuple(map(tuple, v)) for k, v in data["fact_rows"].items()}
        d["_compiled"] = dict(data["compiled"])
        d["_graph"] = None
        d["_ancestors"] = {}
        d["_texts"] = list(texts)
        d["_program_path"] = path
        d["predicates"] = {row[0]: PredicateInfo._summary(rs, *row) for row in data["predicates"]}
        if any(type(v) not in (int, str) for rows in d["fact_rows"].values()
               for r in rows for v in r):
            raise ValueError("a fact value that is not an int or a str")
        return rs

    def compiled(self, key: str, build):
        """What an engine compiled from these rules (``build(self)``, JSON-able data),
        built once and kept with the rule set, in the disk cache too."""
        got = self._compiled.get(key)
        if got is None:
            got = build(self)
            with _cache_lock:
                self._compiled[key] = got
            if self._program_path is not None:
                _program_store(self._program_path, self)
        return got

    # ------------------------------------------------------------------ helpers

    def _file_rank(self, name: str) -> int:
        try:
            return self.sources.index(name)
        except ValueError:
            return len(self.sources)

    @property
    def graph(self):
        """networkx DiGraph of the dependencies: edge ``q -> p`` when a rule for p uses q
        (attribute ``negative``: some use is negated).  Built on first use."""
        if self._graph is None:
            import networkx as nx
            g = nx.DiGraph()
            g.add_nodes_from(self.nodes)
            for (q, p), negative in self.edges.items():
                g.add_edge(q, p, negative=negative)
            self._graph = g
        return self._graph

    def ancestors(self, pred: str) -> frozenset:
        """Every predicate ``pred`` depends on, directly or not (memoised).  A walk over
        the reverse edges rather than ``networkx.ancestors``: a solve reads a rule set's
        JSON program, and importing networkx would cost it ~0.1 s."""
        got = self._ancestors.get(pred)
        if got is None:
            preds_of = self._preds_of()
            seen: set[str] = set()
            todo = [pred]
            while todo:
                for q in preds_of.get(todo.pop(), ()):
                    if q not in seen:
                        seen.add(q)
                        todo.append(q)
            got = self._ancestors[pred] = frozenset(seen)
        return got

    def _preds_of(self) -> dict[str, list[str]]:
        d = self.__dict__.get("_pred_index")
        if d is None:
            d = {}
            for (q, p) in self.edges:
                d.setdefault(p, []).append(q)
            self.__dict__["_pred_index"] = d
        return d

    def __getstate__(self):
        if "rules" not in self.__dict__:
            self._load_tree()
        state = dict(self.__dict__)
        state["_graph"] = None                 # rebuilt on demand
        state.pop("_pred_index", None)
        state["_ancestors"] = {}
        state["_texts"] = state["_program_path"] = None
        return state

    @staticmethod
    def _describe_cycle(g, p: str, q: str, what: str = "negation") -> str:
        # edge q -> p is negative; a path p -> ... -> q closes the cycle
        import networkx as nx
        path = nx.shortest_path(g, p, q)
        # say it in "depends on" order: p depends on !q, q depends on ..., ... depends on p
        chain = list(reversed(path))          # q, ..., p
        parts = [f"{p} depends on {'!' if what == 'negation' else 'an aggregate of '}{q}"]
        for a, b in zip(chain, chain[1:]):
            parts.append(f"{a} depends on {b}")
        return ", ".join(parts)

    @staticmethod
    def _check_safety(r: Rule, err, warn) -> tuple[Literal, ...]:
        from tilemem.datalog.syntax import Aggregate, Arith, Comparison, Negation, Var
        def anon_error(term, where):
            if isinstance(term, Var) and term.is_anonymous:
                err(term.loc, f"anonymous variable '_' is not allowed {where}")

        for t in r.head.args:
            anon_error(t, "in a rule head")
        for lit in r.body:
            if isinstance(lit, Comparison):
                anon_error(lit.left, "in a comparison")
                anon_error(lit.right, "in a comparison")
            elif isinstance(lit, Arith):
                for t in (lit.target, lit.left, lit.right):
                    anon_error(t, "in arithmetic")
            elif isinstance(lit, Aggregate):
                RuleSet._check_aggregate(lit, err, anon_error)

        ordered, bound, stuck = plan_body(r.body)
        for lit in stuck:
            if isinstance(lit, Negation):
                terms, what = lit.atom.args, f"negation '!{lit.atom}'"
            elif isinstance(lit, Aggregate):
                terms = [Var(n, lit.loc) for n in lit.group]
                what = f"aggregate '{lit}' (a variable its body shares with the rule)"
            elif isinstance(lit, Arith):
                terms, what = (lit.left, lit.right), f"arithmetic '{lit}'"
            else:
                terms, what = (lit.left, lit.right), f"comparison '{lit}'"
            reported = False
            for t in terms:
                if isinstance(t, Var) and not t.is_anonymous and t.name not in bound:
                    err(t.loc, f"unsafe rule: variable {t.name} in {what} is not bound by a "
                               f"positive atom")
                    reported = True
            if not reported:           # only happens for X = Y with both sides unbound
                t = lit.left if isinstance(lit.left, Var) else lit.right
                err(t.loc, f"unsafe rule: variables in {what} are not bound by a positive atom")
        for t in r.head.args:
            if isinstance(t, Var) and not t.is_anonymous and t.name not in bound:
                err(t.loc, f"unsafe rule: head variable {t.name} is not bound by a positive "
                           f"atom in the body")
        # singleton variables (a likely typo): warn, as Soufflé does
        counts: dict[str, list[Var]] = {}
        for t in r.head.args:
            if isinstance(t, Var) and not t.is_anonymous:
                counts.setdefault(t.name, []).append(t)
        for t in _literal_terms(r.body):
            if isinstance(t, Var) and not t.is_anonymous:
                counts.setdefault(t.name, []).append(t)
        for name, occ in counts.items():
            if len(occ) == 1 and not name.startswith("_"):
                warn(occ[0].loc, f"variable {name} occurs only once in this rule (use _ if "
                                 f"that is intended)")
        return ordered

    @staticmethod
    def _check_aggregate(agg: Aggregate, err, anon_error) -> None:
        """An aggregate's own well-formedness: its function takes a target or not, its
        body is safe on its own (every variable of a test, of a negation and the target
        occurs in a positive atom of the body), and its result is not one of its body's
        variables."""
        from tilemem.datalog.syntax import Atom, Comparison, Var
        anon_error(agg.result, "as the result of an aggregate")
        if agg.target is not None:
            anon_error(agg.target, "as the value of an aggregate")
        if agg.func == "count" and agg.target is not None:
            err(agg.target.loc or agg.loc, "count takes no value: write N = count : { ... }")
        if agg.func != "count" and agg.target is None:
            err(agg.loc, f"{agg.func} needs the value to aggregate: "
                         f"R = {agg.func} X : {{ ... }}")
        positive: set[str] = set()
        for lit in agg.body:
            if isinstance(lit, Atom):
                positive |= lit.names()
            elif isinstance(lit, Comparison):
                anon_error(lit.left, "in a comparison")
                anon_error(lit.right, "in a comparison")
        if not any(isinstance(lit, Atom) for lit in agg.body):
            err(agg.loc, "an aggregate's body needs a positive atom")
        for lit in agg.body:
            if isinstance(lit, Atom):
                continue
            for t in _literal_terms([lit]):
                if isinstance(t, Var) and not t.is_anonymous and t.name not in positive:
                    err(t.loc, f"unsafe aggregate: variable {t.name} in '{lit}' does not occur "
                               f"in a positive atom of the aggregate's body")
        if isinstance(agg.target, Var) and agg.target.name not in positive:
            err(agg.target.loc, f"unsafe aggregate: the value {agg.target.name} does not occur "
                                f"in a positive atom of the aggregate's body")
        if isinstance(agg.result, Var) and agg.result.name in agg.body_names():
            err(agg.result.loc, f"the result {agg.result.name} of an aggregate cannot occur "
                                f"in its own body")

    # ------------------------------------------------------------------ construction

    @classmethod
    def load(cls, sources: Union[Source, Iterable[Source]]) -> "RuleSet":
        """Parse and validate rule files.

        ``sources`` is one source or a list of them.  A source is a path
        (``str``/``PathLike`` naming a ``.dl`` file or an existing file), an
        ``importlib.resources`` Traversable, a ``(name, text)`` pair, or a string of
        rule text (any other ``str``; it is named ``<text>``, ``<text1>``, ...).
        Raises :class:`RuleError` listing every error as ``file:line:col: error: ...``.
        """
        if isinstance(sources, (str, os.PathLike, tuple)) or \
                not isinstance(sources, (list, set, frozenset)) and _traversable(sources):
            sources = [sources]
        sources = list(sources)
        resolved = [_resolve_source(src, i) for i, src in enumerate(sources)]
        key = tuple(r[0] for r in resolved)
        cached = _cache_get(_ruleset_cache, key)
        if cached is not None:
            return cached
        texts = []
        for src, (_, name, text) in zip(sources, resolved):
            if text is None:
                try:
                    text = Path(src).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as err:
                    raise RuleError([Diagnostic(name, 1, 1, f"cannot read rule file: {err}")])
            texts.append((name, text, _base_of(src)))
        rs = _program_load(texts)
        if rs is None:
            rs = _disk_load(texts)
            if rs is None:
                rs = cls([_parse_source(src, i) for i, src in enumerate(sources)])
                _disk_store(texts, rs)
            rs._texts = texts
            rs._program_path = _disk_path(texts, ".json")
            _program_store(rs._program_path, rs)
        _cache_put(_ruleset_cache, key, rs, _RULESET_CACHE_SIZE)
        return rs

    @classmethod
    def from_package(cls, extra: Iterable[Source] = ()) -> "RuleSet":
        """All ``rules/*.dl`` shipped in ``tilemem.rules`` (sorted by file name),
        followed by the ``extra`` sources (e.g. user rule files)."""
        return cls.load([*_package_rule_files(), *extra])

    @classmethod
    def clear_cache(cls) -> None:
        """Forget every cached parse and rule set of this process (mostly for tests;
        the on-disk cache is keyed by content and needs no invalidation)."""
        with _cache_lock:
            _file_cache.clear()
            _ruleset_cache.clear()

    # ------------------------------------------------------------------ queries

    def rules_for(self, pred: str) -> tuple[Rule, ...]:
        return self.predicates[pred].rules

    def user_sources(self) -> frozenset:
        """The display names of the sources that are not the shipped rule files (the
        ``extra`` files of :meth:`from_package`; every source of a set loaded without
        the shipped files)."""
        shipped = _shipped_names()
        k = len(shipped)
        if list(self.sources[:k]) == shipped:
            return frozenset(self.sources[k:])
        return frozenset(self.sources)

    def __repr__(self) -> str:
        return (f"RuleSet({len(self.sources)} files, {len(self.predicates)} predicates, "
                f"{len(self.strata)} strata)")
