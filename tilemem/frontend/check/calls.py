"""Every op call of printed IR checked as PyPTO's front end checks it when it reads the
text back: the op table knows the op, the call passes no more positional arguments than
the op declares and only keywords the op takes (each once), and the op's type rule --
the same deducers, dtype and value tables the DSL reading uses -- accepts the operands
and agrees with the annotation the text gives the result.

What the printed text does not carry is not guessed: an operand whose type the text
does not give (a var of a tuple unpacking, a ``with ... as`` name), a symbolic extent the
deducer cannot compare, an op of a ``--rules`` file (its annotation is its type) -- each
leaves the check that needs it out, never a rejection.
"""
from __future__ import annotations

import functools
import re

from tilemem import ir
from tilemem.frontend.check.problems import Problems
from tilemem.ir import typerules

__all__ = ["CallCheck", "call_table"]


def get_close_matches(word, possibilities, n, cutoff):
    """difflib's, for the hint of an error (imported then: difflib is ~2 M instructions
    of every start, and a program that passes the checks asks for none)."""
    from difflib import get_close_matches as close
    return close(word, possibilities, n=n, cutoff=cutoff)


@functools.lru_cache(maxsize=1)
def _shipped() -> tuple:
    """(known ops, op -> declared positional args, op -> declared keywords, op -> its
    retargetable kwarg) of the op table: what is checked of an op no DSL wrapper reads."""
    from tilemem.datalog import RuleSet
    from tilemem.ir.optable import op_table
    rows = RuleSet.from_package().fact_rows
    ops = op_table().ops
    args: dict = {}
    for op, slot, name in sorted(rows.get("op_arg", ()), key=lambda r: (r[0], r[1])):
        args.setdefault(op, []).append(name)
    retargetable = {op: kw for op, kw in rows.get("op_retargetable", ())}
    keywords = op_table().kwarg_types
    return (ops, {op: tuple(a) for op, a in args.items()}, {op: frozenset(k) for op, k in keywords.items()},
            retargetable)


class CallCheck:
    """The op-call checks of one function, fed its statements in program order with the
    op calls each holds itself; keeps the types the text gives its names."""

    def __init__(self, fn: ir.Function, table: "_Table", problems: Problems):
        self.table, self.problems = table, problems
        self.types = {p.name: p.type for p in fn.params}
        self.splits: list = []      # (depth, mode) of the enclosing pl.split_aiv loops

    def statement(self, s: ir.Stmt, depth: int, calls: list) -> None:
        splits = self.splits
        while splits and splits[-1][0] >= depth:
            splits.pop()
        split = splits[-1][1] if splits else None
        value = s.value if type(s) is ir.Assign and len(s.targets) == 1 else None
        for x in calls:
            if type(x) is ir.Call and x.op is not None:
                result = _check_call(x, self.types, self.table, split, self.problems)
                if x is value and result is not None:
                    _check_annotation(s, result, self.types, self.table, self.problems)
        _bind(s, self.types)
        if type(s) is ir.For and s.kind == "split_aiv":
            # inside, the printer leaves out the shard ops' split=: their rule reads the scope's
            splits.append((depth, s.iter.kwarg("mode")))


# the table of the checks by the ``--rules`` files' ops: what passed and what was derived
# is a function of the calls' keys (plain values and type numbers, typerules.call_key),
# not of the program, and so kept from one checked program to the next (a batch of
# kernels, a workspace's edits), up to _KEPT entries (a pass over the 352 corpus-models
# kernels keeps ~46,000: ~20 MB)
_tables: dict = {}
_KEPT = 100_000


def call_table(declared_ops=frozenset()) -> "_Table":
    """The op table as the checks read it, with the ops of ``--rules`` files (and what
    checks of other programs found)."""
    declared = frozenset(declared_ops)
    table = _tables.get(declared)
    if table is None or table.derived.size() + len(table.passed) + len(table.annotations) > _KEPT:
        ops, arg_names, keywords, retargetable = _shipped()
        _tables.clear()
        table = _tables[declared] = _Table(ops | declared, arg_names, keywords, declared, retargetable)
    table.derived.forget_objects()      # (the last program's types: no longer alive by identity)
    return table


class _Table:
    """What the checks read of the op table: the known ops (the shipped table's and the
    ``--rules`` files'), each shipped op's declared positional arguments and keywords."""

    def __init__(self, known, arg_names, keywords, declared, retargetable):
        self.known, self.arg_names, self.keywords, self.declared = known, arg_names, keywords, declared
        self.retargetable = retargetable        # op -> the kwarg the pass may rewrite
        self.derived = typerules.CallTypes()    # the derivations of this check (same call, same type)
        # (op, positional count, keywords) of the calls whose signature checks passed: the
        # checks read nothing else, and a kernel repeats a few hundred signatures
        self.signatures: set = set()
        # the key (typerules.call_key) of each call whose operands passed -> its result type
        self.passed: dict = {}
        # (annotation, deduced type, callee) of each annotation that agreed with its call
        self.annotations: set = set()


