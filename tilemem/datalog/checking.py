"""Validation of parsed rule files: declarations, .input relations and their .facts
files, arities, undefined predicates, ground facts, column types, safety (every variable
bound by a positive atom), and stratification (no negation or aggregate inside a
recursive cycle).

:func:`check` reports every error it finds at once, as ``file:line:col: error: ...``
(:class:`RuleError`), sorted by file, line and column; warnings (singleton variables,
relations nothing defines) are returned with what it computed: the dependency graph and
its strata, which a RuleSet keeps.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple, Optional, Sequence

from tilemem.datalog.errors import Diagnostic, RuleError
from tilemem.datalog.fact_files import read_fact_file
from tilemem.datalog.location import Loc
from tilemem.datalog.planning import plan_body

if TYPE_CHECKING:
    from tilemem.datalog.syntax import Aggregate, Decl, Input, Literal, ParsedFile, Rule

__all__ = ["CheckedProgram", "check", "dependency_graph"]


class CheckedProgram(NamedTuple):
    """What validating the rule files computed (see :class:`~tilemem.datalog.RuleSet`)."""
    items: tuple                      # every item of every file, in order
    rules: tuple                      # every rule with a body, in file order
    facts: tuple                      # every ground fact, the .facts files' rows last
    decls: dict                       # name -> Decl
    inputs: dict                      # name -> Input (the first .input of each)
    arity: dict                       # name -> (arity, where it was fixed, how)
    defined: dict                     # name -> Loc of the first rule or fact for it
    first_use: dict                   # name -> Loc of its first use
    keys: dict                        # name -> Key (its .key, checked against its .decl)
    planned: tuple                    # each rule's body in evaluation order
    nodes: tuple                      # every predicate name, sorted
    edges: dict                       # (q, p) -> negative: a rule for p uses q
    graph: object                     # networkx DiGraph of ``edges``
    strata: tuple                     # the graph's components, in evaluation order
    warnings: tuple                   # Diagnostics of severity "warning"


def dependency_graph(nodes: Sequence[str], edges: dict):
    """networkx DiGraph of the dependencies: edge ``q -> p`` when a rule for p uses q
    (attribute ``negative``: some use is negated)."""
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    for (q, p), negative in edges.items():
        g.add_edge(q, p, negative=negative)
    return g


def check(parsed: Sequence[ParsedFile]) -> CheckedProgram:
    """Validate parsed rule files (raises :class:`RuleError` listing every error)."""
    return _Checker(parsed).run()


class _Checker:
    def __init__(self, parsed: Sequence[ParsedFile]):
        from tilemem.datalog.syntax import Rule
        self.parsed = parsed
        self.sources = [p.name for p in parsed]
        self.errors: list[Diagnostic] = [e for p in parsed for e in p.errors]
        self.warnings: list[Diagnostic] = []
        self.items = tuple(it for p in parsed for it in p.items)
        self.domains: dict[str, str] = {}     # .type domain -> its base type (declarations)
        self.rules = tuple(i for i in self.items if isinstance(i, Rule) and i.body)
        self.facts = tuple(i for i in self.items if isinstance(i, Rule) and not i.body)

    def err(self, loc: Optional[Loc], msg: str):
        self.errors.append(Diagnostic(loc.file, loc.line, loc.col, msg) if loc
                           else Diagnostic("<rules>", 1, 1, msg))

    def warn(self, loc: Loc, msg: str):
        self.warnings.append(Diagnostic(loc.file, loc.line, loc.col, msg, severity="warning"))

    def run(self) -> CheckedProgram:
        from tilemem.datalog.syntax import Rule
        decls, inputs = self.declarations()
        self.read_fact_files(decls, inputs)
        arity, defined, first_use = self.arities(decls, inputs)
        keys = self.keys(decls)
        self.definitions(decls, inputs, defined)
        self.ground_facts()
        # types: constants and variables agree with the typed columns they meet
        for r in self.items:
            if isinstance(r, Rule):
                _check_types(r, decls, self.domains, self.err)
        # safety, per rule (planning the body for evaluation on the way)
        planned = tuple(_check_safety(r, self.err, self.warn) for r in self.rules)
        nodes = tuple(sorted(set(arity) | set(decls) | set(inputs)))
        edges, graph, strata = self.stratify(nodes)
        rank = {name: i for i, name in reversed(list(enumerate(self.sources)))}
        self.errors.sort(key=lambda d: (rank.get(d.file, len(self.sources)), d.line, d.col))
        if self.errors:
            raise RuleError(self.errors)
        return CheckedProgram(self.items, self.rules, self.facts, decls, inputs, arity,
                              defined, first_use, keys, planned, nodes, edges, graph, strata,
                              tuple(self.warnings))

    def declarations(self) -> tuple[dict, dict]:
        """The ``.decl`` and ``.input`` of every relation (each once, with known column
        types and the parameters Soufflé's file IO takes)."""
        from tilemem.datalog.syntax import COLUMN_TYPES, Decl, Input, TypeDecl
        err = self.err
        decls: dict[str, Decl] = {}
        inputs: dict[str, Input] = {}
        self.domains: dict[str, str] = {}         # .type domain -> its base type
        for it in self.items:
            if isinstance(it, TypeDecl):
                if it.name in COLUMN_TYPES or it.name in self.domains:
                    err(it.loc, f"type '{it.name}' is declared twice" if it.name in self.domains
                        else f"'{it.name}' is a base type, not a name for a .type")
                elif it.base not in COLUMN_TYPES:
                    err(it.loc, f".type {it.name}: unknown base type '{it.base}' "
                                f"(one of: {', '.join(COLUMN_TYPES)})")
                else:
                    self.domains[it.name] = it.base
        for it in self.items:
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
        known = (*COLUMN_TYPES, *self.domains)
        for name, d in decls.items():
            for c, t in zip(d.columns, d.types):
                if t is not None and t not in known:
                    err(d.loc, f"column {c} of {d.name} has unknown type '{t}' "
                               f"(one of: {', '.join(known)})")
            if any(t in self.domains for t in d.types):
                # the base types for the rows; the domains for the rules' type check
                decls[name] = replace(d, types=tuple(self.domains.get(t, t) for t in d.types),
                                      domains=tuple(t if t in self.domains else None
                                                    for t in d.types))
        return decls, inputs

    def keys(self, decls: dict) -> dict:
        """The ``.key`` of every relation that has one: of a declared relation, naming
        some of its columns (each once), not all of them, one per relation."""
        from tilemem.datalog.syntax import Key
        keys: dict[str, Key] = {}
        for it in self.items:
            if not isinstance(it, Key):
                continue
            d = decls.get(it.name)
            if it.name in keys:
                self.err(it.loc, f"relation '{it.name}' has a .key already (at {keys[it.name].loc})")
            elif d is None:
                self.err(it.loc, f".key {it.name}: '{it.name}' has no .decl (a key names "
                                 "declared columns)")
            elif any(c not in d.columns for c in it.columns):
                bad = next(c for c in it.columns if c not in d.columns)
                self.err(it.loc, f".key {it.name}: no column '{bad}' in {d}")
            elif len(set(it.columns)) != len(it.columns):
                self.err(it.loc, f".key {it.name}: a column named twice")
            elif len(it.columns) == len(d.columns):
                self.err(it.loc, f".key {it.name}: every column is in the key, so it says "
                                 "nothing (name the columns that determine the others)")
            else:
                keys[it.name] = it
        return keys

    def read_fact_files(self, decls: dict, inputs: dict) -> None:
        """Rows of .input relations read from .facts files (Soufflé's layout) join the
        facts."""
        from tilemem.datalog.syntax import Input
        file_rows: list[Rule] = []
        for pf in self.parsed:
            for it in pf.items:
                if isinstance(it, Input) and it.param("filename") and inputs.get(it.name) is it:
                    file_rows.extend(read_fact_file(decls.get(it.name), it, pf.base, self.err))
        if file_rows:
            self.facts = self.facts + tuple(file_rows)

    def arities(self, decls: dict, inputs: dict) -> tuple[dict, dict, dict]:
        """Every use of a relation has its arity (the declared one, else the first
        use's); (arity, defined, first_use) by name."""
        from tilemem.datalog.syntax import Atom, Rule
        err = self.err
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
        for it in self.items:
            if isinstance(it, Rule):
                check_atom(it.head, "first used")
                defined.setdefault(it.head.pred, it.loc)
                for atom in it.body_atoms():
                    check_atom(atom, "first used")

        for name, inp in inputs.items():
            if name not in arity:
                err(inp.loc, f".input relation '{name}' has no .decl and no rule uses it, "
                             f"so its arity is unknown (add a .decl)")
        return arity, defined, first_use

    def definitions(self, decls: dict, inputs: dict, defined: dict) -> None:
        """Every relation a rule reads is declared, input or derived; a declared one
        nothing defines is always empty (a warning)."""
        for it in self.rules:
            for atom in it.body_atoms():
                p = atom.pred
                if p not in decls and p not in defined and p not in inputs:
                    self.err(atom.loc, f"undefined predicate '{p}' (no .decl, rule or fact "
                                       f"defines it)")
        for name, d in decls.items():
            if name not in defined and name not in inputs:
                self.warn(d.loc, f"predicate '{name}' is declared but no rule or fact defines "
                                 f"it (it is always empty)")

    def ground_facts(self) -> None:
        from tilemem.datalog.syntax import Var
        for f in self.facts:
            for t in f.head.args:
                if isinstance(t, Var):
                    self.err(t.loc, f"fact '{f.head.pred}' must be ground: "
                                    f"{'anonymous variable' if t.is_anonymous else 'variable ' + t.name} "
                                    f"not allowed")

    def stratify(self, nodes: tuple) -> tuple[dict, object, tuple]:
        """The dependency graph, as (edges, graph), and its strata: the strongly
        connected components in dependency order (among the ready ones, the one whose
        smallest member name is smallest first: deterministic), each a sorted tuple.  A
        negation or an aggregate inside a component is an error."""
        from tilemem.datalog.syntax import Aggregate, Atom, Negation
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
        import networkx as nx
        graph = dependency_graph(nodes, edges)
        components = nx.condensation(graph)
        comp_of: dict[str, int] = components.graph["mapping"]
        members = {c: tuple(sorted(components.nodes[c]["members"])) for c in components}
        order = nx.lexicographical_topological_sort(components, key=lambda c: members[c][0])
        sites = [(kv, "negation") for kv in neg_sites.items()] + \
                [(kv, "aggregate") for kv in agg_sites.items() if kv[0] not in neg_sites]
        for ((q, p), loc), what in sorted(sites, key=lambda s: (s[0][1].file, s[0][1].line,
                                                                s[0][1].col)):
            if comp_of[q] == comp_of[p]:
                self.err(loc, f"{what} of '{q}' in a rule for '{p}' is inside a recursive "
                              f"cycle (not stratifiable): {_describe_cycle(graph, p, q, what)}")
        return edges, graph, tuple(members[c] for c in order)


# ----------------------------------------------------------------------------- per rule


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
            _check_aggregate(lit, err, anon_error)

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


def _check_types(rule: Rule, decls: dict, domains: dict, err) -> None:
    """Every constant in a typed column has that column's type, and every variable has
    one type throughout the rule (from the typed columns it appears in, constants it is
    compared with, arithmetic, aggregates).  Untyped columns accept anything.  A domain
    (``.type Stmt <: number``) is its base type to constants, arithmetic and base-typed
    columns, but never meets another domain."""
    from tilemem.datalog.syntax import Aggregate, Arith, Atom, Comparison, Const
    seen: dict[str, tuple[str, str]] = {}          # var -> (type, where it got it)
    base = lambda typ: domains.get(typ, typ)

    def clash(a: str, b: str) -> bool:
        return base(a) != base(b) or (a != b and a in domains and b in domains)

    def give(t, typ: str, where: str, loc):
        if isinstance(t, Const):
            if _const_type(t.value) != base(typ):
                err(t.loc or loc, f"type error: {t} is a {_const_type(t.value)}, but {where} "
                                  f"is a {typ}")
            return False
        if t.is_anonymous:
            return False
        had = seen.get(t.name)
        if had is None:
            seen[t.name] = (typ, where)
            return True
        if clash(had[0], typ):
            err(t.loc or loc, f"type error: variable {t.name} is a {had[0]} ({had[1]}) and a "
                              f"{typ} ({where})")
            seen[t.name] = (typ, where)        # report each clash once
        elif typ != had[0] and typ in domains:
            seen[t.name] = (typ, where)        # the domain is the more precise type
            return True
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
            typ = d.column_domain(i)
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
                elif lt and rt and clash(lt, rt):
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

