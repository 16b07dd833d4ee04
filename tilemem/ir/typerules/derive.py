"""The entry points: a call's re-derived LHS type (its rule, then the registry's stamp
and the final canonicalisation), the memo of one solve, a retargeted producer's type."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
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
                     memo: Optional["CallTypes"] = None, keyed: Optional[tuple] = None) -> Optional[ir.Type]:
    """``derive_result_type`` for an ``ir.Call``: Name args are typed by ``type_of(name)``,
    a nested call by its own deduced type (the printed text gives it no annotation).

    ``memo``: the types derived so far (one solve's :class:`CallTypes`): a call that is
    another's up to the names of its var arguments, with the same argument types (and
    ``lhs_space``, ``lhs_memref``, ``scope_split``), has its type.  ``keyed``: what
    :func:`call_key` gave for these arguments, when the caller asked it first."""
    op = call.op
    if op is None:
        return None
    if keyed is None:
        # (the types of the names inside the arguments are no input of the derivation:
        # the key leaves them out)
        keyed = call_key(call, type_of, lhs_space, lhs_memref, scope_split, memo, typed_names=False)
    types, key, renamed = keyed
    if key is not None:
        key, out = kept(memo.results, key)
        if out is not MISSING:
            return out
    out = derive_result_type(op, [ArgInfo(a, t) for a, t in zip(call.args, types)], dict(call.kwargs),
                             lhs_space=lhs_space, lhs_memref=lhs_memref, scope_split=scope_split)
    if key is not None and (not renamed or not holds_names(out, renamed)):
        memo.results[key] = out
    return out


#: what :func:`kept` gives for a key a memo does not hold
MISSING = object()


def kept(table: dict, key) -> tuple:
    """(``key``, what ``table`` keeps under it or :data:`MISSING`); the key None when it
    cannot be hashed (a node holding a list: then nothing is kept under it either)."""
    try:
        return key, table.get(key, MISSING)
    except TypeError:
        return None, MISSING


def call_key(call: ir.Call, type_of: Callable[[str], Optional[ir.Type]], lhs_space=None, lhs_memref=None,
             scope_split: Optional[ir.Expr] = None, memo: Optional["CallTypes"] = None,
             nested: bool = True, typed_names: bool = True) -> tuple:
    """(the types :func:`derive_call_type` gives the call's arguments, the call's key in
    ``memo`` or None, the names the key renames): a caller that keeps more of a call by
    the same key (what else it checked of it) asks this first, and hands it on as
    ``keyed``.  The key may hold a node holding a list (unhashable: no key then).
    ``nested`` False: a nested call argument is not derived (typed None; the key holds
    the call as written), for a call that is not derived.  ``typed_names`` False: the
    key leaves out the types of the names the arguments hold (a derivation reads the
    types of the arguments only; a check of the operands reads theirs too).  A key
    without them is one with them only when no name is held, where both say the same."""
    types = []
    for a in call.args:
        if a.__class__ is ir.Name:
            types.append(type_of(a.id))
        elif nested and a.__class__ is ir.Call and a.op is not None:
            types.append(derive_call_type(a, type_of, memo=memo))
        else:
            types.append(None)
    if memo is None or call.op is None:
        return types, None, None
    key, renamed = memo.key(call.op, call, types, lhs_space, lhs_memref, scope_split,
                            type_of if typed_names else None)
    return types, key, renamed


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
            tokens: list = []
            names: Optional[set] = set()
            if _type_tokens(t, tokens, names):
                # (as plain values: one walk gives the key and the names, no node hashed)
                got = self._seen[id(t)] = (t, names, self._types.setdefault(tuple(tokens), len(self._types)))
                return got
            names = set()
            if not _type_names(t, names):
                names = None
            try:
                number = self._types.setdefault(t, len(self._types))
            except TypeError:       # a node holding a list: itself (no key is made)
                number = t
            got = self._seen[id(t)] = (t, names, number)
        return got

    def forget_objects(self) -> None:
        """Forget the type objects met so far (kept by identity, and so alive): what was
        derived, by keys of plain values and numbers, stays (a memo kept from one program
        to the next)."""
        self._seen = {}

    def size(self) -> int:
        """How many derivations and distinct types this memo holds."""
        return len(self.results) + len(self._types)

    def number(self, t):
        """The number that stands for type ``t`` in this memo's keys (the same for equal
        types; a type holding a list: itself)."""
        return (self._seen.get(id(t)) or self._type(t))[2]

    def key(self, op: str, call: ir.Call, types: list, lhs_space, lhs_memref, scope_split, type_of=None):
        """(the key of this derivation or None when it has none, the names renamed in it).
        ``type_of``: the key also holds the type of every name the call's arguments hold
        (what a check of its operands reads besides the derivation: an offset's dtype)."""
        numbers = []
        others: Optional[set] = set()
        seen = self._seen
        for t in types:
            if t is None:
                numbers.append(None)
                continue
            _, names, number = seen.get(id(t)) or self._type(t)
            numbers.append(number)
            if names is None:
                others = None
            elif others is not None and names:
                others |= names
        # the arguments as plain values (hashed and compared at C speed), the names at
        # the places the rules read as atoms (_tokens) marked in ``spots``; then the
        # keyword arguments (``attrs`` aside), their names as written
        tokens: list = []
        spots: list = []
        literal: set = set()
        named: Optional[list] = [] if type_of is not None else None
        kw_keys = []
        stack = []
        for k, v in reversed(call.kwargs):
            if k != "attrs":
                kw_keys.append(k)
                stack.append(v)
        stack.append(_KEYWORDS)
        stack.extend(reversed(call.args))
        if not _tokens(stack, 0, tokens, spots, literal, named):
            others = None
        if named:
            for name in named:
                t = type_of(name)
                numbers.append(None if t is None else (seen.get(id(t)) or self._type(t))[2])
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
        return (op, tuple(tokens), tuple(kw_keys), tuple(numbers), lhs_space, lhs_memref, scope_split), renamed


_Name, _IntConst, _Dotted = ir.Name, ir.IntConst, ir.Dotted
_ListExpr, _TupleExpr, _BinOp, _UnaryOp = ir.ListExpr, ir.TupleExpr, ir.BinOp, ir.UnaryOp

_RENAMED = tuple(("$", n) for n in range(64))


def _renamed(n: int) -> tuple:
    """The token of the ``n``-th renamed name of a key."""
    return _RENAMED[n] if n < 64 else ("$", n)


_Call, _Subscript, _FloatConst, _StrConst, _BoolConst, _NoneConst = (
    ir.Call, ir.Subscript, ir.FloatConst, ir.StrConst, ir.BoolConst, ir.NoneConst)
_END = object()         # (on _tokens' stack: the end of a nested call's nodes)
_KEYWORDS = object()    # (on _tokens' stack: where a call's keyword arguments start)


def _arg_tokens(e, out: list, spots, literal: set, named: Optional[list] = None) -> bool:
    """:func:`_tokens` of one expression (``spots`` None: its names as written)."""
    return _tokens([e], 0 if spots is not None else 1, out, spots, literal, named)


def _tokens(stack: list, nested: int, out: list, spots, literal: set, named: Optional[list] = None) -> bool:
    """Append expressions to ``out`` as tokens of plain values, in pre-order: an int constant
    as its value, a name as its text, any other node as its class and its plain fields
    (a list's length, an operator's text, a call's callee, argument count and keywords,
    a dotted name's parts, a literal's value) before its children; a dict or a long list
    held as arrays as the node itself.  The tokens of two expressions are equal exactly
    when the expressions are (positions aside): each token's kind says which node it
    stands for.  A name the rules read as an atom -- an argument, an item of a shape or
    an offset list, an operand of index arithmetic, not inside a nested call -- has its
    place added to ``spots`` (the key may rename it; ``spots`` None: none); inside a call
    or a subscript names are kept as written, and every other
    text that may name something goes to ``literal``, every name to ``named`` when
    given.  False when they hold text not read (Opaque).  The expressions are those of
    ``stack``, last first; ``nested``: how many calls the first is inside (>0: names as
    written); after a ``_KEYWORDS`` on the stack, every name is as written."""
    while stack:
        x = stack.pop()
        c = x.__class__
        if c is _Name:
            if named is not None:
                named.append(x.id)
            if nested:
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
        elif c is _BinOp or c is _UnaryOp:
            out.append(c)
            out.append(x.op)
            if c is _BinOp:
                stack.append(x.right)
                stack.append(x.left)
            else:
                stack.append(x.operand)
        elif c is _Dotted:
            out.append(c)
            out.append(x.parts)
            literal.update(x.parts)
        elif c is _Call:
            out.append(c)
            out.append(x.func)
            out.append(len(x.args))
            out.append(tuple([k for k, _ in x.kwargs]))
            nested += 1
            stack.append(_END)
            stack.extend([v for _, v in reversed(x.kwargs)])
            stack.extend(reversed(x.args))
        elif x is _END:
            nested -= 1
        elif x is _KEYWORDS:
            nested += 1
        elif c is _Subscript:
            out.append(c)
            out.append(len(x.index))
            nested += 1
            stack.append(_END)
            stack.extend(reversed(x.index))
            stack.append(x.value)
        elif c is _FloatConst:
            out.append(c)
            out.append(x.text)
            literal.add(x.text)
        elif c is _StrConst:
            out.append(c)
            out.append(x.value)
            out.append(x.quote)
            literal.add(x.value)
        elif c is _BoolConst or c is _NoneConst:
            out.append(c)
            out.append(x.value if c is _BoolConst else None)
        else:
            if not _expr_names(x, literal):
                return False
            if named is not None and (c is _ListExpr or c is _TupleExpr) and x.items.__class__ is ir.NameItems:
                named.extend(x.items.texts())
            out.append(x)
    return True


_NO_NAMES = frozenset()
_TileType, _TensorType, _ScalarType, _TupleType = ir.TileType, ir.TensorType, ir.ScalarType, ir.TupleType


def _type_tokens(t, out: list, names: set) -> bool:
    """Append a tile, tensor, scalar or tuple type to ``out`` as plain values (its class,
    its plain fields, its expressions by :func:`_arg_tokens`; equal exactly when the
    types are) and every text in it that may name something to ``names``; False for
    any other type, or a type holding text not read (Opaque)."""
    c = t.__class__
    out.append(c)
    if c is _TileType or c is _TensorType:
        if t.shape.__class__ is not tuple:
            return False
        out.append(t.dtype)
        out.append(t.space if c is _TileType else t.kind)
        out.append(len(t.shape))
        for d in t.shape:
            if not _arg_tokens(d, out, None, names):
                return False
        for e in (t.memref, t.view if c is _TensorType else None):
            if e is None:
                out.append(None)
            elif not _arg_tokens(e, out, None, names):
                return False
        v = t.view if c is _TileType else None
        if v is None:
            out.append(None)
            return True
        out.append(ir.TileView)
        out.append((v.blayout, v.slayout, v.fractal, v.pad, v.compact))
        for dims in (v.valid_shape, v.stride):
            if dims is None:
                out.append(None)
                continue
            if dims.__class__ is not tuple:
                return False
            out.append(len(dims))
            for d in dims:
                if not _arg_tokens(d, out, None, names):
                    return False
        if v.start_offset is None:
            out.append(None)
            return True
        return _arg_tokens(v.start_offset, out, None, names)
    if c is _ScalarType:
        out.append(t.dtype)
        return True
    if c is _TupleType:
        if t.items.__class__ is not tuple:
            return False
        out.append(len(t.items))
        return all(_type_tokens(x, out, names) for x in t.items)
    return False


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


def holds_names(t, names) -> bool:
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