def _bind(s: ir.Stmt, types: dict) -> None:
    """The types the statement gives the names it binds, as the text writes them."""
    t = type(s)
    if t is ir.Assign:
        if len(s.targets) == 1 and s.type is not None:
            types[s.targets[0]] = s.type
        else:
            for name in s.targets:
                types.pop(name, None)       # (a tuple unpacking: not written)
    elif t is ir.For:
        if s.loop_var:
            types[s.loop_var] = ir.ScalarType("INDEX")
        for name, init in zip(s.iter_args or (), s.init_values):
            got = types.get(init.id) if type(init) is ir.Name else None
            if got is None:
                types.pop(name, None)
            else:
                types[name] = got
    elif t is ir.Yield:
        for name, ty in zip(s.targets, s.target_types):
            if ty is not None:
                types[name] = ty
            else:
                types.pop(name, None)
    elif t is ir.With and s.as_name:
        types.pop(s.as_name, None)


def _check_call(call: ir.Call, types: dict, table: _Table, split, problems: Problems):
    """Check one op call; its deduced result type (None: not a tile, not deduced)."""
    op = call.op
    signature = (call.func, len(call.args), tuple([k for k, _ in call.kwargs]))
    if signature in table.signatures:
        return _check_operands(call, types, split, table, problems)
    if op not in table.known:
        near = get_close_matches(op, sorted(table.known), n=1, cutoff=0.75)
        hint = f" (did you mean 'pl.{near[0]}'?)" if near else ""
        problems.add_at(call, f"unknown operation '{call.func}'{hint}")
        return None
    before = len(problems.found)
    seen = set()
    for key, value in call.kwargs:
        if key in seen:
            problems.add(*_keyword_at(key, value), f"{call.func}: keyword argument '{key}' repeated")
        seen.add(key)
    if op in table.declared:
        return None     # an op of the user's: the rule file declares no signature; its annotation is its type
    if len(problems.found) == before:
        wrapper = _wrapper(call.func)
        if wrapper is not None and not (wrapper.rule or "").startswith("dispatch"):
            _bind_wrapper(call, wrapper, problems)
        else:
            _check_signature(call, table, problems)
    if len(problems.found) > before:
        return None     # a wrong signature: the operands are not what the type rule reads
    table.signatures.add(signature)
    return _check_operands(call, types, split, table, problems)


def _wrapper(func: str):
    """The DSL wrapper PyPTO's reader calls for ``func`` (ops.txt), or None.  (A wrapper
    that dispatches to several stored forms, ``tensor.scatter``, is not bound: the printed
    call is one form's stored call, its arguments are not the wrapper's.)"""
    from tilemem.frontend.dsl.wrappers import wrapper_table
    ns, _, name = (func[3:] if func.startswith("pl.") else func).rpartition(".")
    return wrapper_table().get(ns, name)


_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")


def _bind_wrapper(call: ir.Call, wrapper, problems: Problems) -> None:
    """The call bound to its DSL wrapper's signature as PyPTO's reader binds it (Python's
    binding and messages: a missing or extra argument, an unknown keyword); every printed
    call of the corpora binds (``attrs=`` aside: the parser reads it, no wrapper)."""
    from tilemem.frontend.dsl.binding import bind
    from tilemem.frontend.dsl.values import DslError
    try:
        bind(wrapper, list(call.args), [(k, v) for k, v in call.kwargs if k != "attrs"], wrapper.name)
    except DslError as e:
        if "got multiple values for argument" in e.message:
            return      # a stored keyword that is also a wrapper parameter: the printed form, not an error
        m = _UNEXPECTED.search(e.message)
        if m is None:
            problems.add_at(call, f"{call.func}: {e.message}")
            return
        key = m.group(1)
        near = get_close_matches(key, [p.name for p in wrapper.params], n=1, cutoff=0.6)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        problems.add(*_keyword_at(key, call.kwarg(key)), f"{call.func}: {e.message}{hint}")


def _check_signature(call: ir.Call, table: "_Table", problems: Problems) -> None:
    """An op no DSL wrapper reads: at most the positional arguments the registry declares,
    and only the keywords it declares (when it declares any)."""
    declared_args = table.arg_names.get(call.op, ())
    if len(call.args) > len(declared_args):
        names = f" ({', '.join(declared_args)})" if declared_args else ""
        problems.add_at(call.args[len(declared_args)], f"{call.func} takes at most {len(declared_args)} "
                                                       f"positional argument(s){names}, got {len(call.args)}")
    takes = table.keywords.get(call.op)
    if takes:
        for key, value in call.kwargs:
            if key != "attrs" and key not in takes:
                near = get_close_matches(key, sorted(takes), n=1, cutoff=0.6)
                hint = f" (did you mean '{near[0]}'?)" if near else ""
                problems.add(*_keyword_at(key, value), f"{call.func} got an unexpected keyword argument '{key}'{hint}")


