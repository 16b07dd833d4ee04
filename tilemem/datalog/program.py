"""RuleSet: parsed, validated and stratified rule files.

A :class:`RuleSet` is immutable once built and may be shared by any number of
:class:`~tilemem.datalog.Database` objects, in any thread.  Whole rule sets built from the
same sources are cached per process, and on disk (:mod:`.disk_cache`): a solve reads the
rule set's cached program and loads the syntax tree only when something reads it.

Where the rules come from is :mod:`.sources` (and :mod:`.fact_files`); what makes them
valid, :mod:`.checking`; the order a body runs in, :mod:`.planning`.
"""
from __future__ import annotations

import os
import _thread          # (the locks of threading, without its ~4 M instructions of import)
from itertools import chain
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterable, Optional, Sequence, Union

from tilemem.datalog import disk_cache, sources as _sources
from tilemem.datalog.errors import Diagnostic
from tilemem.datalog.location import Loc, Located
from tilemem.datalog.sources import LruCache
# the rule language's AST and parser (tilemem.datalog.syntax) and its checks (.checking) are
# imported by the functions that build or read the syntax tree: a solve reads the cached
# program and never needs them

if TYPE_CHECKING:
    from tilemem.datalog.sources import Source
    from tilemem.datalog.syntax import ParsedFile, Rule

__all__ = ["RuleSet", "PredicateInfo"]


class PredicateInfo(Located):
    """Everything the rule files say about one predicate (read-only).

    ``rules`` are the rules whose head is this predicate (in file order) and ``facts``
    the ground facts written in rule files.  ``loc`` is the ``.decl`` if there is one,
    else the first place that defines (or, failing that, uses) the predicate.
    ``stratum`` is the index of the predicate's component in ``RuleSet.strata``;
    ``is_derived``: some rule (with a body) derives it; ``key``: the columns its ``.key``
    names (they determine the others), or None.

    A plain class: the rule set of a solve read from the disk cache has no syntax tree
    until something asks for ``rules``, ``facts`` or ``doc`` (then its RuleSet loads the
    tree; see the module docstring); ``columns``, ``key`` and ``loc`` are in the program.
    """
    __slots__ = ("name", "arity", "is_input", "is_derived", "stratum", "recursive",
                 "fact_file", "columns", "loc", "key", "_detail", "_owner")
    _FIELDS = ("name", "arity", "is_input", "is_derived", "stratum", "recursive", "fact_file",
               "columns", "loc", "key")

    def __init__(self, name: str, arity: int, columns: Optional[tuple[str, ...]], doc: str,
                 is_input: bool, rules: tuple, facts: tuple, loc: Optional[Loc],
                 stratum: int = -1, recursive: bool = False, fact_file: Optional[str] = None,
                 key: Optional[tuple[str, ...]] = None):
        self._set(name, arity, is_input, bool(rules), stratum, recursive, fact_file,
                  columns, loc, key, (doc, tuple(rules), tuple(facts)), None)

    def _set(self, *values) -> None:
        for put, v in zip(_SLOT_SETTERS, values):
            put(self, v)

    @classmethod
    def _summary(cls, owner: "RuleSet", name: str, arity: int, is_input: bool,
                 is_derived: bool, stratum: int, recursive: bool,
                 fact_file: Optional[str], columns: Optional[list],
                 loc: Optional[list], key: Optional[list]) -> "PredicateInfo":
        """The info without the syntax-tree parts, which ``owner`` loads when asked."""
        info = cls.__new__(cls)
        info._set(name, arity, is_input, is_derived, stratum, recursive, fact_file,
                  tuple(columns) if columns is not None else None,
                  Loc(*loc) if loc is not None else None,
                  tuple(key) if key is not None else None, None, owner)
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



# each slot's own setter, in __slots__' order (past the read-only __setattr__; a setter per
# slot rather than object.__setattr__ by name: a solve reads ~220 predicates' summaries)
_SLOT_SETTERS = tuple(PredicateInfo.__dict__[k].__set__ for k in PredicateInfo.__slots__)

