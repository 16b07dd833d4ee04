"""Declared memrefs, call and function attributes, and the shapes and views written in
annotations."""
from __future__ import annotations

from tilemem import ir
from tilemem.frontend.dsl.context import ARG_DIRECTIONS
from tilemem.frontend.dsl.statement_forms import _attr_value, _check_attr_list, _type_dim
from tilemem.frontend.dsl.values import DslError, INT_DTYPES, int64_const
from tilemem.frontend.pysource import Dynamic, dynamic_name



class AnnotationReading:
    """Mixin of :class:`~tilemem.frontend.dsl.function_reader.FunctionReader`: declared memrefs, call and function attributes, and the shapes and views written in."""

    def declared_memref(self, node):
        """A Tile annotation's ``NAME`` or ``NAME[k]`` where NAME is an allocation declared
        around the program (``NAME = pl.MemRef(slots=2)``): the inline
        ``pl.MemRef("name"[, slots=N])[k]`` PyPTO makes of it (TR:636-842), an unnamed
        declaration named after its variable; None when NAME is no such declaration."""
        from tilemem.frontend.pysource import DeclaredMemRef
        ref = node.value if type(node) is ir.Subscript else node
        if type(ref) is not ir.Name or self.lookup(ref.id) is not None:
            return None
        d = self.closure(ref.id)
        if not isinstance(d, DeclaredMemRef):
            return None
        name = d.name or ref.id
        seen = self.declared_allocs.setdefault(d.ident, name)
        if seen != name:
            raise DslError(f"Declared allocation '{seen}' is also referenced as '{name}'", ref)
        if self.declared_owners.setdefault(name, d.ident) != d.ident:
            raise DslError(f"Two separate pl.MemRef() declarations both resolve to the name '{name}'", ref)
        call = ir.Call("pl.MemRef", (ir.StrConst(name, '"'),),
                       (("slots", ir.IntConst(d.slots)),) if d.slots > 1 else (), ref.line, ref.col)
        if type(node) is not ir.Subscript:
            return call
        if d.slots <= 1:
            raise DslError(f"'{name}' was declared with a single slot, so it cannot be subscripted", node)
        if len(node.index) == 1:
            k = self._fold_value(node.index[0])
            if isinstance(k, int) and not isinstance(k, bool) and not 0 <= k < d.slots:
                raise DslError(f"Slot index {k} is out of range for '{name}', declared with {d.slots} slot(s)",
                               node)
        return ir.Subscript(call, node.index, node.line, node.col)

    def memref(self, e):
        """``pl.MemRef("name"[, offset, size][, slots=N])[idx]`` or ``pl.MemRef(ptr, offset,
        size)`` as PyPTO prints it (a name is the ``pl.Ptr`` var of a ``tile.alloc``)."""
        index = None
        sub = e
        if type(e) is ir.Subscript:
            e = e.value
        self._check_memref(e)
        if sub is not e:
            self._check_memref_slot(e, sub)
            index = tuple(self.expr(i).expr for i in sub.index)
        args = []
        for a in e.args:
            if type(a) is ir.StrConst:
                args.append(ir.StrConst(self.string_value(a), '"'))
            elif type(a) is ir.Name:
                v = self.lookup(a.id)
                if v is None:
                    raise DslError(f"Undefined variable '{a.id}'", a)
                args.append(ir.Name(v.key, a.line, a.col))
            else:
                args.append(self.expr(a).expr)
        kws = []
        for k, v in e.kwargs:
            if k != "slots":
                raise DslError(f"Unknown pl.MemRef keyword argument: '{k}'", e)
            kws.append((k, self.expr(v).expr))
        call = ir.Call("pl.MemRef", tuple(args), tuple(kws))
        return ir.Subscript(call, index) if index is not None else call

    def _check_memref_slot(self, e: ir.Call, sub: ir.Subscript) -> None:
        """A subscripted ``pl.MemRef(...)[k]``: the MemRef holds more than one slot and a
        constant ``k`` is one of them (type_resolver.py:700-745 declared, 748-790 resolved)."""
        slots = next((v.value for k, v in e.kwargs if k == "slots" and type(v) is ir.IntConst), 1)
        declared = len(e.args) == 1
        if len(e.args) not in (1, 3) or not e.args:
            return
        a0 = e.args[0]
        name = self.string_value(a0) if type(a0) is ir.StrConst else a0.id if type(a0) is ir.Name else None
        if name is None:
            return
        if slots <= 1:
            if declared:
                raise DslError(f"'{name}' was declared with a single slot, so it cannot be subscripted", sub)
            raise DslError(f"'{name}' holds a single slot, so it cannot be subscripted", sub)
        if len(sub.index) == 1:
            k = self._fold_value(sub.index[0])
            if isinstance(k, int) and not isinstance(k, bool) and not 0 <= k < slots:
                held = "declared with" if declared else "which holds"
                raise DslError(f"Slot index {k} is out of range for '{name}', {held} {slots} slot(s)", sub)

    def _check_memref(self, e: ir.Call) -> None:
        """What PyPTO's type resolver accepts of ``pl.MemRef(...)`` (type_resolver.py
        resolve_memref): ``("name"[, slots=N])`` -- a non-empty name --, ``(base, byte_offset,
        size[, slots=N])`` -- an index-expression offset, a non-negative integer size --, the
        legacy integer forms; ``slots`` a positive integer literal."""
        args = e.args
        slots = [v for k, v in e.kwargs if k == "slots"]
        if len(args) == 1 and len(slots) == len(e.kwargs):
            a = args[0]
            if type(a) is not ir.StrConst or not self.string_value(a):
                shown = repr(self.string_value(a)) if type(a) is ir.StrConst else self.source_of(a)
                raise DslError(f"A declared allocation's name must be a non-empty string literal, got {shown}", e)
        elif len(args) == 3:
            if type(args[0]) in (ir.StrConst, ir.Name):
                off = self.expr(args[1])
                if not (isinstance(off.type, ir.ScalarType) and off.type.dtype in INT_DTYPES):
                    raise DslError(f"MemRef byte_offset must be an index expression, got: {self.source_of(args[1])}",
                                   args[1])
                self._memref_int(args[2], "size")
            else:
                self._memref_int(args[0], "addr", False)
                self._memref_int(args[1], "size")
                self._memref_int(args[2], "id")
        elif len(args) != 4:
            raise DslError(f"pl.MemRef requires 3 arguments (base, byte_offset, size), got {len(args)}", e)
        for v in slots:
            if not (type(v) is ir.IntConst and v.value >= 1):
                raise DslError(f"slots must be a positive integer literal, got {self.source_of(v)}", e)

    def _memref_int(self, x, what: str, non_negative: bool = True) -> None:
        v = self._fold_value(x)
        if not isinstance(v, int) or isinstance(v, bool):
            raise DslError(f"MemRef {what} must be an integer, got: {self.source_of(x)}", x)
        if non_negative and v < 0:
            raise DslError(f"MemRef {what} must be >= 0, got: {v}", x)

    def attrs_dict(self, e) -> ir.Expr:
        if type(e) is not ir.DictExpr:
            raise DslError("op attrs must be a dict literal", e)
        for k, _ in e.items:
            if type(k) is not ir.StrConst:
                raise DslError("attrs keys must be string literals", k)
        return ir.DictExpr(tuple((self.quoted(k), self.quoted(v) if type(v) is ir.StrConst else v)
                                 for k, v in e.items))

    def call_attrs(self, fname: str, e, call: ir.Call, nargs: int) -> tuple[list, list]:
        """``attrs={...}`` of a call to (or submit of) a kernel, as PyPTO reads it
        (AP:7584-7812): ``arg_directions`` -- a list of ``pl.adir.X``, one per positional
        argument --, then every other key's value by its syntax (a constant, a list of ints /
        ``pl.adir.X`` / names, an enum, else an expression, read as any expression is);
        ``manual_dep_edges`` is refused.  (items, the vars of a ``dump_vars`` key)."""
        if type(e) is not ir.DictExpr:
            raise DslError(f"'attrs=' on call to '{fname}' must be a dict literal", e)
        for k, _ in e.items:
            if type(k) is not ir.StrConst:
                raise DslError(f"'attrs=' on call to '{fname}' must use string-literal keys", k)
        items = [(self.string_value(k), k, v) for k, v in e.items]
        out, dumps = [], []
        for key, k, v in items:
            if key != "arg_directions":
                continue
            if type(v) is not ir.ListExpr:
                raise DslError(f"attrs['arg_directions'] on call to '{fname}' must be a list literal", v)
            for x in v.items:
                if not (type(x) is ir.Dotted and len(x.parts) == 3 and x.parts[:2] == ("pl", "adir")):
                    raise DslError(f"attrs['arg_directions'] on call to '{fname}' must contain 'pl.adir.<name>' "
                                   "references only", x)
                if x.parts[2] not in ARG_DIRECTIONS:
                    raise DslError(f"Unknown call-site direction marker 'pl.adir.{x.parts[2]}' in call to "
                                   f"'{fname}'", x)
            if v.items and len(v.items) != nargs:
                raise DslError(f"attrs['arg_directions'] length ({len(v.items)}) on call to '{fname}' must match "
                               f"positional arg count ({nargs})", call)
            out = [(self.quoted(k), ir.ListExpr(tuple(v.items)))] if v.items else []
        if any(key == "manual_dep_edges" for key, _, _ in items):
            # AP:7790-7812: dependency edges belong on a submit's deps=
            raise DslError(f"attrs={{'manual_dep_edges': ...}} is not accepted on a call to '{fname}'", call)
        for key, k, v in items:
            if key == "dump_vars":
                dumps = self._attr_dump_vars(fname, v)
            elif key != "arg_directions":
                out.append((self.quoted(k), self._call_attr_value(fname, key, v)))
        return out, dumps

    def _call_attr_value(self, fname: str, key: str, v):
        """One generic call attr (AP:7614-7698), as PyPTO prints it (PrintAttrValue)."""
        t = type(v)
        if t is ir.NoneConst:
            raise DslError(f"attrs['{key}'] on call to '{fname}': unsupported constant 'None'", v)
        if t in (ir.StrConst, ir.IntConst, ir.BoolConst, ir.FloatConst):
            return _attr_value(self, v)
        if t in (ir.ListExpr, ir.TupleExpr):
            xs = tuple(v.items)
            if all(type(x) is ir.IntConst for x in xs):
                out = ir.ListExpr(xs)
            elif all(type(x) is ir.Dotted and len(x.parts) == 3 and x.parts[:2] == ("pl", "adir") for x in xs):
                bad = next((x for x in xs if x.parts[2] not in ARG_DIRECTIONS), None)
                if bad is not None:
                    raise DslError(f"attrs['{key}'] on call to '{fname}': unknown direction '{bad.text}'", bad)
                out = ir.ListExpr(xs)
            elif all(type(x) is ir.Name for x in xs):
                out = ir.ListExpr(tuple(self.expr(x).expr for x in xs))
            else:
                raise DslError(f"attrs['{key}'] on call to '{fname}': list elements are mixed or of an unsupported "
                               "kind (expected all ints, all pl.adir.<name>, or all names)", v)
            _check_attr_list(self, key, ir.ListExpr(xs), self.fname)      # the attr's C++ type (by key)
            return out
        if t is ir.Dotted and len(v.parts) >= 2:
            return _attr_value(self, v) if len(v.parts) > 2 else v          # an enum value, as printed
        return self.expr(v).expr

    def _attr_dump_vars(self, fname: str, v) -> list:
        """``attrs={"dump_vars": [...]}`` on a kernel call: the printed form of its dumps."""
        return [d.var for _, d in self._tensor_var_list(
            v, f"attrs['dump_vars'] on call to '{fname}' must be a list literal",
            f"attrs['dump_vars'] entries on call to '{fname}' must be tensor variables")]

    def _tensor_var_list(self, v, not_a_list: str, not_a_tensor_var: str) -> list:
        """The (item, value) pairs of a list / tuple literal of tensor variables (a call's
        dump_vars, a submit's dumps=), with the caller's PyPTO messages."""
        if type(v) not in (ir.ListExpr, ir.TupleExpr):
            raise DslError(not_a_list, v)
        out = []
        for x in v.items:
            d = self.expr(x)
            if d.var is None or not isinstance(d.type, ir.TensorType):
                raise DslError(f"{not_a_tensor_var} — got '{self.source_of(x)}'", x)
            out.append((x, d))
        return out

    # -- shapes in annotations ------------------------------------------------------------
    def shape_dim(self, e, param: bool):
        t = type(e)
        if t is ir.IntConst:
            return int64_const(e.value, e)
        if t is ir.Name:
            return self._shape_name(e, param)
        f = self.folded(e) if self.foldable(e) else None
        if f is not None and type(f.expr) is ir.IntConst:
            return ir.IntConst(f.expr.value)
        return _type_dim(self._composite_dim(e, param))

    def _shape_name(self, e: ir.Name, param: bool):
        c = self.closure(e.id)
        if c is not None:
            if isinstance(c, bool) or not isinstance(c, (int, Dynamic)):
                raise DslError(f"Shape variable '{e.id}' must be int or pl.dynamic(), got {type(c).__name__}", e)
            if isinstance(c, Dynamic):
                return ir.Name(self.dynamic_var(c.name).key)
            return int64_const(c, e)
        if not param:
            v = self.lookup(e.id)
            if v is not None:
                return ir.Name(v.key)
            raise DslError(f"Unknown shape variable: {e.id}", e)
        raise DslError(f"NameError: name '{e.id}' is not defined", e)

    def _composite_dim(self, e, param: bool, top: bool = True):
        t = type(e)
        if t is ir.IntConst:
            return int64_const(e.value, e)
        if t is ir.Name:
            return self._shape_name(e, param)
        if t is ir.Call and e.func.endswith(".const"):
            v = self.expr(e)
            return v.expr
        sym = self._inline_dynamic(e)
        if sym is not None:
            if not top:
                # Python builds the composite over a DynVar of its own: a second symbol
                # of the name, which PyPTO prints renamed (M_1); not modelled
                raise DslError("pl.dynamic(...) inside a composite dim is not read by tilemem's DSL reader; "
                               "bind it to a name around the program (M = pl.dynamic(\"M\"))", e)
            return sym
        if t is ir.BinOp and e.op in ("+", "-", "*", "//", "%"):
            l = self._composite_dim(e.left, param, False)
            r = self._composite_dim(e.right, param, False)
            return ir.BinOp(e.op, l, r)
        raise DslError(f"Shape dimension must be int literal, variable, or evaluable expression: "
                       f"{self.source_of(e)}", e)

    def _inline_dynamic(self, e):
        """``pl.dynamic("NAME")`` written in a dim: the function's symbol of that name
        (the parser caches one Var per name, expr_evaluator.py:158-177); else None."""
        if type(e) is ir.Call and not e.kwargs and len(e.args) == 1 and type(e.args[0]) is ir.StrConst:
            parts = e.func.split(".")
            if len(parts) == 2 and parts[1] == "dynamic" and parts[0] in self.ctx.scope.aliases:
                name = dynamic_name(self.string_value(e.args[0]), lambda msg: DslError(msg, e))
                return ir.Name(self.dynamic_var(name).key)
        return None

    def shape_list(self, e: ir.Name, param: bool):
        c = self.closure(e.id)
        if isinstance(c, list):
            out = []
            for x in c:
                if isinstance(x, Dynamic):
                    out.append(ir.Name(self.dynamic_var(x.name).key))
                elif isinstance(x, int):
                    out.append(int64_const(x, e))
                else:
                    raise DslError(f"Shape '{e.id}' element must be int or pl.dynamic()", e)
            return out
        if param and c is None and self.lookup(e.id) is None:
            raise DslError(f"NameError: name '{e.id}' is not defined", e)     # Python's, in a signature
        raise DslError(f"Unknown shape variable: {e.id}", e)

    def view_expr(self, e, param: bool = False):
        return _type_dim(self._view_expr(e, param))

    def _view_expr(self, e, param: bool = False):
        t = type(e)
        if t is ir.IntConst:
            return int64_const(e.value, e)
        if t is ir.Name:
            if param:
                return self._shape_name(e, param)     # module names only, else NameError
            v = self.lookup(e.id)
            if v is not None:
                return ir.Name(v.key)
            c = self.closure(e.id)
            if isinstance(c, int) and not isinstance(c, bool):
                return int64_const(c, e)
            if isinstance(c, Dynamic):
                return ir.Name(self.dynamic_var(c.name).key)
            return ir.Name(self.dynamic_var(e.id).key)
        f = self.folded(e) if self.foldable(e) else None
        if f is not None and type(f.expr) is ir.IntConst:
            return ir.IntConst(f.expr.value)
        if t is ir.BinOp and e.op in ("+", "-", "*", "//", "%"):
            return ir.BinOp(e.op, self._view_expr(e.left, param), self._view_expr(e.right, param))
        v = self.expr(e)
        if not (isinstance(v.type, ir.ScalarType) and v.type.dtype in INT_DTYPES):
            if param:       # Python builds a signature's view itself: the binding refuses it
                raise DslError("TypeError: __init__(): incompatible function arguments (a view field takes "
                               f"integer index expressions, got {self.source_of(e)})", e)
            got = type(v.type).__name__ if isinstance(v.type, ir.Type) else "Expr"
            raise DslError(f"TileView field must be an index expression, got {got}: {self.source_of(e)}", e)
        return v.expr
