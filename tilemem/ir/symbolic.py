"""Symbolic integer arithmetic of the type rules: shapes, valid shapes and offsets as
ir expressions (spec: typerules.md §2).

Integer expressions are ir exprs.  While computing, integer leaves are plain IntConst;
``finalize_expr`` turns a result into printed form (top-level constant -> IntConst,
integer leaves of composite exprs -> ``pl.const(v, pl.INDEX)``).  Variables are unbounded
(PyPTO's deducers use a fresh analyzer without bindings).  This is a small simplifier,
not PyPTO's arith analyzer (see the known gaps in :mod:`tilemem.ir.typerules`).
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.ir.views import const_value, exprs_equal, index_const

__all__ = ["int_const", "finalize_dims", "s_add", "s_sub", "s_mul", "s_floordiv", "s_ceildiv", "s_min", "s_max", "prove_le",
           "prove_eq", "prove_zero", "finalize_expr", "resimplify"]


_INF = float("inf")


def int_const(v: int) -> ir.IntConst:
    """A plain integer leaf."""
    return ir.IntConst(int(v))


def _is_call(e, name) -> bool:
    return isinstance(e, ir.Call) and e.func == name and len(e.args) == 2 and not e.kwargs


def s_add(a, b):
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return int_const(ca + cb)
    if ca is not None:                       # constant on the right
        a, b, ca, cb = b, a, cb, ca
    if cb == 0:
        return a
    if cb is not None and isinstance(a, ir.BinOp) and a.op in "+-" and const_value(a.right) is not None:
        k = const_value(a.right) if a.op == "+" else -const_value(a.right)
        return s_add(a.left, int_const(k + cb))
    if cb is not None and cb < 0:
        return ir.BinOp("-", a, int_const(-cb))
    return ir.BinOp("+", a, b)


def s_sub(a, b):
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return int_const(ca - cb)
    if cb == 0:
        return a
    if exprs_equal(a, b):
        return int_const(0)
    # max(x, b) - b -> max(x - b, 0);  max(b, y) - b -> max(y - b, 0); the same for min
    for name, fold in (("pl.max", s_max), ("pl.min", s_min)):
        if _is_call(a, name):
            x, y = a.args
            if exprs_equal(y, b):
                return fold(s_sub(x, b), int_const(0))
            if exprs_equal(x, b):
                return fold(s_sub(y, b), int_const(0))
    # c - (x + d) -> (c - d) - x ; c - (x - d) -> (c + d) - x  (constants gathered on the left,
    # as PyPTO's simplifier prints them: 64 - (i * 64 + 8) is 56 - i * 64)
    if ca is not None and isinstance(b, ir.BinOp) and b.op in "+-" and const_value(b.right) is not None:
        k = ca - const_value(b.right) if b.op == "+" else ca + const_value(b.right)
        if k != 0:
            return ir.BinOp("-", int_const(k), b.left)
    # (x + y) - y -> x ; (x + y) - x -> y
    if isinstance(a, ir.BinOp) and a.op == "+":
        if exprs_equal(a.right, b):
            return a.left
        if exprs_equal(a.left, b):
            return a.right
    if cb is not None:
        return s_add(a, int_const(-cb))
    return ir.BinOp("-", a, b)


def s_mul(a, b):
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return int_const(ca * cb)
    if ca is not None:
        a, b, ca, cb = b, a, cb, ca
    if cb == 1:
        return a
    if cb == 0:
        return int_const(0)
    return ir.BinOp("*", a, b)


def s_floordiv(a, b):
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None and cb != 0:
        return int_const(ca // cb)
    if cb == 1:
        return a
    return ir.BinOp("//", a, b)


def s_ceildiv(a, k: int):
    ca = const_value(a)
    if ca is not None:
        return int_const(-(-ca // k))
    return s_floordiv(s_add(a, int_const(k - 1)), int_const(k))


def _extreme(a, b, fold, name: str, a_wins):
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return int_const(fold(ca, cb))
    if a_wins(a, b):
        return a
    if a_wins(b, a):
        return b
    # min(c1, min(x, c2)) -> min(x, min(c1, c2)): the analyzer gathers the constants of a
    # nested extreme into one, on the right (arith rewrite of Min / Max)
    for c, other in ((ca, b), (cb, a)):
        if c is not None and _is_call(other, name):
            x, d = other.args
            cd = const_value(d)
            if cd is not None and const_value(x) is None:
                return ir.Call(name, (x, int_const(fold(c, cd))))
    return ir.Call(name, (a, b))


def resimplify(e):
    """``e`` rebuilt through the folding constructors: ``x * 1``, ``x + 0``, constant
    subterms fold as the analyzer folds them before a type records them."""
    t = type(e)
    if t is ir.BinOp and e.op in ("+", "-", "*", "//"):
        a, b = resimplify(e.left), resimplify(e.right)
        return {"+": s_add, "-": s_sub, "*": s_mul, "//": s_floordiv}[e.op](a, b)
    return e


def s_min(a, b):
    return _extreme(a, b, min, "pl.min", prove_le)


def s_max(a, b):
    return _extreme(a, b, max, "pl.max", lambda x, y: prove_le(y, x))


def _key(e) -> str:
    return repr(finalize_expr(e))


def _linear(e, coef: int = 1, acc: Optional[dict] = None):
    """Decompose into sum(coef * atom) + const.  Returns (atoms: key -> [coef, expr], const)."""
    if acc is None:
        acc = {}
    c = const_value(e)
    if c is not None:
        return acc, coef * c
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        acc, k1 = _linear(e.left, coef, acc)
        acc, k2 = _linear(e.right, coef if e.op == "+" else -coef, acc)
        return acc, k1 + k2
    if isinstance(e, ir.BinOp) and e.op == "*":
        cl, cr = const_value(e.left), const_value(e.right)
        if cr is not None:
            return _linear(e.left, coef * cr, acc)
        if cl is not None:
            return _linear(e.right, coef * cl, acc)
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        return _linear(e.operand, -coef, acc)
    k = _key(e)
    if k in acc:
        acc[k][0] += coef
    else:
        acc[k] = [coef, e]
    return acc, 0


def _bounds(e):
    """Constant interval [lo, hi] of an integer expr.  A bare var is an INDEX var (a
    scalar of another dtype reaches index arithmetic only through ``pl.cast``, a call:
    unbounded), and PyPTO's analyzer bounds an INDEX var by [0, +inf)
    (src/ir/arith/const_int_bound.cpp, DefaultBoundFromDtype)."""
    c = const_value(e)
    if c is not None:
        return (c, c)
    if isinstance(e, ir.Name):
        return (0, _INF)
    if isinstance(e, ir.BinOp):
        l, r = _bounds(e.left), _bounds(e.right)
        if e.op == "+":
            return (l[0] + r[0], l[1] + r[1])
        if e.op == "-":
            return (l[0] - r[1], l[1] - r[0])
        if e.op == "*":
            try:
                cands = [x * y for x in l for y in r
                         if not ((x in (_INF, -_INF) and y == 0) or (y in (_INF, -_INF) and x == 0))]
            except OverflowError:       # an integer past a float's range against an infinite bound
                return (-_INF, _INF)
            return (min(cands), max(cands)) if cands else (-_INF, _INF)
        if e.op == "//":
            k = const_value(e.right)
            if k is not None and k > 0:
                f = lambda x: x if x in (_INF, -_INF) else x // k
                return (f(l[0]), f(l[1]))
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        lo, hi = _bounds(e.operand)
        return (-hi, -lo)
    if _is_call(e, "pl.min"):
        a, b = _bounds(e.args[0]), _bounds(e.args[1])
        return (min(a[0], b[0]), min(a[1], b[1]))
    if _is_call(e, "pl.max"):
        a, b = _bounds(e.args[0]), _bounds(e.args[1])
        return (max(a[0], b[0]), max(a[1], b[1]))
    return (-_INF, _INF)


def _diff_bounds(a, b):
    """Interval of a - b, cancelling common atoms first."""
    la, ka = _linear(a)
    lb, kb = _linear(b)
    terms = {k: [v[0], v[1]] for k, v in la.items()}
    for k, (cf, ex) in lb.items():
        if k in terms:
            terms[k][0] -= cf
        else:
            terms[k] = [-cf, ex]
    lo = hi = ka - kb
    for cf, ex in terms.values():
        if cf == 0:
            continue
        blo, bhi = _bounds(ex)
        if cf > 0:
            lo, hi = lo + cf * blo, hi + cf * bhi
        else:
            lo, hi = lo + cf * bhi, hi + cf * blo
    return lo, hi


def prove_le(a, b) -> bool:
    """Can the analyzer prove ``a <= b``?"""
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return ca <= cb
    if exprs_equal(a, b):
        return True
    if _bounds(a)[1] <= _bounds(b)[0]:
        return True
    # min(x, y) <= b if x <= b or y <= b ; a <= max(x, y) if a <= x or a <= y
    if _is_call(a, "pl.min") and (prove_le(a.args[0], b) or prove_le(a.args[1], b)):
        return True
    if _is_call(b, "pl.max") and (prove_le(a, b.args[0]) or prove_le(a, b.args[1])):
        return True
    if _is_call(a, "pl.max") and prove_le(a.args[0], b) and prove_le(a.args[1], b):
        return True
    if _is_call(b, "pl.min") and prove_le(a, b.args[0]) and prove_le(a, b.args[1]):
        return True
    return _diff_bounds(a, b)[1] <= 0


def prove_eq(a, b) -> bool:
    return exprs_equal(a, b) or (prove_le(a, b) and prove_le(b, a))


def prove_zero(e) -> bool:
    return const_value(e) == 0


def finalize_expr(e):
    """Printed form: a constant -> IntConst; in a composite expr every IntConst leaf becomes
    ``pl.const(v, pl.INDEX)`` (printer.md §3 dims)."""
    if e.__class__ is ir.IntConst and e.value.__class__ is int:
        return e                    # already in printed form (nodes are immutable: shared)
    c = const_value(e)
    if c is not None:
        return int_const(c)
    return _leafify(e)


def _leafify(e):
    if isinstance(e, ir.IntConst):
        return index_const(e.value)
    if isinstance(e, ir.BinOp):
        return ir.BinOp(e.op, _leafify(e.left), _leafify(e.right))
    if isinstance(e, ir.UnaryOp):
        return ir.UnaryOp(e.op, _leafify(e.operand))
    if isinstance(e, ir.Call) and e.func in ("pl.min", "pl.max"):
        return ir.Call(e.func, tuple(_leafify(a) for a in e.args), e.kwargs)
    return e


def finalize_dims(dims) -> tuple:
    """``finalize_expr`` of each dim, as a tuple (``dims`` itself when it is a tuple that
    is already in printed form)."""
    out = tuple([finalize_expr(d) for d in dims])
    if dims.__class__ is tuple and all(a is b for a, b in zip(out, dims)):
        return dims
    return out
