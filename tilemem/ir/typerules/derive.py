"""The entry points: a call's re-derived LHS type (its rule, then the registry's stamp
and the final canonicalisation), the memo of one solve, a retargeted producer's type."""
from __future__ import annotations

from typing import Callable, Mapping, Optional, Sequence

from tilemem import ir
from tilemem.ir.optable import output_rule
from tilemem.ir.symbolic import finalize_dims as _fin, finalize_expr
from tilemem.ir.typerules.common import (
    ArgInfo, _RULES, _Res, _Unknown, _first_space, _wrap, normalize_op,
)
from tilemem.ir.views import (
    DeductionError, EffectiveView, build_result_type, implicit_type, norm_space,
)
from tilemem.records import replace


# ============================================================================ main entry


def derive_result_type(op: str, args: Sequence, kwargs: Optional[Mapping[str, ir.Expr]] = None,
                       lhs_space=None, lhs_memref=None, backend_layout=None,
                       scope_split: Optional[ir.Expr] = None) -> Optional[ir.Type]:
    """Re-derive the LHS annotation of ``lhs = op(*args, **kwargs)`` (typerules.md §1 steps 1-4).

    ``op``: registered name (``tile.add``; ``pl.tile.add`` / ``pl.tile.and_`` accepted).
    ``args``: positional args as ``ArgInfo`` (or TileType / Type / Expr, auto-wrapped).
    ``kwargs``: keyword args as written (ir exprs), ``attrs`` ignored.  For tile.move the
    layout kwargs the pass chose (the rules' ``move_blayout``/``move_slayout``) must be
    included.  ``scope_split``: the mode of the enclosing ``pl.split_aiv`` scope, if any
    (inside it the printer leaves out the shard ops' ``split=``; their rule reads it).
    ``lhs_space``: the LHS Var's resolved space (the final canonicalisation is against it;
    None = keep the call's space).  ``lhs_memref``: the LHS's memref, used when the deduced
    type has none.  ``backend_layout`` is accepted for API symmetry and ignored (layout
    kwargs arrive on the move call itself).

    Returns an ``ir.TileType`` (``ir.TupleType`` for gather_compare), or None when the op's
    result is not a tile (store, read, tpop, ...) or cannot be derived (unknown op, missing
    argument types).  Raises ``DeductionError`` where PyPTO's deducer throws.
    """
    op = normalize_op(op)
    args = [_wrap(a) for a in args]
    kwargs = {k: v for k, v in (kwargs or {}).items() if k != "attrs"}
    if scope_split is not None and kwargs.get("split") is None:
        kwargs["split"] = scope_split          # read by the rules of the ops that take split=
    if not op.startswith("tile."):
        return None
    fn = _RULES.get(op[5:])
    if fn is None:
        return None
    try:
        res = fn(op, args, kwargs)
    except _Unknown:
        return None
    except DeductionError:
        raise
    except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
        # malformed / unmodelled arguments: the caller keeps the written type
        return None
    if res is None:
        return None
    if isinstance(res, ir.TupleType):
        return res
    return _finish(op, args, kwargs, res, lhs_space, lhs_memref)


def _stamp(op, args, kwargs) -> Optional[str]:
    """The space the registry stamps on the call's result: the op table's output rule, in
    the order the phase-1 rules define (rules/p1_resolve.dl, ``space_written``: a fixed
    space, else the space kwarg, else the op's default, else the first argument's space);
    tests/test_output_rule.py holds this to the rules for every op of the table."""
    rule = output_rule(op)
    if rule[0] == "fixed":
        return rule[1]
    if rule[0] == "kwarg":
        v = kwargs.get(rule[1])
        if v is not None and not isinstance(v, ir.NoneConst):
            return norm_space(v)
        if rule[2] is not None:
            return rule[2]
        return _first_space(args)
    if rule[0] == "inherit":
        return _first_space(args)
    return None


def _finish(op, args, kwargs, r: _Res, lhs_space, lhs_memref) -> ir.TileType:
    stamp = _stamp(op, args, kwargs) if r.stamp == "<registry>" else r.stamp
    return build_result_type(_fin(r.shape), r.dtype, _fin_view(r.view), deducer_space=r.space,
                             stamped_space=stamp, lhs_space=lhs_space, memref=r.memref,
                             lhs_memref=lhs_memref)


def _fin_view(v: Optional[EffectiveView]) -> Optional[EffectiveView]:
    if v is None:
        return None
    valid, stride = _fin(v.valid_shape), _fin(v.stride)
    offset = finalize_expr(v.start_offset) if v.start_offset is not None else None
    if valid is v.valid_shape and stride is v.stride and offset is v.start_offset:
        return v                    # already in printed form
    return replace(v, valid_shape=valid, stride=stride, start_offset=offset)


