"""The structure of printed IR: what PyPTO's IR guarantees and its printer shows.

* Every name an InCore function reads is bound before it is read (as
  :mod:`tilemem.frontend.wellformed` requires, here reported for every name at once).
  Other functions are not checked: real dumps read names bound outside them, which
  PyPTO's own text reader refuses but its IR held (corpus-models README).
* A tile var is defined once in its function: PyPTO's printer gives two vars of one name
  hint distinct names (``x``, ``x_1``), so a second definition of a tile name in printed
  text is an edit the facts could not tell apart.  A tensor name is defined again by
  the ops that write it (``out_0 = pl.tile.store(t, [0, 0], out_0)``), and a branch's
  return vars by the yield of each branch: neither is checked.
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
from tilemem.ir.walk import last_yield, own_exprs, statements

__all__ = ["check_structure"]


def check_structure(program: ir.Program, problems: Problems) -> None:
    functions = {fn.name: fn for fn in program.functions}
    dynamic = {name for name, _ in program.dynamic}
    for fn in program.functions:
        if fn.is_incore:
            _check_names(fn, dynamic, problems)
        _check_tile_definitions(fn, problems)
        for s, _ in statements(fn.body):
            if type(s) is ir.For:
                _check_loop(s, problems)
            elif type(s) is ir.If:
                _check_branches(s, problems)
            elif type(s) is ir.Yield:
                if s.targets and len(s.targets) != len(s.values):
                    problems.add_at(s, f"pl.yield_ binds {len(s.targets)} return var(s) "
                                       f"({', '.join(s.targets)}) but yields {len(s.values)} value(s)")
            for e in own_exprs(s):
                for x in ir.subexpressions(e):
                    if type(x) is ir.Call and x.func.startswith("self."):
                        _check_call(x, functions, problems)


def _check_names(fn: ir.Function, dynamic: set, problems: Problems) -> None:
    bound = {p.name for p in fn.params} | dynamic
    defined = None
    reported = set()
    for s, _ in statements(fn.body):
        for e in own_exprs(s):
            for x in ir.subexpressions(e):
                if type(x) is ir.Name and x.id not in bound and x.id not in reported \
                        and not x.id.endswith(FREE_SUFFIX):
                    if defined is None:
                        defined = {n for t, _ in statements(fn.body) for n in binds(t)}
                    reported.add(x.id)      # one message per name: its first read
                    problems.add_at(x, unbound_message(fn.name, x.id, defined))
        bound.update(binds(s))


def _check_tile_definitions(fn: ir.Function, problems: Problems) -> None:
    where = {p.name: p for p in fn.params}
    for s, _ in statements(fn.body):
        if type(s) is ir.Assign:
            if len(s.targets) == 1 and isinstance(s.type, ir.TileType):
                name = s.targets[0]
                first = where.get(name)
                if first is not None:
                    problems.add_at(s, f"tile var '{name}' is defined twice in function '{fn.name}' "
                                       f"(first at line {first.line}); printed IR names each var once "
                                       f"(a second var of the same name prints as '{name}_1')")
            for name in s.targets:
                where.setdefault(name, s)
        elif type(s) is ir.For:
            for name in ([s.loop_var] if s.loop_var else []) + list(s.iter_args or []):
                where.setdefault(name, s)


def _check_loop(s: ir.For, problems: Problems) -> None:
    if s.iter_args is None:
        return
    n = len(s.iter_args)
    init = s.iter.kwarg("init_values")
    if len(s.init_values) != n:
        problems.add_at(init if init is not None else s.iter,
                        f"the loop has {n} iter-arg(s) ({', '.join(s.iter_args)}) but "
                        f"{len(s.init_values)} init_values")
    y = last_yield(s.body)
    if y is None:
        problems.add_at(s, f"the loop has {n} iter-arg(s) ({', '.join(s.iter_args)}) but its body "
                           f"does not end with pl.yield_")
    elif len(y.values) != n:
        problems.add_at(y, f"pl.yield_ yields {len(y.values)} value(s) but the loop at line {s.line} "
                           f"has {n} iter-arg(s) ({', '.join(s.iter_args)})")


def _check_branches(s: ir.If, problems: Problems) -> None:
    then = last_yield(s.then_body)
    other = last_yield(s.else_body) if s.else_body else None
    if then is None or other is None:
        return
    if len(then.values) != len(other.values) or then.targets != other.targets:
        problems.add_at(other, f"the else branch yields {len(other.values)} value(s) into "
                               f"({', '.join(other.targets)}) but the then branch (line {then.line}) "
                               f"yields {len(then.values)} into ({', '.join(then.targets)})")


def _check_call(call: ir.Call, functions: dict, problems: Problems) -> None:
    name = call.func[len("self."):]
    callee = functions.get(name)
    if callee is None:
        from difflib import get_close_matches
        near = get_close_matches(name, list(functions), n=1)
        hint = f" (did you mean 'self.{near[0]}'?)" if near else ""
        problems.add_at(call, f"call to 'self.{name}': the program defines no function '{name}'{hint}")
        return
    params = {p.name for p in callee.params}
    given = len(call.args) + sum(1 for k, _ in call.kwargs if k in params)
    if given != len(callee.params):
        problems.add_at(call, f"'self.{name}' takes {len(callee.params)} argument(s) "
                              f"({', '.join(p.name for p in callee.params)}), got {given}")
