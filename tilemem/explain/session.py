"""The questions about one program: its databases, built on demand, and its vars by name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Optional, Sequence, Union

from tilemem.datalog import Atom, RuleSet, parse_query
from tilemem.explain.nodes import ExplainError, ProofNode
from tilemem.explain.search import Explainer
from tilemem.explain.sourcemap import SourceMap
from tilemem.explain.whynot import WhyNot

if TYPE_CHECKING:
    from tilemem.pipeline import Pipeline


class Session:
    """The questions about one program, answered from the databases of its
    :class:`~tilemem.pipeline.Pipeline` (run with ``explain=True``), built on demand
    and kept until :meth:`close`:

    * phases 0–3: the rules over the facts of the InCore functions;
    * phase 4 (only with a backend): the rules over the facts of the whole
      rewritten program.
    """

    def __init__(self, pipeline: Pipeline) -> None:
        if not pipeline.explain:
            raise ValueError("a Session needs a Pipeline run with explain=True")
        self.pipeline = pipeline
        self.program = pipeline.program
        self.backend = pipeline.backend
        self.extra_rules = pipeline.rules
        self.path = pipeline.path
        self.text = pipeline.text
        self._x1: Optional[Explainer] = None
        self._x2: Optional[Explainer] = None

    @classmethod
    def from_text(cls, text: str, path: str = "<input>", backend: Optional[str] = None,
                  rules: Sequence[str] = (), engine: Optional[str] = None,
                  form: Optional[str] = None, program: Optional[str] = None) -> "Session":
        """Read and check program text, and open a session on it (``form``, ``program``:
        see :mod:`tilemem.frontend.reading`)."""
        from tilemem.pipeline import Pipeline
        return cls(Pipeline.from_text(text, path, backend=backend, rules=rules, engine=engine,
                                      explain=True, form=form, program=program))

    # -- lifecycle
    def close(self) -> None:
        self.pipeline.close()
        self._x1 = self._x2 = None
        if hasattr(self, "_names"):
            self._names.clear()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def rules(self) -> RuleSet:
        from tilemem.infer.solver import load_rules
        return load_rules(self.extra_rules)

    # -- databases
    def phase3(self) -> Explainer:
        """The Explainer of phases 0–3 (built on first use)."""
        if self._x1 is None:
            derived = self.pipeline.phase3()
            db = self.pipeline.db3
            src = SourceMap(derived.facts, self.pipeline.stmts3, self.path, self.text, db.rules)
            self._x1 = Explainer(db, src, "phases 0-3")
        return self._x1

    @property
    def facts(self):
        return self.pipeline.phase3().facts

    @property
    def moves(self):
        return self.pipeline.moves

    def phase4(self) -> Optional[Explainer]:
        """The Explainer of phase 4 (residency), or None without a backend."""
        if self.backend is None:
            return None
        if self._x2 is None:
            derived = self.pipeline.phase4()
            db = self.pipeline.db4
            src = SourceMap(derived.facts, self.pipeline.stmts4, self.path, self.text, db.rules,
                            rewritten=True)
            self._x2 = Explainer(db, src, "phase 4 (residency)")
        return self._x2

    @property
    def facts4(self):
        """The facts of the whole rewritten program (phase 4), None without a backend."""
        res = self.pipeline.phase4()
        return res.facts if res is not None else None

    def is_phase4(self, pred: str) -> bool:
        """Whether ``pred`` is computed from the whole-program (residency) facts."""
        from tilemem.facts.schema import phase4_relations
        rules = self.rules
        if pred not in rules.predicates:
            return False
        return bool(rules.depends_on([pred]) & phase4_relations())

    def explainer_for(self, pred: str) -> Explainer:
        if self.is_phase4(pred):
            x = self.phase4()
            if x is None:
                raise ExplainError(f"'{pred}' is a phase 4 (residency) relation: it is only "
                                   f"computed with a backend (--backend 910B or 950)")
            return x
        return self.phase3()

    # -- queries
    def query(self, pattern: Union[str, Atom]):
        """``(columns, rows)`` of a pattern over the relation's database."""
        atom = parse_query(pattern) if isinstance(pattern, str) else pattern
        if self.backend is None and self.is_phase4(atom.pred):
            # phase 4 does not run without a backend: its relations are empty
            return self.phase3().db.query_atom(Atom(atom.pred, atom.args, atom.loc))._replace(rows=[])
        x = self.explainer_for(atom.pred) if atom.pred in self.rules.predicates else self.phase3()
        return x.db.query_atom(atom)

    def why(self, pattern: Union[str, Atom], limit: int = 20):
        """Proofs of the facts matching a pattern; a WhyNot if none holds."""
        atom = parse_query(pattern) if isinstance(pattern, str) else pattern
        if atom.pred not in self.rules.predicates:
            raise ExplainError(f"unknown predicate '{atom.pred}'")
        x = self.explainer_for(atom.pred)
        trees = x.explain_pattern(atom, limit)
        if trees:
            return trees
        return x.why_not_atom(atom, 3)

    def why_not_fact(self, pattern: Union[str, Atom], depth: int = 3) -> WhyNot:
        atom = parse_query(pattern) if isinstance(pattern, str) else pattern
        if atom.pred not in self.rules.predicates:
            raise ExplainError(f"unknown predicate '{atom.pred}'")
        x = self.explainer_for(atom.pred)
        info = x.predicate(atom.pred)
        if info.arity != atom.arity:
            raise ExplainError(f"predicate '{atom.pred}' has arity {info.arity}, not {atom.arity}")
        return x.why_not_atom(atom, depth)

    # -- people's words
    def names(self, x: Explainer):
        """How the facts of ``x`` read for people (:class:`tilemem.explain.names.Names`)."""
        from tilemem.explain.names import Names, program_vars
        if not hasattr(self, "_program_names"):
            self._program_names = [(f, n) for f, n, _, _ in program_vars(self.program)]
            self._names: dict = {}
        # kept per explainer: building it counts every var of the program (0.16 s a
        # question on the 21,000-line MTP kernel, most of an editor's hover)
        names = self._names.get(x)
        if names is None:
            names = self._names[x] = Names(x.source, self._program_names)
        return names

    @property
    def residency(self):
        """The residency verdicts (``Solution.residency``), None without a backend."""
        return self.pipeline.finished()[1] if self.backend is not None else None

    def var_kind(self, vid: str) -> Optional[str]:
        """What the var is declared as: "tile", "tensor", "scalar", ... (None: not declared)."""
        return next((k for v, k, _ in self.facts.rows.get("declared", []) if v == vid), None)

    # -- vars
    def resolve_var(self, var: str, function: Optional[str] = None) -> str:
        """The var id ``"<function>:<name>"`` of a tile var named by the user."""
        facts = self.facts
        known = facts.vars
        if ":" in var and function is None:
            function, var = var.split(":", 1)
        if function is not None:
            vid = f"{function}:{var}"
            if vid in known:
                return vid
            if not any(f == function for f, _ in known.values()):
                incore = sorted({f for f, _ in known.values()})
                raise ExplainError(f"no InCore function '{function}'"
                                   + (f" (InCore functions: {', '.join(incore)})" if incore else ""))
            raise ExplainError(f"no var '{var}' in function '{function}'" + _suggest(
                var, [n for f, n in known.values() if f == function]))
        hits = sorted(vid for vid, (f, n) in known.items() if n == var)
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            fns = ", ".join(h.split(":", 1)[0] for h in hits)
            raise ExplainError(f"var '{var}' exists in several InCore functions ({fns}); "
                               f"choose one with --function")
        raise ExplainError(f"no var '{var}' in any InCore function" + _suggest(
            var, [n for _, n in known.values()]))

    def move_of(self, name: str, function: Optional[str] = None):
        """The MoveRecord of an inserted move var, or None."""
        if ":" in name and function is None:
            function, name = name.split(":", 1)
        for m in self.moves:
            if m.name == name and (function is None or m.function == function):
                return m
        return None

    def explain_var(self, var: str, function: Optional[str] = None):
        """The proof of the var's ``space`` fact; if it has none, why not (a WhyNot)."""
        try:
            vid = self.resolve_var(var, function)
        except ExplainError:
            m = self.move_of(var, function)
            if m is None:
                raise
            return self.explain_move(m)
        x = self.phase3()
        rows = [r for r in x.rel.match("space", (vid, None))]
        if rows:
            return x.explain("space", rows[0])
        return x.why_not("space", (vid, None), depth=3)

    def explain_move(self, m):
        """The proof of the ``move_at`` fact that inserted move record ``m``."""
        x = self.phase3()
        vid = f"{m.function}:{m.producer}"
        rows = [r for r in x.rel.match("move_at", (None, vid, m.target))
                if m.consumer_line is None or x.source.stmt_line(r[0]) == m.consumer_line]
        if not rows:
            raise ExplainError(f"no move_at fact for the inserted move '{m.name}'")
        return x.explain("move_at", rows[0])

    def why_not_var(self, var: str, space: str, function: Optional[str] = None,
                    depth: int = 3) -> WhyNot:
        vid = self.resolve_var(var, function)
        return self.phase3().why_not("space", (vid, space), depth=depth)

    def explain_residency(self, var: str, function: Optional[str] = None) -> list[ProofNode]:
        """Proofs of the phase 4 verdicts (hoisted / declined) on the statement defining var."""
        x = self.phase4()
        if x is None:
            return []
        if ":" in var and function is None:
            function, var = var.split(":", 1)
        if function is None:
            try:
                vid = self.resolve_var(var, None)
            except ExplainError:
                names = sorted(v for v, (f, n) in (self.facts4.vars.items()) if n == var)
                if len(names) != 1:
                    return []
                vid = names[0]
        else:
            vid = f"{function}:{var}"
        out = []
        for pred in ("residency_hoisted", "residency_declined"):
            arity = x.predicate(pred).arity
            for r in x.rel.match(pred, (None, vid) + (None,) * (arity - 2)):
                out.append(x.explain(pred, r))
        return out


def _suggest(name: str, candidates: Iterable[str]) -> str:
    import difflib
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""