def derive_call_type(call: ir.Call, type_of: Callable[[str], Optional[ir.Type]], lhs_space=None,
                     lhs_memref=None, scope_split: Optional[ir.Expr] = None,
                     memo: Optional["CallTypes"] = None) -> Optional[ir.Type]:
    """``derive_result_type`` for an ``ir.Call``: Name args are typed by ``type_of(name)``,
    a nested call by its own deduced type (the printed text gives it no annotation).

    ``memo``: the types derived so far (one solve's :class:`CallTypes`): a call that is
    another's up to the names of its var arguments, with the same argument types (and
    ``lhs_space``, ``lhs_memref``, ``scope_split``), has its type."""
    op = call.op
    if op is None:
        return None
    types = []
    for a in call.args:
        if isinstance(a, ir.Name):
            types.append(type_of(a.id))
        elif isinstance(a, ir.Call) and a.op is not None:
            types.append(derive_call_type(a, type_of, memo=memo))
        else:
            types.append(None)
    key = None
    if memo is not None:
        key, renamed = memo.key(op, call, types, lhs_space, lhs_memref, scope_split)
        try:
            out = memo.results.get(key, memo)
        except TypeError:           # a node holding a list: no key
            key = None
        else:
            if out is not memo:
                return out
    out = derive_result_type(op, [ArgInfo(a, t) for a, t in zip(call.args, types)], dict(call.kwargs),
                             lhs_space=lhs_space, lhs_memref=lhs_memref, scope_split=scope_split)
    if key is not None and (not renamed or not _names_in(out, renamed)):
        memo.results[key] = out
    return out


class CallTypes:
    """The call types :func:`derive_call_type` derived in one solve, by what decides them.

    A call's derived type is a function of its op, its arguments as written and their
    types, its keyword arguments (``attrs`` aside: no rule reads them), ``lhs_space``,
    ``lhs_memref`` and ``scope_split``; nodes compare by value (their positions aside).
    The rules read a var argument's name only as an atom (they compare it with other
    expressions, or copy it into the result; its text decides nothing), so two calls
    that differ only in the names of such arguments -- ``tile.add(a, b)``,
    ``tile.add(c, d)`` with equal types -- have the same result up to those names.  The
    key writes a top-level Name argument as its place among the distinct names so
    written (renamed) when its name appears nowhere else in what the derivation reads
    (other arguments, keyword arguments, the arguments' types, the LHS memref, the
    split mode), and a result is kept only when no renamed name appears in it (then it
    is the result of every call of the same key).  A derivation that throws is not kept
    (it throws again, with its own names)."""
    __slots__ = ("results", "_seen", "_types")

    def __init__(self):
        self.results: dict = {}
        # id(type) -> (the type, the names in it or None, its number): a type is written
        # in a key as its number, the same for equal types (``_types``: type -> number)
        self._seen: dict = {}
        self._types: dict = {}

    def _type(self, t):
        got = self._seen.get(id(t))
        if got is None:
            plain = _plain_type(t)
            if plain is not None:       # (most: no walk, no node hashed)
                got = self._seen[id(t)] = (t, _NO_NAMES, self._types.setdefault(plain, len(self._types)))
                return got
            names: Optional[set] = set()
            if not _type_names(t, names):
                names = None
            try:
                number = self._types.setdefault(t, len(self._types))
            except TypeError:       # a node holding a list: itself (no key is made)
                number = t
            got = self._seen[id(t)] = (t, names, number)
        return got

    def key(self, op: str, call: ir.Call, types: list, lhs_space, lhs_memref, scope_split):
        """(the key of this derivation or None when it has none, the names renamed in it)."""
        numbers = []
        others: Optional[set] = set()
        for t in types:
            if t is None:
                numbers.append(None)
                continue
            _, names, number = self._type(t)
            numbers.append(number)
            if names is None:
                others = None
            elif others is not None and names:
                others |= names
        # the arguments as plain values (hashed and compared at C speed), the names at
        # the places the rules read as atoms (_arg_tokens) marked in ``spots``
        tokens: list = []
        spots: list = []
        literal: set = set()
        for a in call.args:
            if not _arg_tokens(a, tokens, spots, literal):
                others = None
        kw_tokens: list = []
        for k, v in call.kwargs:
            if k != "attrs":
                kw_tokens.append(k)
                if not _arg_tokens(v, kw_tokens, None, literal):
                    others = None
        for e in (lhs_memref, scope_split):
            if e is not None and others is not None and not _expr_names(e, others):
                others = None
        renamed: dict = {}
        if others is not None and spots:
            others |= literal
            for i in spots:
                name = tokens[i]
                if name not in others:
                    n = renamed.get(name)
                    if n is None:
                        n = renamed[name] = len(renamed)
                    tokens[i] = _renamed(n)
        return (op, tuple(tokens), tuple(kw_tokens), tuple(numbers), lhs_space, lhs_memref, scope_split), renamed


_Name, _IntConst, _Dotted = ir.Name, ir.IntConst, ir.Dotted
_ListExpr, _TupleExpr, _BinOp, _UnaryOp = ir.ListExpr, ir.TupleExpr, ir.BinOp, ir.UnaryOp

_RENAMED = tuple(("$", n) for n in range(64))


def _renamed(n: int) -> tuple:
    """The token of the ``n``-th renamed name of a key."""
    return _RENAMED[n] if n < 64 else ("$", n)


