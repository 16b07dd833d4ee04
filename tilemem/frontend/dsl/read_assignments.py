"""Assignments (annotated, tuple, window buffers) and task submission (pl.submit: deps,
predicates, core numbers)."""
from __future__ import annotations

from tilemem import ir
from tilemem.frontend.dsl.comprehension import is_listcomp, unroll_deps
from tilemem.frontend.dsl.context import _pl_call, _pld_call
from tilemem.frontend.dsl.statement_forms import _call_attrs, _ir_class, _shape_text, _strip_no_dep
from tilemem.frontend.dsl.types import merge_annotation, print_type_text, tile_type, types_equal
from tilemem.frontend.dsl.values import (
    DslError, INT_DTYPES, Val, Var, const_int, dotted, is_unknown, scalar,
)
from tilemem.frontend.dsl.wrappers import syntax_op, wrapper_table



class AssignmentReading:
    """Mixin of :class:`~tilemem.frontend.dsl.function_reader.FunctionReader`: assignments (annotated, tuple, window buffers) and task submission (pl.submit: deps,."""

    # -- assignments -------------------------------------------------------------------------------
    def _assign(self, s: ir.Assign):
        if len(s.targets) > 1:
            return self._tuple_assign(s)
        name = s.targets[0]
        ann = s.annotation
        value = s.value
        if _pld_call(value, "alloc_window_buffer") and (ann is None or (
                type(ann) is ir.Dotted and ann.parts[-1] == "Ptr")):
            return self.assign_or_let(name, self.alloc_window_buffer(name, value), s, None)
        if _pl_call(value, "submit") or _pl_call(value, "spmd_submit"):
            val = self.submit(value)
        else:
            val = self.expr(value)
        override = None
        if ann is not None:
            resolved = self._annotation(ann, s)
            if resolved is not None:
                region = type(val.expr) is ir.Call and val.expr.func in wrapper_table().region_ops
                override = merge_annotation(resolved, val, name, s, region)
        if isinstance(override, ir.ScalarType) and type(val.expr) is ir.IntConst:
            val = const_int(val.expr.value, override.dtype, val.expr)
        self.assign_or_let(name, val, s, override)

    def alloc_window_buffer(self, name: str, call: ir.Call) -> Val:
        """``buf = pld.alloc_window_buffer(size)`` (AP:2157-2224; language/distributed/op/
        tensor_ops.py): a HOST-orchestration resource named by its LHS, unique in the program;
        the shape form ``([dims], dtype=T)`` allocates dims x the dtype's bytes."""
        if self.explicit_level != "HOST" or self.incore_depth:
            level = f"Level.{self.explicit_level}" if self.explicit_level else "None"
            raise DslError("pld.tensor.alloc_window_buffer() can only be called in HOST orchestration context "
                           f"(not inside InCore / SPMD scopes); current function level: {level}", call)
        if name in self.ctx.window_buffers:
            raise DslError(f"pld.tensor.alloc_window_buffer name '{name}' is already declared in this program", call)
        if any(k == "name" for k, _ in call.kwargs):
            raise DslError("pld.tensor.alloc_window_buffer 'name' kwarg cannot be passed explicitly — it is "
                           f"auto-derived from the assignment LHS ('{name}')", call)
        fail = f"Failed to parse function '{self.fname}': "
        dtype = next((v for k, v in call.kwargs if k == "dtype"), None)
        first = call.args[0] if call.args else None
        if type(first) in (ir.ListExpr, ir.TupleExpr):
            if dtype is None:
                raise DslError(f"{fail}pld.tensor.alloc_window_buffer requires dtype= when the first argument is a "
                               "shape (list / tuple of per-rank dimensions)", call)
            call = ir.replace(call, args=(self._window_bytes(first, self.types.dtype(dtype), fail, call),)
                              + tuple(call.args[1:]), kwargs=tuple(kv for kv in call.kwargs if kv[0] != "dtype"))
        elif dtype is not None:
            raise DslError(f"{fail}pld.tensor.alloc_window_buffer dtype= is only valid when the first argument is a "
                           "shape (list / tuple), not a scalar byte size", call)
        self.alloc_rhs = True
        try:
            val = self.expr(call)
        finally:
            self.alloc_rhs = False
        self.ctx.window_buffers.add(name)
        return val

    def _window_bytes(self, shape, dtype: str, fail: str, node):
        """_compute_window_buffer_bytes: a static total as one INT64 constant, else the
        product of the dims (INT64 constants for the static ones) and the dtype's bytes."""
        from tilemem.frontend.dsl.values import DTYPE_BITS
        if not shape.items:
            raise DslError(f"{fail}pld.tensor.alloc_window_buffer shape must be non-empty", node)
        dims = []
        for i, d in enumerate(shape.items):
            c = d.value if type(d) is ir.IntConst else self.closure(d.id) if type(d) is ir.Name and \
                self.lookup(d.id) is None else None
            if isinstance(c, int) and not isinstance(c, bool):
                if c <= 0:
                    raise DslError(f"{fail}pld.tensor.alloc_window_buffer shape dimension[{i}] is {c}; all dimensions "
                                   "must be positive", node)
                dims.append(c)
            else:
                dims.append(d)
        nbytes = (DTYPE_BITS[dtype] + 7) // 8

        def i64(v):
            return ir.Call("pl.const", (ir.IntConst(v), ir.Dotted(("pl", "INT64"))), ())
        if all(isinstance(d, int) for d in dims):
            total = nbytes
            for d in dims:
                total *= d
            return i64(total)
        out = i64(dims[0]) if isinstance(dims[0], int) else dims[0]
        for d in dims[1:]:
            out = ir.BinOp("*", out, i64(d) if isinstance(d, int) else d)
        return ir.BinOp("*", out, i64(nbytes))

    def _annotation(self, e, node):
        """The resolved annotation type, or None when PyPTO ignores it (pl.UnknownType,
        pl.Ptr, pl.MemRefType, a string forward reference)."""
        if type(e) is ir.Dotted and e.parts[-1] in ("UnknownType", "MemRefType", "Ptr"):
            return None
        if type(e) is ir.StrConst:
            return None
        return self.types.resolve(e)

    def assign_or_let(self, name: str, val: Val, node, override=None) -> Var:
        existing = self.lookup(name)
        vtype = override if override is not None else val.type
        if (is_unknown(vtype) and type(val.expr) is ir.Call and val.expr.func.startswith("pl.")
                and val.expr.func[3:] in self.ctx.declared_ops):
            vtype = self._declared_result(val.expr)
            if vtype is None:
                raise DslError(f"cannot deduce the result type of {val.expr.func} (an op declared by a "
                               f"--rules file, without a tile argument): annotate the assignment, e.g. "
                               f"`{name}: pl.Tile[[16, 16], pl.FP32] = ...`", node)
            val = Val(val.expr, vtype)
        if self.func_type == "Orchestration" and type(val.expr) is ir.Name \
                and val.expr.id in self.param_dim_symbols \
                and (existing is None or existing.key in self.param_dim_symbols) \
                and (override is None or types_equal(override, val.type)):
            # a name for a parameter's extent symbol: bound to it, no statement (AP:1804-1820)
            sym = self.ctx.dynamics[val.expr.id]
            self.define(name, sym, node)
            return sym
        if existing is not None and not existing.iter_arg and not self.ctx.strict_ssa and not existing.dyn \
                and existing.key not in self.param_dim_symbols:
            if not is_unknown(vtype) and not is_unknown(existing.type) and not types_equal(existing.type, vtype):
                raise DslError(f"Cannot reassign '{name}' with a different type: was "
                               f"{print_type_text(self._hinted(existing.type))}, got "
                               f"{print_type_text(self._hinted(vtype))}", node)
            self.emit(ir.Assign([existing.key], self._hinted(existing.type), val.expr, line=node.line, col=node.col))
            self.define(name, existing, node)
            return existing
        if isinstance(val.type, (ir.TileType, ir.TensorType, ir.ScalarType, ir.TupleType)) and override is not None:
            if type(override) is not type(val.type) and not is_unknown(val.type):
                raise DslError(f"Type override for '{name}' is incompatible: inferred {type(val.type).__name__} "
                               f"but override is {type(override).__name__}", node)
        var = self.new_var(name, vtype)
        self.emit(ir.Assign([var.key], vtype, val.expr, line=node.line, col=node.col))
        self.define(name, var, node)
        return var

    def _hinted(self, t):
        return t

    def _declared_result(self, call: ir.Call):
        """The result type of an unannotated call of an op a ``--rules`` file declares
        (issue #27): a tile of its first tile argument's shape and dtype; its memory space
        is the rules' (the file's ``op_output_*`` row), as for any tile the solve places.
        None when no argument is a tile.  An annotation says more and is taken as written."""
        for a in call.args:
            t = self.type_of_expr(a)
            if isinstance(t, ir.TileType):
                return tile_type(t.shape, t.dtype, None, None)
        return None

    def _tuple_assign(self, s: ir.Assign):
        value = s.value
        if _pl_call(value, "submit") or _pl_call(value, "spmd_submit"):
            return self._submit_assign(s)
        val = self.expr(value)
        if not isinstance(val.type, ir.TupleType):
            raise DslError(f"Cannot unpack a value of type {print_type_text(val.type)}", s)
        tmp = self.new_var("_tuple_tmp", val.type)
        self.emit(ir.Assign([tmp.key], val.type, val.expr, line=s.line, col=s.col))
        for i, name in enumerate(s.targets):
            if i >= len(val.type.items):
                raise DslError(f"Tuple index {i} out of range", s)
            item = Val(ir.Subscript(ir.Name(tmp.key), (ir.IntConst(i),)), val.type.items[i])
            self.assign_or_let(name, item, s)

    def submit(self, call: ir.Call) -> Val:
        """``pl.submit(self.kernel, args..., deps=[...])``: the kernel call, typed
        ``pl.Tuple[<kernel results>..., pl.Scalar[pl.TASK_ID]]`` (ast_parser.py:1997-2155)."""
        construct = call.func.split(".", 1)[1]
        if not call.args:
            raise DslError(f"pl.{construct}(...) requires the kernel as its first argument", call)
        k = call.args[0]
        if type(k) is not ir.Dotted or len(k.parts) != 2 or k.parts[0] != "self":
            raise DslError(f"pl.{construct}(...) first argument must be a `self.<kernel>` method reference", call)
        fname = k.parts[1]
        if fname not in self.ctx.function_names:
            raise DslError(f"Function '{fname}' not defined in program", call)
        allowed = ("deps", "dumps", "allow_early_resolve", "predicate", "attrs") + \
            (("core_num", "sync_start") if construct == "spmd_submit" else ())
        for key, _ in call.kwargs:
            if key not in allowed:
                raise DslError(f"Function '{fname}' does not accept keyword argument '{key}'", call)
        raw, no_dep = _strip_no_dep(call.args[1:])
        args = [self.expr(a) for a in raw]
        sig = self.ctx.signatures.get(fname)
        rts: list = []
        if sig is not None:
            nparams, declared, n_in = sig[0], sig[2], sig[3]
            if not n_in <= len(args) <= nparams:
                raise DslError(f"Function '{fname}' expects {n_in}..{nparams} argument(s), got {len(args)}", call)
            rts = self.call_return_types(sig, args, list(declared), True)
        kws = []
        given = dict(call.kwargs)
        # AP:4009-4076, 7024-7040: the launch spec is checked as it is read
        if construct == "spmd_submit":
            if "core_num" not in given:
                raise DslError(f"pl.spmd_submit(self.{fname}, ...) requires the core_num keyword argument", call)
            self.core_num_expr(given["core_num"])
        for key in ("sync_start", "allow_early_resolve"):
            v = given.get(key)
            if v is not None and type(v) is not ir.BoolConst:
                who = "" if key == "sync_start" else f"'{fname}' "
                raise DslError(f"{who}{key} must be a boolean literal (True/False)", v)
        listed = []                      # the vars dumps= names
        for key in ("deps", "dumps", "core_num", "sync_start", "allow_early_resolve", "predicate", "attrs"):
            v = given.get(key)
            if key == "dumps":
                # what the submit dumps: dumps= entries and pl.dump_tag'd args, in argument order
                if v is not None:
                    listed = self.submit_dumps(v, args, fname)
                dumped = self.dumped_args(args, listed)
                if dumped:
                    kws.append((key, ir.ListExpr(tuple(dumped))))
            elif key == "attrs":
                attrs = _call_attrs(self.call_attrs(fname, v, call, len(args))[0] if v is not None else (), no_dep)
                if attrs:
                    kws.append((key, ir.DictExpr(tuple(attrs))))
            elif v is None:
                continue
            elif key in ("sync_start", "allow_early_resolve"):
                if type(v) is ir.BoolConst and v.value:
                    kws.append((key, v))
            elif key == "deps":
                deps = self.deps_list(v, fname, call)        # named by the kernel (AP:6596)
                if deps is not None:
                    kws.append((key, deps))
            elif key == "predicate":
                kws.append((key, self.predicate_expr(v, fname)))
            else:
                kws.append((key, self.expr(v).expr))
        t = ir.TupleType(tuple(rts) + (scalar("TASK_ID"),))
        return Val(ir.Call(call.func.rsplit(".", 1)[0] + "." + construct,
                           (ir.Dotted(("self", fname)),) + tuple(a.expr for a in args), tuple(kws),
                           call.line, call.col), t)

    def submit_dumps(self, v, args: list, method: str) -> list:
        """The vars of a submit's ``dumps=[...]``: tensor variables, each an argument of the
        submit (AP:6960-6997; messages named by the kernel)."""
        out = []
        for x, d in self._tensor_var_list(v, f"'{method}' dumps= must be a list / tuple of tensor arguments",
                                          f"'{method}' dumps= entries must be tensor variables"):
            if not any(a.var is d.var for a in args):
                raise DslError(f"'{method}' dumps= entry '{self.source_of(x)}' is not an "
                               "argument of this submit", x)
            out.append(d.var)
        return out

    def predicate_expr(self, v, method: str) -> ir.Expr:
        """A dispatch ``predicate=``: read as an ordinary expression, then held to what the
        runtime evaluates -- one comparison of one element of a signed 8/16/32/64-bit integer
        tensor against an integer literal, either operand order, casts seen through
        (AP:7042-7213; PyPTO's messages, without their hints)."""
        e = self.expr(v).expr
        if not (type(e) is ir.BinOp and e.op in ("==", "!=", "<", "<=", ">", ">=")):
            extra = " (to dispatch unconditionally, omit predicate= entirely)" \
                if type(e) is ir.Call and e.func == syntax_op("no_task") else ""
            raise DslError(f"'{method}' predicate must be a single comparison (==, !=, >, <, >=, <=); "
                           f"got {_ir_class(e)}{extra}", v)

        def uncast(x):
            while type(x) is ir.Call and x.func == "pl.cast" and x.args:
                x = x.args[0]
            return x

        def is_read(x):
            return type(x) is ir.Call and x.func == syntax_op("tensor_element")
        lhs, rhs = uncast(e.left), uncast(e.right)
        read = lhs if is_read(lhs) and type(rhs) is ir.IntConst else \
            rhs if is_read(rhs) and type(lhs) is ir.IntConst else None
        if read is None:
            raise DslError(f"'{method}' predicate must compare one tensor element (e.g. t[i]) against an integer "
                           "literal; the runtime evaluates a single element-vs-constant comparison", v)
        t = self._type_of(read.args[0]) if read.args else None
        if not isinstance(t, ir.TensorType):
            shown = print_type_text(t) if isinstance(t, ir.Type) else "nothing"
            raise DslError(f"predicate operand must be a tensor, got {shown}", v)
        if t.dtype not in ("INT8", "INT16", "INT32", "INT64"):
            raise DslError(f"predicate operand must be a signed 8/16/32/64-bit integer tensor, got "
                           f"{t.dtype.lower()}. The runtime sign-extends the value it reads, so an unsigned operand "
                           "can compare as negative and silently invert the dispatch decision", v)
        idx = read.args[1] if len(read.args) > 1 else None
        indices = list(idx.items) if type(idx) in (ir.ListExpr, ir.TupleExpr) else ([idx] if idx is not None else [])
        for x in indices:
            xt = self._type_of(x)
            if isinstance(xt, ir.Type) and not (isinstance(xt, ir.ScalarType) and xt.dtype in INT_DTYPES):
                raise DslError(f"predicate indices must be integer scalars, got {print_type_text(xt)}", v)
            if type(x) is ir.IntConst and x.value < 0:
                raise DslError(f"predicate index must be non-negative, got {x.value}; the runtime stores indices as "
                               "uint32_t, so a negative value wraps to an out-of-bounds address", v)
        if len(indices) != len(t.shape):
            raise DslError(f"predicate needs {len(t.shape)} index(es) to locate a single element of a "
                           f"rank-{len(t.shape)} tensor, got {len(indices)}", v)
        return e

    def _type_of(self, x):
        """The type of an expression already read (a var's, a constant's, a call's)."""
        if type(x) is ir.Name:
            return self.key_types.get(x.id)
        if type(x) is ir.IntConst:
            return scalar("INDEX")
        return self.type_of_expr(x)

    def core_num_expr(self, v) -> Val:
        """An SPMD ``core_num``: an integer expression, positive when constant (AP:4009-4036)."""
        val = self.expr(v)
        if not (isinstance(val.type, ir.ScalarType) and val.type.dtype in INT_DTYPES):
            raise DslError(f"core_num must be an integer expression, got {print_type_text(val.type)}", v)
        if type(val.expr) is ir.IntConst and val.expr.value <= 0:
            raise DslError(f"core_num must be a positive integer, got {val.expr.value}", v)
        return val

    def unmasked(self, v):
        """``v`` with the placeholder of a ``with`` header's comprehension (reading.py
        _header_comprehensions) put back, as the list entry or the whole value."""
        comps = self.ctx.comprehensions
        if not comps:
            return v
        if type(v) is ir.Name and v.id in comps:
            return comps[v.id]
        if type(v) in (ir.ListExpr, ir.TupleExpr) and any(type(x) is ir.Name and x.id in comps for x in v.items):
            return ir.replace(v, items=tuple(comps[x.id] if type(x) is ir.Name and x.id in comps else x
                                          for x in v.items))
        return v

    def deps_list(self, v, method: str, anchor=None):
        """``deps=[...]`` of a submit or a scope (ast_parser.py:6856-6977): ``None`` entries
        dropped; TaskId / TASK_ID-array vars kept as written; when an entry reads one slot
        of a TASK_ID array (``arr[i]``) every entry goes into a fresh
        ``_submit_deps_buf`` array, built right before.  None: nothing to print."""
        v = self.unmasked(v)
        at = v if anchor is None else anchor             # where a comprehension's error points
        if is_listcomp(v):                   # Form 2: the comprehension unrolled
            items = unroll_deps(self, v, method, at)
        elif type(v) in (ir.ListExpr, ir.TupleExpr):
            items = [y for x in v.items for y in (unroll_deps(self, x, method, at) if is_listcomp(x) else [x])]
        else:
            raise DslError(f"'{method}' deps= must be a list / tuple / comprehension of TaskId values", v)
        from tilemem.frontend.dsl.types import array_dtype, array_type
        entries, desugar, whole = [], False, False
        for x in items:
            if type(x) is ir.NoneConst:
                continue
            d = self.expr(x)
            t = d.type
            if d.var is not None and (isinstance(t, ir.ScalarType) and t.dtype == "TASK_ID"
                                      or array_dtype(t) == "TASK_ID"):
                is_array = array_dtype(t) == "TASK_ID"
                if is_array and desugar:
                    raise DslError(f"'{method}' deps= cannot mix a whole TASK_ID array with per-element "
                                   f"entries (got array entry '{self.source_of(x)}' after a per-element / "
                                   "comprehension entry)", x)
                whole = whole or is_array
                entries.append(d.expr)
                continue
            if type(d.expr) is ir.Call and d.expr.func == syntax_op("array_get") and \
                    isinstance(t, ir.ScalarType) and t.dtype == "TASK_ID":
                if whole:
                    raise DslError(f"'{method}' deps= cannot mix a whole TASK_ID array with per-element "
                                   f"entries (got per-element entry '{self.source_of(x)}' after a "
                                   "whole-array entry)", x)
                entries.append(d.expr)
                desugar = True
                continue
            raise DslError(f"'{method}' deps= entries must be a TaskId variable, a TASK_ID array element "
                           f"(e.g. `arr[i]`), or None — got '{self.source_of(x)}'", x)
        if not entries:
            return None
        if not desugar:
            return ir.ListExpr(tuple(entries))
        n = len(entries)
        t = array_type(ir.IntConst(n), "TASK_ID")
        line, col = v.line, v.col
        buf = self.new_var("_submit_deps_buf", t)
        self.emit(ir.Assign([buf.key], t, ir.Call(syntax_op("array_create"), (ir.IntConst(n),),
                                                  (("dtype", dotted("pl", "TASK_ID")),)), line=line, col=col))
        for i, e in enumerate(entries):
            prev = buf
            buf = self.new_var("_submit_deps_buf", t)
            self.emit(ir.Assign([buf.key], t, ir.Call(syntax_op("array_set"),
                                                      (ir.Name(prev.key), ir.IntConst(i), e)), line=line, col=col))
        return ir.ListExpr((ir.Name(buf.key),))

    def _submit_assign(self, s: ir.Assign):
        self._submit_unpack(s.targets, s.value, s)

    def _submit_unpack(self, targets: list, call: ir.Call, s):
        """``out, tid = pl.submit(...)`` or ``(a, b), tid = ...`` for a kernel of several
        results (AP:1997-2085): ``_submit_tmp``, then one binding per result and the task id.
        ``targets``: names, a list for a tuple, a 1-tuple of text for anything else."""
        construct = call.func.split(".", 1)[1]
        if len(targets) != 2:
            raise DslError(f"pl.{construct}(...) must be unpacked as exactly 2 targets (result, task_id), got "
                           f"{len(targets)}", call)
        out, tid = targets
        if type(tid) is not str:
            raise DslError(f"pl.{construct}(...) task_id target must be a plain variable name", call)
        if type(out) is tuple:
            raise DslError(f"pl.{construct}(...) result target must be a variable name or a tuple of names", call)
        outs = [out] if type(out) is str else out
        for x in outs:
            if type(x) is not str:
                shown = x[0] if type(x) is tuple else _shape_text(x)
                raise DslError(f"pl.{construct}(...) result target must contain plain variable names only "
                               f"(no nested tuples), got '{shown}'", call)
        val = self.submit(call)
        n = len(val.type.items) - 1
        if n != len(outs):
            kname = call.args[0].parts[1]
            raise DslError(f"pl.{construct}(...) unpacks {len(outs)} result value(s) but kernel '{kname}' "
                           f"returns {n}", call)
        tmp = self.new_var("_submit_tmp", val.type)
        self.emit(ir.Assign([tmp.key], val.type, val.expr, line=s.line, col=s.col))
        for i, name in enumerate(outs + [tid]):
            item = Val(ir.Subscript(ir.Name(tmp.key), (ir.IntConst(i),)), val.type.items[i])
            self.assign_or_let(name, item, s)