# whole rule sets, by their sources' keys (the most recently used)
_rule_sets = LruCache(64)
# guards giving a rule set read from its cached program its tree, and what engines compiled
_lock = _thread.allocate_lock()


class RuleSet:
    """Parsed and validated rule files.  Build with :meth:`load` or :meth:`from_package`.

    Attributes:
        sources:    display names of the files, in load order
        rules:      every rule with a body, in file order
        planned:    for each rule, its body in evaluation order (see :func:`~tilemem.datalog.planning.plan_body`)
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
        from tilemem.datalog.checking import check
        checked = check(parsed)
        self.sources: tuple[str, ...] = tuple(p.name for p in parsed)
        self.items = checked.items
        self.rules: tuple[Rule, ...] = checked.rules
        self.facts: tuple[Rule, ...] = checked.facts
        self.decls = checked.decls
        self.planned = checked.planned
        self.nodes: tuple[str, ...] = checked.nodes
        self.edges: dict[tuple[str, str], bool] = checked.edges
        self._graph = checked.graph
        self._ancestors: dict[str, frozenset] = {}     # a relation's name -> its ancestors
        # ("depends_on" | "strata", a list of names as a tuple) -> that method's answer
        self._answers: dict = {}
        self.strata: tuple[tuple[str, ...], ...] = checked.strata
        self.warnings: tuple[Diagnostic, ...] = checked.warnings

        # --- predicate infos
        stratum_of = {n: i for i, comp in enumerate(self.strata) for n in comp}
        rules_of: dict[str, list[Rule]] = {}
        facts_of: dict[str, list[Rule]] = {}
        for r in self.rules:
            rules_of.setdefault(r.head.pred, []).append(r)
        for f in self.facts:
            facts_of.setdefault(f.head.pred, []).append(f)
        decls, inputs, arity = checked.decls, checked.inputs, checked.arity
        preds: dict[str, PredicateInfo] = {}
        for name in self.nodes:
            d = decls.get(name)
            recursive = len(self.strata[stratum_of[name]]) > 1 or (name, name) in self.edges
            preds[name] = PredicateInfo(
                name=name, arity=arity[name][0], columns=d.columns if d else None,
                doc=d.doc if d else "", is_input=name in inputs,
                rules=tuple(rules_of.get(name, ())), facts=tuple(facts_of.get(name, ())),
                loc=d.loc if d else checked.defined.get(name, checked.first_use.get(name)),
                stratum=stratum_of[name], recursive=recursive,
                fact_file=inputs[name].param("filename") if name in inputs else None,
                key=checked.keys[name].columns if name in checked.keys else None)
        self.predicates: dict[str, PredicateInfo] = preds
        # the rule files' facts as rows of values (what engines load)
        rows: dict[str, list[tuple]] = {}
        for f in self.facts:
            rows.setdefault(f.head.pred, []).append(tuple(t.value for t in f.head.args))
        self.fact_rows: dict[str, tuple[tuple, ...]] = {k: tuple(v) for k, v in rows.items()}
        self._compiled: dict[str, object] = {}
        self._texts = None              # the sources' (name, text, folder): to rebuild the tree
        self._program_path = None       # the cached program in the disk cache, if any


    #: attributes that need the syntax tree (see the module docstring)
    _TREE = ("items", "rules", "facts", "planned", "decls")

    def __getattr__(self, name: str):
        # only called for attributes the instance lacks: the tree of a rule set that
        # was read from the cached program
        if name in RuleSet._TREE and "predicates" in self.__dict__:
            self._load_tree()
            return self.__dict__[name]
        raise AttributeError(f"'RuleSet' object has no attribute '{name}'")

    def _load_tree(self) -> None:
        """Give a rule set read from its cached program its syntax tree: from the pickle
        cache, else by parsing the sources again."""
        from tilemem.datalog.syntax import parse_program
        with _lock:
            if "rules" in self.__dict__:
                return
            texts = self._texts
        full = disk_cache.load_tree(texts, RuleSet)
        if full is None:
            full = RuleSet([_sources.with_base(parse_program(t[1], t[0]), t[2] if len(t) > 2 else None)
                            for t in texts])
            disk_cache.store_tree(texts, full)
        with _lock:
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
        """What a solve needs, as plain data (what marshal keeps) (see :meth:`_from_program`)."""
        return {
            "format": disk_cache.FORMAT, "sources": list(self.sources), "nodes": list(self.nodes),
            "edges": [[q, p, neg] for (q, p), neg in self.edges.items()],
            "strata": [list(c) for c in self.strata],
            "predicates": [[i.name, i.arity, i.is_input, i.is_derived, i.stratum, i.recursive,
                            i.fact_file, list(i.columns) if i.columns is not None else None,
                            [i.loc.file, i.loc.line, i.loc.col] if i.loc is not None else None,
                            list(i.key) if i.key is not None else None]
                           for i in self.predicates.values()],
            "fact_rows": {k: tuple(map(tuple, v)) for k, v in self.fact_rows.items()},
            "warnings": [[w.file, w.line, w.col, w.message, w.severity] for w in self.warnings],
            "compiled": self._compiled,
        }

    @classmethod
    def _from_program(cls, data: dict, texts, path) -> "RuleSet":
        if data.get("format") != disk_cache.FORMAT:
            raise ValueError("another format")
        rs = cls.__new__(cls)
        d = rs.__dict__
        d["sources"] = tuple(data["sources"])
        d["nodes"] = tuple(data["nodes"])
        d["edges"] = {(q, p): bool(neg) for q, p, neg in data["edges"]}
        d["strata"] = tuple(tuple(c) for c in data["strata"])
        d["warnings"] = tuple(Diagnostic(f, line, col, message, severity=severity)
                              for f, line, col, message, severity in data["warnings"])
        d["fact_rows"] = rows_of = data["fact_rows"]
        if type(rows_of) is not dict:
            raise ValueError("fact rows that are not a dict")
        d["_compiled"] = dict(data["compiled"])
        d["_graph"] = None
        d["_ancestors"] = {}
        d["_answers"] = {}
        d["_texts"] = list(texts)
        d["_program_path"] = path
        d["predicates"] = {row[0]: PredicateInfo._summary(rs, *row) for row in data["predicates"]}
        values = {int, str}
        for rows in rows_of.values():      # tuples of ints and strings, checked at C speed
            if type(rows) is not tuple or not set(map(type, rows)) <= {tuple} \
                    or not set(map(type, chain.from_iterable(rows))) <= values:
                raise ValueError("a fact row that is not a tuple of ints and strings")
        return rs

    def compiled(self, key: str, build):
        """What an engine compiled from these rules (``build(self)``, plain data (what marshal keeps)),
        built once and kept with the rule set, in the disk cache too."""
        got = self._compiled.get(key)
        if got is None:
            got = build(self)
            with _lock:
                self._compiled[key] = got
            if self._program_path is not None:
                disk_cache.store_program(self._program_path, self._program())
        return got

    # ------------------------------------------------------------------ dependencies

    @property
    def graph(self):
        """networkx DiGraph of the dependencies: edge ``q -> p`` when a rule for p uses q
        (attribute ``negative``: some use is negated).  Built on first use."""
        if self._graph is None:
            from tilemem.datalog.checking import dependency_graph
            self._graph = dependency_graph(self.nodes, self.edges)
        return self._graph

    def depends_on(self, names: Iterable[str]) -> frozenset:
        """The relations ``names`` are computed from, directly or not, and ``names``
        themselves: what evaluating them evaluates.  A walk over the reverse edges
        (memoised per relation) rather than ``networkx.ancestors``: a solve reads a rule
        set's cached program, and importing networkx would cost it ~0.1 s."""
        if type(names) in (tuple, list):
            # the same few lists of relations are asked for again and again (each solve
            # asks for what it reads): their union, ~200 relations, is kept by the list
            key = ("depends_on", tuple(names))
            got = self._answers.get(key)
            if got is None:
                got = self._remember(key, self.depends_on(iter(key[1])))
            return got
        out: set[str] = set()
        for name in names:
            got = self._ancestors.get(name)
            if got is None:
                preds_of = self._preds_of()
                seen: set[str] = set()
                todo = [name]
                while todo:
                    for q in preds_of.get(todo.pop(), ()):
                        if q not in seen:
                            seen.add(q)
                            todo.append(q)
                got = self._ancestors[name] = frozenset(seen)
            out.add(name)
            out |= got
        return frozenset(out)

    def strata_of(self, names: Iterable[str]) -> tuple[int, ...]:
        """The indices into :attr:`strata` of the components evaluating ``names`` takes
        (:meth:`depends_on`), in evaluation order; kept per list of names."""
        names = tuple(names)
        key = ("strata", names)
        got = self._answers.get(key)
        if got is None:
            preds = self.predicates
            got = self._remember(key, tuple(sorted({preds[p].stratum
                                                    for p in self.depends_on(names)})))
        return got

    def _remember(self, key: tuple, value):
        """Keep the answer for a list of names (a bounded number of lists: a query
        console asks for any)."""
        answers = self._answers
        if len(answers) > 4096:
            answers.clear()
        answers[key] = value
        return value

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
        state["_answers"] = {}
        state["_texts"] = state["_program_path"] = None
        return state

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
                not isinstance(sources, (list, set, frozenset)) and _sources.is_traversable(sources):
            sources = [sources]
        sources = list(sources)
        resolved = [_sources.resolve(src, i) for i, src in enumerate(sources)]
        key = tuple(r[0] for r in resolved)
        cached = _rule_sets.get(key)
        if cached is not None:
            return cached
        texts = [(name, _sources.read_source(src, name, text), _sources.base_of(src))
                 for src, (_, name, text) in zip(sources, resolved)]
        rs = disk_cache.load_program(texts, cls._from_program)
        if rs is None:
            rs = disk_cache.load_tree(texts, cls)
            if rs is None:
                rs = cls([_sources.parse(src, i) for i, src in enumerate(sources)])
                disk_cache.store_tree(texts, rs)
            rs._texts = texts
            rs._program_path = disk_cache.entry_path(texts, disk_cache.PROGRAM)
            disk_cache.store_program(rs._program_path, rs._program())
        _rule_sets.put(key, rs)
        return rs

    @classmethod
    def from_package(cls, extra: Iterable[Source] = ()) -> "RuleSet":
        """All ``rules/*.dl`` shipped in ``tilemem.rules`` (sorted by file name),
        followed by the ``extra`` sources (e.g. user rule files)."""
        return cls.load([*_sources.package_rule_files(), *extra])

    @classmethod
    def clear_cache(cls) -> None:
        """Forget every cached parse and rule set of this process (mostly for tests;
        the on-disk cache is keyed by content and needs no invalidation)."""
        _sources.clear_parsed()
        _rule_sets.clear()

    # ------------------------------------------------------------------ queries

    def rules_for(self, pred: str) -> tuple[Rule, ...]:
        return self.predicates[pred].rules

    def user_sources(self) -> frozenset:
        """The display names of the sources that are not the shipped rule files (the
        ``extra`` files of :meth:`from_package`; every source of a set loaded without
        the shipped files)."""
        shipped = _sources.shipped_names()
        k = len(shipped)
        if list(self.sources[:k]) == shipped:
            return frozenset(self.sources[k:])
        return frozenset(self.sources)

    def __repr__(self) -> str:
        return (f"RuleSet({len(self.sources)} files, {len(self.predicates)} predicates, "
                f"{len(self.strata)} strata)")