def _arg_tokens(e, out: list, spots, literal: set) -> bool:
    """Append ``e`` to ``out`` as tokens of plain values, in pre-order: an int constant
    as its value, a list, tuple or operator as its class and its length or operator
    text, a name as its text (its place added to ``spots``: a name the rules read as an
    atom -- an argument, an item of a shape or an offset list, an operand of index
    arithmetic -- that the key may rename; ``spots`` None: none), a dotted name as its
    class and parts, anything else (a call, a subscript, a literal) as the node itself.
    The tokens of two expressions are equal exactly when the expressions are (positions
    aside): each token's kind says which node it stands for.  Every text that may name
    something outside the renamable places goes to ``literal``; False when ``e`` holds
    text not read (Opaque)."""
    stack = [e]
    while stack:
        x = stack.pop()
        c = x.__class__
        if c is _Name:
            if spots is None:
                literal.add(x.id)
            else:
                spots.append(len(out))
            out.append(x.id)
        elif c is _IntConst and x.value.__class__ is int:
            out.append(x.value)
        elif (c is _ListExpr or c is _TupleExpr) and x.items.__class__ is tuple:
            out.append(c)
            out.append(len(x.items))
            stack.extend(reversed(x.items))
        elif c is _BinOp:
            out.append(c)
            out.append(x.op)
            stack.append(x.right)
            stack.append(x.left)
        elif c is _UnaryOp:
            out.append(c)
            out.append(x.op)
            stack.append(x.operand)
        elif c is _Dotted:
            out.append(c)
            out.append(x.parts)
            literal.update(x.parts)
        else:
            if not _expr_names(x, literal):
                return False
            out.append(x)
    return True


_NO_NAMES = frozenset()


def _plain_type(t) -> Optional[tuple]:
    """A type of constant extents and nothing else (no view, no memref: what most
    annotations are) as a tuple of plain values, equal for equal types (the key of
    :meth:`CallTypes._type` without hashing its nodes), or None for any other type.
    Such a type names nothing."""
    c = t.__class__
    if c is ir.TileType:
        if t.memref is not None or t.view is not None:
            return None
        head = ("tile", t.dtype, t.space)
    elif c is ir.TensorType:
        if t.memref is not None or t.view is not None:
            return None
        head = ("tensor", t.dtype, t.kind)
    elif c is ir.ScalarType:
        return ("scalar", t.dtype)
    else:
        return None
    dims = []
    for d in t.shape:
        if d.__class__ is not ir.IntConst:
            return None
        dims.append(d.value)
    return head + tuple(dims)


def _expr_names(e, out: set) -> bool:
    """Add every text ``e`` holds that could name something (Name ids, Dotted parts,
    string and float literals) to ``out``; False when ``e`` holds text not read (Opaque)."""
    c = e.__class__
    if c is ir.IntConst:            # (the commonest: without a walk)
        return True
    if c is ir.Name:
        out.add(e.id)
        return True
    if c is ir.Dotted:
        out.update(e.parts)
        return True
    for x in ir.subexpressions(e):
        c = x.__class__
        if c is ir.Name:
            out.add(x.id)
        elif c is ir.IntConst:
            pass
        elif c is ir.Dotted:
            out.update(x.parts)
        elif c is ir.StrConst:
            out.add(x.value)
        elif c is ir.FloatConst:
            out.add(x.text)
        elif c is ir.Opaque:
            return False
    return True


def _type_names(t, out: set) -> bool:
    """:func:`_expr_names` over the expressions of a type (its dims, view, memref)."""
    if isinstance(t, ir.TileType):
        exprs = [*t.shape, t.memref]
        v = t.view
        if v is not None:
            exprs += [*(v.valid_shape or ()), *(v.stride or ()), v.start_offset]
    elif isinstance(t, ir.TensorType):
        exprs = [*t.shape, t.view, t.memref]
    elif isinstance(t, ir.TupleType):
        return all(_type_names(x, out) for x in t.items)
    elif isinstance(t, ir.OpaqueType):
        exprs = [t.expr]
    elif isinstance(t, ir.ScalarType):
        return True
    else:
        return False
    return all(_expr_names(e, out) for e in exprs if e is not None)


def _names_in(t, names) -> bool:
    """Whether a derived type (or None) holds any of ``names`` (or text not read)."""
    if t is None:
        return False
    found: set = set()
    return not _type_names(t, found) or not found.isdisjoint(names)


def retargeted_type(written: ir.TileType, new_space, lhs_space=None) -> ir.TileType:
    """LHS type of a retargetable producer (tile.load / tile.create) whose ``target_memory``
    kwarg the pass sets to ``new_space`` (tileview.md §5): the call result is
    ``TileType(shape, dtype, memref, implicit view of new_space, new_space)`` and the LHS is
    synced to it (any partial valid_shape or layout of the written type is discarded)."""
    sp = norm_space(lhs_space) if lhs_space is not None else norm_space(new_space)
    return implicit_type(written.shape, written.dtype, written.memref, sp)