def _keyword_at(key: str, value: ir.Expr) -> tuple:
    """The position of ``key`` in ``key=value`` (the printer writes no spaces around ``=``)."""
    if value.line is not None and value.col is not None and value.col > len(key) + 1:
        return value.line, value.col - len(key) - 1
    return value.line, value.col


def _type_of(types: dict):
    def type_of(e):
        if type(e) is ir.Name:
            return types.get(e.id)
        return None
    return type_of


def _describe(call: ir.Call, types: dict) -> str:
    """The operands as the rules saw them (``x_tile [16, 64] BF16 Vec``): what a what-if
    edit changed, next to what the op needs."""
    from tilemem.ir.printer import print_expr
    shown = []
    for a in call.args:
        t = types.get(a.id) if type(a) is ir.Name else None
        if isinstance(t, (ir.TileType, ir.TensorType)):
            dims = ", ".join(print_expr(d) for d in t.shape)
            space = f" {t.space}" if isinstance(t, ir.TileType) and t.space else ""
            shown.append(f"{a.id} [{dims}] {t.dtype}{space}")
    return f" (operands: {'; '.join(shown)})" if shown else ""


def _check_operands(call: ir.Call, types: dict, split, table: _Table, problems: Problems):
    op = call.op
    result = None
    # a call another passed before up to the names its key renames, with the same types
    # of the names it holds, passes (what it reads is in the key: typerules.call_key)
    derived = op.startswith("tile.")
    try:
        keyed = typerules.call_key(call, types.get, scope_split=split, memo=table.derived, nested=derived)
        _, key, renamed = keyed
        if key is not None:
            key, got = typerules.kept(table.passed, key)
            if got is not typerules.MISSING:
                return got
        if derived:
            result = typerules.derive_call_type(call, types.get, scope_split=split, memo=table.derived,
                                                keyed=keyed)
    except typerules.DeductionError as e:
        if _retargeted(call, types, split, table):
            return None
        problems.add_at(call, f"{call.func}: {e}{_describe(call, types)}")
        return None
    from tilemem.frontend.dsl.operand_rules import dtype_rules, range_rules
    from tilemem.frontend.dsl.values import DslError
    type_of = _type_of(types)
    try:
        for rule in dtype_rules().get(op, ()):
            rule.check(call, result, type_of)
        for rule in range_rules().get(op, ()):
            rule.check(call, type_of)
    except DslError as e:
        problems.add_at(call, f"{call.func}: {e.message}")
        return None
    if key is not None and (not renamed or not typerules.holds_names(result, renamed)):
        table.passed[key] = result
    return result


def _retargeted(call: ir.Call, types: dict, split, table: _Table) -> bool:
    """Whether the call's deducer accepts it in another space of its retargetable kwarg:
    the pass rewrites a load's or create's ``target_memory`` without deducing again (a
    transposed Mat create becomes Vec), so a program printed after it may hold a call the
    deducer refuses as printed; the text does not say which space it was built in."""
    kwarg = table.retargetable.get(call.op)
    if kwarg is None:
        return False
    from tilemem.ir.views import SPACES
    for space in SPACES:
        try:
            typerules.derive_call_type(call.with_kwarg(kwarg, ir.Dotted(("pl", "Mem", space))), types.get,
                                       scope_split=split)
        except typerules.DeductionError:
            continue
        return True
    return False


def _check_annotation(s: ir.Assign, inferred, types: dict, table: _Table, problems: Problems) -> None:
    """The annotation against the type the op's rule deduced (kind, dtype, rank, constant
    extents: what PyPTO's reader compares, the DSL's checked_annotation)."""
    if s.type.__class__ is not ir.TileType:
        return
    call = s.value
    # what the comparison reads: the two types and whether the op is a region op (the
    # callee decides); the names only word a mismatch
    memo = table.derived
    key = (memo.number(s.type), memo.number(inferred), call.func)
    try:
        if key in table.annotations:
            return
    except TypeError:               # a type holding a list: no key
        key = None
    from tilemem.frontend.dsl.wrappers import wrapper_table
    from tilemem.frontend.dsl.types import checked_annotation
    from tilemem.frontend.dsl.values import DslError
    try:
        checked_annotation(s.type, inferred, s.targets[0], s, call.func in wrapper_table().region_ops)
    except DslError as e:
        where = s.type if s.type.line is not None else s
        problems.add_at(where, f"{e.message}{_describe(call, types)}")
        return
    if key is not None:
        table.annotations.add(key)
