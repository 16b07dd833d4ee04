"""Calls (ops, kernels, tensor.dim folding, typed constants), subscripts read and written."""
from __future__ import annotations

import contextlib
from typing import Optional

from tilemem import ir
from tilemem.frontend.dsl.comprehension import is_listcomp
from tilemem.frontend.dsl.exprs import read_back
from tilemem.frontend.dsl.statement_forms import _call_attrs, _extent, _static_int, _strip_no_dep
from tilemem.frontend.dsl.values import DTYPES, DslError, UNKNOWN, Val, const_int, scalar
from tilemem.frontend.dsl.wrappers import syntax_op



class CallReading:
    """Mixin of :class:`~tilemem.frontend.dsl.function_reader.FunctionReader`: calls (ops, kernels, tensor.dim folding, typed constants), subscripts read and written."""

    # -- calls ------------------------------------------------------------------------------
    def call(self, e: ir.Call) -> Val:
        if is_listcomp(e):                 # a comprehension outside a deps= list (AP:5773)
            raise DslError("Unsupported expression type: ListComp", e)
        parts = e.func.split(".")
        if parts[0] == "self" and len(parts) == 2:
            return self.kernel_call(parts[1], e)
        if parts[0] == "pld" and len(parts) in (2, 3):
            # the distributed DSL, matched on the literal `pld.` prefix (AP:140-165, 8605-8649)
            if len(parts) == 3 and parts[1] not in ("system", "tensor", "tile"):
                raise DslError(f"Unknown distributed category 'pld.{parts[1]}'", e)
            return self.op_call(".".join(parts[:-1]), parts[-1], e)
        if e.func == syntax_op("extent_read") and self.func_type == "Orchestration":
            folded = self.fold_tensor_dim(e)
            if folded is not None:
                return folded
        if parts[0] in self.ctx.scope.aliases and len(parts) >= 2:
            if parts[-1] == "yield_" and len(parts) == 2:
                raise DslError("pl.yield_() must be a statement (`x = pl.yield_(...)`)", e)
            if len(parts) == 2:
                name = parts[1]
                if name == "const":
                    return self.typed_const(e)
                if name in ("min", "max"):
                    return self.scalar_minmax(name, e)
                if name in ("aiv_shard", "aic_gather"):
                    return self.shard(name, e)
                if name == "submit":        # AP:6041-6057
                    raise DslError("pl.submit(...) must be unpacked as a 2-tuple: `out, tid = "
                                   "pl.submit(self.kernel, ...)`", e)
                if name == "spmd_submit":
                    raise DslError("pl.spmd_submit(...) must be unpacked as a 2-tuple: `out, tid = "
                                   "pl.spmd_submit(self.kernel, ..., core_num=N)`", e)
                if name in ("range", "parallel", "unroll", "pipeline", "while_", "cond", "scope", "at",
                            "cluster", "spmd", "dynamic", "static_assert", "static_print", "func_attr"):
                    raise DslError(f"pl.{name}() cannot be used as an expression here", e)
                return self.op_call("pl", name, e)
            if len(parts) == 3 and parts[1] in ("tile", "tensor") and parts[2] in ("aiv_shard", "aic_gather"):
                return self.shard(parts[2], e)
            if len(parts) == 3 and parts[1] in ("tile", "tensor", "system", "array", "prefetch"):
                return self.op_call(parts[1], parts[2], e)
            if len(parts) == 3 and parts[2] == "get_byte" and parts[1] in DTYPES:
                from tilemem.frontend.dsl.values import DTYPE_BITS
                return const_int((DTYPE_BITS[parts[1]] + 7) // 8, "INDEX", e)
            raise DslError(f"Unsupported operation call: {e.func}(...)", e)
        raise DslError(f"Unsupported function call: {self.source_of(e)}", e)

    @contextlib.contextmanager
    def _loop_masks_errors(self, kind: str, n_iter: int):
        """An error in the body of a loop with iteration arguments is never PyPTO's message:
        the loop builder's exit runs even then (ir/builder.py for_loop / while_loop:
        ``finally: end_for_loop``) and, the return variables being set only after the body
        (AP:2786-2800, 3380-3390), raises its own arity error in its place, which the
        function's parse reports (builder.cpp:143-151, 212-220).  tilemem's own refusals
        (what it does not read) keep their words."""
        if not n_iter:
            yield
            return
        try:
            yield
        except DslError as e:
            if "tilemem" in e.message:
                raise
            raise DslError(f"Failed to parse function '{self.raw.name.value}': {kind} loop has {n_iter} iteration "
                           f"arguments but 0 return variables. They must match.", None,
                           self.raw.deftok.line, self.raw.deftok.column) from None

    def fold_tensor_dim(self, e: ir.Call) -> Optional[Val]:
        """``pl.tensor.dim(x, axis)`` in an Orchestration body, when ``x``'s extent there
        is a symbol a tensor parameter's shape of this function names: that symbol
        itself, no read (AP:8338-8345, 8372-8431; the literal ``pl.tensor.`` spelling,
        ``x`` a bare name, a constant axis); None: read as any op call."""
        given = dict(e.kwargs)
        if set(given) - {"tensor", "axis"}:
            return None
        positional = list(e.args)
        tensor = given.get("tensor") or (positional.pop(0) if positional else None)
        axis_arg = given.get("axis") or (positional.pop(0) if positional else None)
        if tensor is None or axis_arg is None or positional or type(tensor) is not ir.Name:
            return None
        axis = _static_int(axis_arg)
        if axis is None:
            f = self.folded(axis_arg) if self.foldable(axis_arg) else None
            if f is None or type(f.expr) is not ir.IntConst or f.type.dtype != "INDEX":
                return None
            axis = f.expr.value
        var = self.lookup(tensor.id)
        if var is None or not isinstance(var.type, ir.TensorType):
            return None
        shape = var.type.shape
        if axis < 0:
            axis += len(shape)
        if not 0 <= axis < len(shape):
            return None
        extent = shape[axis]
        if type(extent) is not ir.Name or extent.id not in self.param_dim_symbols:
            return None
        sym = self.ctx.dynamics.get(extent.id)
        return sym.ref(e) if sym is not None else None

    def typed_const(self, e: ir.Call) -> Val:
        if len(e.args) != 2 or e.kwargs:
            raise DslError("pl.const() requires exactly 2 arguments: value and dtype", e)
        v = e.args[0]
        neg = False
        if type(v) is ir.UnaryOp and v.op == "-":
            neg, v = True, v.operand
        if type(v) is ir.IntConst:
            val = -v.value if neg else v.value
            dt = self.types.dtype(e.args[1])
            return const_int(val, dt, e)
        if type(v) is ir.FloatConst:
            from tilemem.frontend.dsl.values import const_float
            val = float(v.text)
            return const_float(-val if neg else val, self.types.dtype(e.args[1]), e)
        raise DslError("pl.const() first argument must be a numeric literal", e)

    def scalar_minmax(self, name: str, e: ir.Call) -> Val:
        if len(e.args) != 2 or e.kwargs:
            raise DslError(f"{name}() takes 2 positional arguments but {len(e.args)} were given", e)
        a, b = self.expr(e.args[0]), self.expr(e.args[1])
        from tilemem.frontend.dsl.exprs import cast_to, promote
        for side in (a, b):
            if not isinstance(side.type, ir.ScalarType):
                raise DslError(f"pl.{name}: expected scalar operands", e)
        dt = promote(a.type.dtype, b.type.dtype, name)
        return Val(ir.Call(f"pl.{name}", (cast_to(a, dt), cast_to(b, dt)), (), e.line, e.col), scalar(dt))

    def kernel_call(self, fname: str, e: ir.Call) -> Val:
        if fname not in self.ctx.function_names:
            raise DslError(f"Function '{fname}' not defined in program", e)
        # device= picks the device of an Orchestrator dispatch, known once the callee is read
        # (AP:6406-6440, 7287-7313); it is stored as attrs['device'] and printed `device=`
        allowed = ("attrs", "device") if self.ctx.roles.get(fname) == "Orchestrator" else ("attrs",)
        for k, _ in e.kwargs:
            if k not in allowed:
                raise DslError(f"Function '{fname}' does not accept keyword argument '{k}'", e)
        raw, no_dep = _strip_no_dep(e.args)
        args = [self.expr(a) for a in raw]
        sig = self.ctx.signatures.get(fname)
        if sig is None:
            rtype = UNKNOWN
        else:
            nparams, rts = sig[0], sig[1]
            if nparams != len(args):
                raise DslError(f"Function '{fname}' expects {nparams} argument(s), got {len(args)}", e)
            rts = self.call_return_types(sig, args, rts, False)
            if len(rts) == 1:
                rtype = rts[0]
            elif rts:
                rtype = ir.TupleType(tuple(rts))
            else:
                rtype = UNKNOWN
        user, listed = [], []
        for k, v in e.kwargs:
            if k == "attrs":
                user, listed = self.call_attrs(fname, v, e, len(args))
        dumped = self.dumped_args(args, listed)
        attrs = ([(ir.StrConst("dump_vars", '"'), ir.ListExpr(tuple(dumped)))] if dumped else []) + \
            _call_attrs(user, no_dep)
        device = [("device", self.expr(v).expr) for k, v in e.kwargs if k == "device"]
        kws = tuple(device) + ((("attrs", ir.DictExpr(tuple(attrs))),) if attrs else ())
        return Val(ir.Call(f"self.{fname}", tuple(a.expr for a in args), kws, e.line, e.col), rtype)

    def call_return_types(self, sig: tuple, args: list, rts: list, submit: bool) -> list:
        """The callee's return types with its dynamic dims bound from the arguments
        (DeduceCallReturnType, AP:6645-6663); a submit with fewer arguments than
        parameters pairs them as _call_args_for_return_deduction does (AP:6462-6487):
        an Out / InOut parameter is skipped while the arguments left only cover the
        parameters still required after it."""
        from tilemem.frontend.dsl.calltypes import ConflictingBinding, deduce_call_return_types
        if not rts:
            return rts
        params, dirs = sig[4], sig[5]
        if not submit or len(args) == len(params):
            pairs = list(zip(params, args))
        else:
            pairs, at = [], 0
            for i, (p, d) in enumerate(zip(params, dirs)):
                if at >= len(args):
                    break
                if d in ("Out", "InOut"):
                    required = sum(1 for x in dirs[i + 1:] if x not in ("Out", "InOut"))
                    if len(args) - at <= required:
                        continue
                pairs.append((p, args[at]))
                at += 1
        try:
            from tilemem.ir.typerules import message_form
            return deduce_call_return_types([p for p, _ in pairs], [a.type for _, a in pairs], rts,
                                            lambda e: self.source_of(message_form(e)))
        except ConflictingBinding as err:
            raise DslError(f"Failed to parse function '{self.fname}': {err}", None,
                           self.raw.deftok.line, self.raw.deftok.column) from None

    def dumped_args(self, args: list, listed=()) -> list:
        """The arguments a call dumps, in argument order, one per position: those marked by
        ``pl.dump_tag`` and those a submit's ``dumps=`` lists (AP:6608-6613; the printer
        prints them so, python_printer.cpp)."""
        return [a.expr for a in args if a.var is not None and (a.var in self.dump_tagged or
                                                                any(a.var is d for d in listed))]

    def read_or_slice(self, base: Val, e: ir.Subscript) -> Val:
        """``T[i, j]`` (all scalar, full rank): a read; otherwise a slice view (numpy style:
        a scalar index drops its axis, missing trailing indices are ``:``; AP:8821-9240)."""
        from tilemem.frontend.dsl.pyline import slice_parts
        t = base.type
        idx = list(e.index)
        ns = "tile" if isinstance(t, ir.TileType) else "tensor"
        if len(idx) == len(t.shape) and all(slice_parts(i) is None for i in idx):
            vals = [self.expr(i) for i in idx]
            if all(isinstance(v.type, ir.ScalarType) for v in vals):
                call = ir.Call(syntax_op(f"{ns}_element"), (base.expr, ir.ListExpr(tuple(v.expr for v in vals))),
                               (), e.line, e.col)
                return Val(call, scalar(t.dtype))
        offsets, extents, drops = self._window(idx, t, e)
        kws = (("drop_dims", ir.ListExpr(tuple(ir.IntConst(d) for d in drops))),) if drops else ()
        call = ir.Call(f"pl.{ns}.slice", (e.value, ir.ListExpr(tuple(extents)), ir.ListExpr(tuple(offsets))), kws,
                       e.line, e.col)
        return self._parser_built(call)

    def _parser_built(self, call: ir.Call) -> Val:
        """An op the parser builds itself (ir_op.*, not the pl wrapper): its deducer's error
        is reported as parse_function reports it."""
        outer, self.parser_built_call = getattr(self, "parser_built_call", None), call
        try:
            return self.call(call)
        finally:
            self.parser_built_call = outer

    def _window(self, idx: list, t, node):
        """Per-axis (offsets, extents) of a subscript window and the axes it drops."""
        from tilemem.frontend.dsl.pyline import slice_parts
        if len(idx) > len(t.shape):
            raise DslError(f"Too many indices for a rank-{len(t.shape)} value", node)
        idx = idx + [ir.Call("__slice__", (ir.NoneConst(), ir.NoneConst(), ir.NoneConst()))] * (len(t.shape) - len(idx))
        offsets, extents, drops = [], [], []
        for d, i in enumerate(idx):
            parts = slice_parts(i)
            if parts is None:
                offsets.append(i)
                extents.append(ir.IntConst(1))
                drops.append(d)
                continue
            lo, hi, step = parts
            if step is not None and not (type(step) is ir.IntConst and step.value == 1):
                raise DslError("Slice step is not supported", node)
            lo = lo if lo is not None else ir.IntConst(0)
            hi = hi if hi is not None else read_back(t.shape[d])
            offsets.append(lo)
            extents.append(_extent(lo, hi))
        return offsets, extents, drops

    def subscript_assign(self, target: ir.Subscript, value, s) -> None:
        """``dst[...] = src`` -> ``dst = pl.assemble(dst, src, offsets)``; on an Array,
        ``arr[i] = v`` -> ``arr = pl.array.update_element(arr, i, v)`` (AP:2224-2450)."""
        from tilemem.frontend.dsl.types import array_dtype
        if self.ctx.strict_ssa:
            raise DslError("Subscript-write syntax 'dst[...] = src' is only supported before SSA conversion", s)
        if type(target.value) is not ir.Name:
            raise DslError(f"Subscript-write target must be a variable name, got {self.source_of(target.value)}", s)
        name = target.value.id
        base = self.expr(target.value)
        t = base.type
        if array_dtype(t) is not None:
            if len(target.index) != 1:
                raise DslError("Array subscript-write requires a single index (rank-1 in v1)", s)
            i = self.expr(target.index[0])
            v = self.expr(value)
            if type(v.expr) is ir.IntConst:
                v = const_int(v.expr.value, array_dtype(t), v.expr)
            call = ir.Call(syntax_op("array_set"), (base.expr, i.expr, v.expr), (), s.line, s.col)
            self.assign_or_let(name, Val(call, t), s)
            return
        if not isinstance(t, (ir.TileType, ir.TensorType)):
            raise DslError(f"Subscript-write requires a Tensor, Tile, or Array target, got {type(t).__name__}", s)
        offsets, extents, drops = self._window(list(target.index), t, s)
        if drops:
            raise DslError("A subscript write that drops axes is not supported by tilemem's DSL reader; "
                           "use pl.assemble(...)", s)
        ns = "tile" if isinstance(t, ir.TileType) else "tensor"
        # (the checked source stays alive while the call reads it again: the reader keys the
        # types of nested calls by object id, which a freed first reading would hand on)
        checked = self._check_subscript_source(ns, extents, value, s)
        call = ir.Call(f"pl.{ns}.assemble", (target.value, value, ir.ListExpr(tuple(offsets))), (), s.line, s.col)
        self.assign_or_let(name, self._parser_built(call), s)
        del checked

    def _check_subscript_source(self, kind: str, extents: list, value, s) -> None:
        """What PyPTO checks of a subscript write's source (AP:2285-2342): a tensor into a
        tensor, a tile into a tile; its rank the window's (a tile's at least 2); each
        constant extent the window's, or its constant valid extent."""
        from tilemem.frontend.dsl.types import view_parts
        val = self.expr(value)
        src = val.type
        want_cls = ir.TileType if kind == "tile" else ir.TensorType
        if not isinstance(src, want_cls):
            raise DslError(f"Subscript-write source must also be a {kind}, got {type(src).__name__}", s)
        natural = len(extents)
        floored = max(2, natural) if kind == "tile" else natural
        rank = len(src.shape)
        if rank not in (natural, floored):
            expected = f"{natural}D" if natural == floored else f"{natural}D or {floored}D"
            raise DslError(f"Subscript-write source must be {expected} to match the rank-reduced {kind} "
                           f"window, got {rank}D", s)
        want = [ir.IntConst(1)] * (rank - natural) + list(extents)
        if isinstance(src, ir.TileType):
            valid = tuple(src.view.valid_shape) if src.view is not None and src.view.valid_shape else None
        else:
            valid = view_parts(src.view)[0] or None
        for axis, w in enumerate(want):
            req = self._fold_value(w)
            have = src.shape[axis].value if type(src.shape[axis]) is ir.IntConst else None
            if type(req) is not int or have is None or req == have:
                continue
            if valid is not None:
                v = valid[axis]
                if type(v) is not ir.IntConst or v.value == req:
                    continue
            raise DslError(f"Subscript-write shape mismatch on source axis {axis}: window expects {req} "
                           f"elements, source has {have}", s)
        return val

    def array_read(self, base: Val, e: ir.Subscript) -> Val:
        """``arr[i]`` on an Array: ``pl.array.get_element(arr, i)``."""
        from tilemem.frontend.dsl.types import array_dtype
        if len(e.index) != 1:
            raise DslError("An Array takes one index", e)
        i = self.expr(e.index[0])
        return Val(ir.Call(syntax_op("array_get"), (base.expr, i.expr), (), e.line, e.col),
                   scalar(array_dtype(base.type)))
