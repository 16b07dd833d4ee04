"""Input checks the pass needs before it can run (clear errors, never a crash).

* An InCore function must not take a Tile parameter (PyPTO's precondition).
* Every name an InCore function reads must be bound before it is read, in program
  order (as PyPTO's reader binds names): by a parameter, an earlier statement, a loop
  header, a ``with ... as``, or a program-level ``pl.dynamic``.
  PyPTO prints a use it could not bind with the ``__FREE_VAR`` suffix; such names
  are accepted as free.
* Every integer constant fits in int64 (PyPTO's ConstInt): a printed program never
  shows another, and the DSL reading rejects one where it is written.

Printed IR is checked first by :func:`tilemem.frontend.check.check_printed`, whose walk
also judges each function by these checks (:class:`Verdicts`): check_program does not
walk again a function that walk found to pass.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Iterator

from tilemem import ir
from tilemem.errors import TilememError
from tilemem.ir.nodes import INT64_RANGE, int64_overflow
from tilemem.ir.walk import own_exprs, statements

FREE_SUFFIX = "__FREE_VAR"

_Name, _IntConst, _Dotted, _Call = ir.Name, ir.IntConst, ir.Dotted, ir.Call
_ListExpr, _TupleExpr, _Subscript, _BinOp, _UnaryOp, _DictExpr = (
    ir.ListExpr, ir.TupleExpr, ir.Subscript, ir.BinOp, ir.UnaryOp, ir.DictExpr)
_NameItems, _HELD = ir.NameItems, ir.HELD_ITEMS


def names_in(e) -> Iterator[ir.Name]:
    """Every Name read inside an expression or type (iteratively: inputs can nest deeply)."""
    roots = e.shape if isinstance(e, (ir.TileType, ir.TensorType)) else [e]
    for root in roots:
        for x in ir.subexpressions(root):
            if isinstance(x, ir.Name):
                yield x


def binds(s: ir.Stmt) -> list[str]:
    """The names statement ``s`` binds for the statements after it (a loop header's for
    its body and after)."""
    if isinstance(s, (ir.Assign, ir.Yield)):
        return s.targets
    if isinstance(s, ir.For):
        return ([s.loop_var] if s.loop_var else []) + list(s.iter_args or [])
    if isinstance(s, ir.With) and s.as_name:
        return [s.as_name]
    return []


def unbound_message(function: str, name: str, defined: set) -> str:
    """The words for a read of ``name`` before anything binds it (``defined``: the names
    the function binds somewhere)."""
    # the DSL reading keys a var as ``hint#serial`` until it is named for printing; a
    # read of one never named (bound only by a yield of no values) shows its hint
    name = name.split("#", 1)[0]
    if name in defined:
        return f"InCore function '{function}' reads '{name}' before it is defined"
    return f"InCore function '{function}' reads undefined name '{name}'"


def _too_big(x: ir.IntConst, path: str) -> TilememError:
    return TilememError(path, x.line, x.col, int64_overflow(x.value))


def _check_type_ints(t, path: str) -> None:
    if isinstance(t, ir.TupleType):
        for x in t.items:
            _check_type_ints(x, path)
    elif isinstance(t, (ir.TileType, ir.TensorType)):
        for d in t.shape:
            if type(d) is _IntConst:        # (most dims: no walk)
                if d.value not in INT64_RANGE:
                    raise _too_big(d, path)
                continue
            for x in ir.subexpressions(d):
                if type(x) is _IntConst and x.value not in INT64_RANGE:
                    raise _too_big(x, path)


def _check_exprs(fn: ir.Function, bound, path: str, spaces: "_SpaceCheck" = None) -> None:
    """One walk over what the statements of ``fn`` read: every name is bound (``bound``;
    None: not checked, outside InCore functions) and every integer constant, the types'
    shapes included, fits in int64 -- the symbolic proofs and the engine's integers
    would otherwise meet a value no IR holds.  ``spaces`` (InCore functions): the same
    walk finds the first unknown enum member, reported after the walk (names and
    integers are reported first, wherever they stand)."""
    for p in fn.params:
        _check_type_ints(p.type, path)
    defined_later = None
    unknown = None          # the first unknown member (spaces), in program order
    for s, _ in statements(fn.body):
        if type(s) is ir.Assign:
            _check_type_ints(s.type, path)
        elif type(s) is ir.Yield:
            for t in s.target_types:
                _check_type_ints(t, path)
        if spaces is not None and unknown is None:
            unknown = spaces.statement_types(s)
        # every node of the statement's own expressions, in ir.subexpressions' order
        # (pre-order, left to right), by an inlined walk: the check visits every node of
        # the program
        stack = own_exprs(s)
        stack.reverse()
        while stack:
            x = stack.pop()
            tx = type(x)
            if tx is _Name:
                if bound is not None and x.id not in bound and not x.id.endswith(FREE_SUFFIX):
                    if defined_later is None:
                        defined_later = {n for t, _ in statements(fn.body) for n in binds(t)}
                    # PyPTO's reader binds a name where it is defined, in program order
                    raise TilememError(path, x.line, x.col, unbound_message(fn.name, x.id, defined_later))
            elif tx is _IntConst:
                if x.value not in INT64_RANGE:
                    raise _too_big(x, path)
            elif tx is _Dotted:
                if spaces is not None and unknown is None:
                    unknown = spaces.dotted(x)
            elif tx is _Call:
                stack.extend([v for _, v in reversed(x.kwargs)])
                stack.extend(reversed(x.args))
            elif tx is _ListExpr or tx is _TupleExpr:
                items = x.items
                ti = type(items)
                if ti is _NameItems:
                    # (held items are leaves, visited at once; ints held are int64 and
                    # floats name nothing)
                    stack.extend(reversed(items))
                elif ti not in _HELD:
                    stack.extend(reversed(items))
            elif tx is _Subscript:
                stack.extend(reversed(x.index))
                stack.append(x.value)
            elif tx is _BinOp:
                stack.append(x.right)
                stack.append(x.left)
            elif tx is _UnaryOp:
                stack.append(x.operand)
            elif tx is _DictExpr:
                for k, v in reversed(x.items):
                    stack.append(v)
                    stack.append(k)
        if bound is not None:
            bound.update(binds(s))
    if unknown is not None:
        raise unknown


class _SpaceCheck:
    """Memory spaces, tile layouts, pad values and compact modes named in an InCore
    function must be members PyPTO knows: an unknown one (``pl.Mem.Bogus``,
    ``pl.TileLayout.col_majovr``) would otherwise reach the rewrite, which retypes the
    tile with it.  Each method returns the error of the first unknown member (None: all
    known)."""

    def __init__(self, path: str):
        from tilemem.facts.extract import space_of_expr
        from tilemem.ir.views import COMPACT_MODES, LAYOUTS, PAD_VALUES, SPACES
        self.path = path
        self.space_of_expr = space_of_expr
        self.spaces = SPACES
        self.enums = {"TileLayout": ("tile layout", LAYOUTS), "PadValue": ("pad value", PAD_VALUES),
                      "CompactMode": ("compact mode", COMPACT_MODES)}

    def bad(self, name, line, col, what="memory space", members=None):
        members = self.spaces if members is None else members
        return TilememError(self.path, line, col, f"unknown {what} '{name}' "
                            f"(expected one of {', '.join(members)})")

    def types(self, t):
        if isinstance(t, ir.TileType):
            if t.space is not None and t.space not in self.spaces:
                return self.bad(t.space, t.line, t.col)
            v = t.view
            if v is not None:
                for field, enum in (("blayout", "TileLayout"), ("slayout", "TileLayout"),
                                    ("pad", "PadValue"), ("compact", "CompactMode")):
                    value = getattr(v, field)
                    what, members = self.enums[enum]
                    if value is not None and value not in members:
                        return self.bad(value, t.line, t.col, what, members)
        elif isinstance(t, ir.TupleType):
            for x in t.items:
                err = self.types(x)
                if err is not None:
                    return err
        return None

    def statement_types(self, s):
        """The types a statement writes (an assignment's, a yield's)."""
        if isinstance(s, ir.Assign):
            return self.types(s.type)
        if isinstance(s, ir.Yield):
            for t in s.target_types:
                err = self.types(t)
                if err is not None:
                    return err
        return None

    def dotted(self, d):
        """A dotted reference (``pl.Mem.Vec``, ``pl.TileLayout.row_major``, ...)."""
        sp = self.space_of_expr(d)
        if sp is not None and sp not in self.spaces:
            return self.bad(sp, d.line, d.col)
        if len(d.parts) == 3 and d.parts[1] in self.enums:
            what, members = self.enums[d.parts[1]]
            if d.parts[2] not in members:
                return self.bad(d.parts[2], d.line, d.col, what, members)
        return None


# functions another walk found to pass these checks (:class:`Verdicts`), until
# check_program meets them: id -> (the function, the program's dynamic dims then)
_passed: dict = {}


class Verdicts:
    """Whether :func:`check_program` would pass each function of a program, worked out by
    another walk over its statements (the printed checks' walk, which meets every node
    of every statement's own expressions): the caller starts each function with
    :meth:`function`, hands each statement to :meth:`statement` and each Dotted node of
    its expressions to :meth:`dotted`, and sets ``ok`` False at an IntConst whose value
    is not in ``INT64_RANGE``.  (Unbound names are that walk's own check.)
    :meth:`hand_on` passes the verdicts to the next check_program."""
    __slots__ = ("program", "ok", "fn", "passing", "spaces", "_spaces", "_known")

    def __init__(self, program: ir.Program):
        self.program, self.fn, self.ok, self.passing = program, None, False, []
        self.spaces = None              # the function's _SpaceCheck (InCore functions)
        self._spaces = None             # (made when first needed)
        self._known: dict = {}          # a Dotted's parts -> whether its member is known
        _passed.clear()                 # (a program read before and not solved)

    def function(self, fn: ir.Function) -> None:
        if self.fn is not None and self.ok:
            self.passing.append(self.fn)
        self.fn, self.ok = fn, True
        if fn.is_incore:
            if self._spaces is None:
                self._spaces = _SpaceCheck("")
            self.spaces = self._spaces
            if any(isinstance(p.type, ir.TileType) for p in fn.params):
                self.ok = False
        else:
            self.spaces = None
        try:
            for p in fn.params:
                _check_type_ints(p.type, "")
        except TilememError:
            self.ok = False

    def statement(self, s: ir.Stmt) -> None:
        t = type(s)
        if t is not ir.Assign and t is not ir.Yield:
            return
        try:
            if t is ir.Assign:
                _check_type_ints(s.type, "")
            else:
                for ty in s.target_types:
                    _check_type_ints(ty, "")
        except TilememError:
            self.ok = False
        if self.spaces is not None and self.spaces.statement_types(s) is not None:
            self.ok = False

    def dotted(self, x: ir.Dotted) -> None:
        if self.spaces is None:
            return
        known = self._known.get(x.parts)
        if known is None:
            known = self._known[x.parts] = self.spaces.dotted(x) is None
        if not known:
            self.ok = False

    def hand_on(self) -> None:
        """The next check_program of these functions does not walk those found to pass
        (once: it forgets them); what an earlier call handed on and no check_program met
        was forgotten when these verdicts began."""
        if self.fn is not None and self.ok:
            self.passing.append(self.fn)
        self.fn = None
        dynamic = list(self.program.dynamic)
        for fn in self.passing:
            _passed[id(fn)] = (fn, dynamic)


def check_program(program: ir.Program, path: str = "<input>") -> None:
    dynamic = {name for name, _ in program.dynamic}
    for fn in program.functions:
        got = _passed.pop(id(fn), None) if _passed else None
        if got is not None and got[0] is fn and got[1] == program.dynamic:
            continue        # (its verdict, from the printed checks' walk: it passes)
        if not fn.is_incore:
            _check_exprs(fn, None, path)
            continue
        for p in fn.params:
            if isinstance(p.type, ir.TileType):
                raise TilememError(
                    path, p.line, p.col,
                    f"InCore function parameter '{p.name}' has TileType, but InCore parameters must be "
                    f"TensorType (function '{fn.name}')")   # PyPTO's words (infer_tile_memory_space_pass.cpp:
                                                            # 169-171), and the function's name
        _check_exprs(fn, {p.name for p in fn.params} | dynamic, path, _SpaceCheck(path))
