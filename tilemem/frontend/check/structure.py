"""The structure of printed IR: what PyPTO's IR guarantees and its printer shows.

* Every name an InCore function reads is bound before it is read (as
  :mod:`tilemem.frontend.wellformed` requires, here reported for every name at once).
  Other functions are not checked: real dumps read names bound outside them, which
  PyPTO's own text reader refuses but its IR held (corpus-models README).
* A name assigned again is not an error: PyPTO's reader binds it to a new var (its printer
  would print ``x_1``), and so does tilemem's reading of a re-assigned tile (a tensor is
  re-assigned by the ops that write it, ``out_0 = pl.tile.store(t, [0, 0], out_0)``).
* A loop with iter-args has as many ``init_values`` as iter-args, and its body ends with
  a yield of as many values (bound to as many return vars); the yields ending the two
  branches of an ``if`` bind the same return vars.
* A call ``self.NAME(...)`` names a function of the program and passes one argument per
  parameter, positionally or by its name (other keywords are call-site options:
  ``attrs=``, a distributed call's ``device=``).
"""
from __future__ import annotations

from tilemem import ir
from tilemem.frontend.check.problems import Problems
from tilemem.frontend.wellformed import FREE_SUFFIX, binds, unbound_message
from tilemem.ir.walk import last_yield, statements

__all__ = ["StructureCheck"]


class StructureCheck:
    """The structure checks of one function, fed its statements in program order: the
    names each reads (:meth:`name`, as met), then the statement and the calls it holds."""

    def __init__(self, program: ir.Program, fn: ir.Function, functions: dict, problems: Problems):
        self.fn, self.functions, self.problems = fn, functions, problems
        # names (InCore functions only): those bound so far, those already reported
        self.bound = ({p.name for p in fn.params} | {name for name, _ in program.dynamic}) \
            if fn.is_incore else None
        self.defined = None         # every name the function binds (asked for on a first unbound read)
        self.reported: set = set()

    def name(self, x: ir.Name) -> None:
        """A name the statement being walked reads (before the statement binds its own)."""
        if self.bound is not None and x.id not in self.bound:
            self._unbound(x)

    def statement(self, s: ir.Stmt, calls: list) -> None:
        t = type(s)
        if t is ir.For:
            self._loop(s)
        elif t is ir.If:
            self._branches(s)
        elif t is ir.Yield and s.targets and s.values and len(s.targets) != len(s.values):
            self.problems.add_at(s, f"pl.yield_ binds {len(s.targets)} return var(s) "
                                    f"({', '.join(s.targets)}) but yields {len(s.values)} value(s)")
        for x in calls:
            if x.func.startswith("self."):
                self._call(x)
        if self.bound is not None:
            self.bound.update(binds(s))

    def _unbound(self, x: ir.Name) -> None:
        if x.id in self.reported or x.id.endswith(FREE_SUFFIX):
            return
        if self.defined is None:
            self.defined = {n for t, _ in statements(self.fn.body) for n in binds(t)}
        self.reported.add(x.id)         # one message per name: its first read
        self.problems.add_at(x, unbound_message(self.fn.name, x.id, self.defined))

    def _loop(self, s: ir.For) -> None:
        if s.iter_args is None:
            return
        n = len(s.iter_args)
        init = s.iter.kwarg("init_values")
        if len(s.init_values) != n:
            self.problems.add_at(init if init is not None else s.iter,
                                 f"the loop has {n} iter-arg(s) ({', '.join(s.iter_args)}) but "
                                 f"{len(s.init_values)} init_values")
        y = last_yield(s.body)
        if y is None:
            self.problems.add_at(s, f"the loop has {n} iter-arg(s) ({', '.join(s.iter_args)}) but its body "
                                    f"does not end with pl.yield_")
        # (a bare `pl.yield_()` -- also one bound to return vars -- in a loop with iter-args is accepted by PyPTO's reader and
        # printed back as written -- oracle-checked on a DSL loop with one iter-arg -- so
        # only a yield of some values but the wrong count is rejected)
        elif y.values and len(y.values) != n:
            self.problems.add_at(y, f"pl.yield_ yields {len(y.values)} value(s) but the loop at line {s.line} "
                                    f"has {n} iter-arg(s) ({', '.join(s.iter_args)})")

    def _branches(self, s: ir.If) -> None:
        then = last_yield(s.then_body)
        other = last_yield(s.else_body) if s.else_body else None
        if then is None or other is None:
            return
        # (the return vars are compared only when both branches print them)
        if len(then.values) != len(other.values) or (then.targets and other.targets
                                                     and then.targets != other.targets):
            self.problems.add_at(other, f"the else branch yields {len(other.values)} value(s) into "
                                        f"({', '.join(other.targets)}) but the then branch (line {then.line}) "
                                        f"yields {len(then.values)} into ({', '.join(then.targets)})")

    def _call(self, call: ir.Call) -> None:
        name = call.func[len("self."):]
        callee = self.functions.get(name)
        if callee is None:
            from difflib import get_close_matches
            near = get_close_matches(name, list(self.functions), n=1)
            hint = f" (did you mean 'self.{near[0]}'?)" if near else ""
            self.problems.add_at(call, f"call to 'self.{name}': the program defines no function '{name}'{hint}")
            return
        params = {p.name for p in callee.params}
        given = len(call.args) + sum(1 for k, _ in call.kwargs if k in params)
        if given != len(callee.params):
            self.problems.add_at(call, f"'self.{name}' takes {len(callee.params)} argument(s) "
                                       f"({', '.join(p.name for p in callee.params)}), got {given}")
