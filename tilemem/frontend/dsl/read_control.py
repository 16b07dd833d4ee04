"""Control flow: if, while, for loops of every kind, scopes (pl.at, pl.spmd, split_aiv,
manual), with statements."""
from __future__ import annotations

import keyword

from tilemem import ir
from tilemem.frontend.dsl.context import (
    LEVELS, LEVEL_ALIASES, ROLES, _ITERATORS, _ITER_ERR, _col0, _pl_call,
)
from tilemem.frontend.dsl.exprs import const_value
from tilemem.frontend.dsl.statement_forms import (
    _SCOPE_KWARGS, _SPLIT_MODES, _at_positional, _dispatch_count, _enum_kw, _incore_carrier,
    _is_core_group, _optimizations, _reads_block_idx, _reads_block_idx_ir, _spmd_core_num,
    _trailing_yield, _user_split,
)
from tilemem.frontend.dsl.types import print_type_text
from tilemem.frontend.dsl.values import DslError, UNKNOWN, Val, const_int, dotted, scalar
from tilemem.frontend.dsl.wrappers import syntax_op



class ControlFlowReading:
    """Mixin of :class:`~tilemem.frontend.dsl.function_reader.FunctionReader`: control flow: if, while, for loops of every kind, scopes (pl.at, pl.spmd, split_aiv,."""

    # -- control flow ------------------------------------------------------------------------------
    def _check_bool(self, v: Val, kind: str, node):
        t = v.type
        if not isinstance(t, ir.ScalarType) or t.dtype != "BOOL":
            shown = print_type_text(t) if isinstance(t, ir.Type) else str(t)
            raise DslError(f"{kind} condition must be a Bool-typed scalar expression, got {shown}", node)

    def _if(self, s: ir.If):
        cond = self.expr(s.cond)
        self._check_bool(cond, "if", s)
        scanned = self._scan_yields(s.then_body)
        names = [n for n, _, _ in scanned]
        anns = {}
        for n, a, _ in scanned:
            anns.setdefault(n, a)
        if s.else_body:
            for n, a, _ in self._scan_yields(s.else_body):
                if n not in anns:
                    names.append(n)
                    anns[n] = a
        names = list(dict.fromkeys(names))
        leak = not names
        saved = (self.yield_vars, self.yield_types, self.yield_stmts, self.in_if)
        self.yield_vars, self.yield_types, self.yield_stmts = [], {}, []
        self.in_if = True
        self.blocks.append([])
        self.enter_scope()
        self.body(s.then_body)
        if s.then_body:
            self.comments.discard_tail(s.then_body[0].line or 1, _col0(s.then_body[0]), self._then_upper(s))
        self.exit_scope(leak)
        then_body = self.blocks.pop()
        else_body = None
        if s.else_body:
            self.blocks.append([])
            self.enter_scope()
            self.body(s.else_body)
            self.comments.discard_tail(s.else_body[0].line or 1, _col0(s.else_body[0]), self.extent.end(s))
            self.exit_scope(leak)
            else_body = self.blocks.pop() or None
        types = dict(self.yield_types)
        self.yield_vars, self.yield_types, self.yield_stmts, self.in_if = saved
        self.in_if = False
        rvars = []
        for n in names:
            a = anns.get(n)
            if a is not None:
                t = self._yield_annotation(a)
            elif n in types:
                t = types[n]
            else:
                t = ir.TensorType((ir.IntConst(1),), "INT32")
            rvars.append(self.new_var(n, t))
        if rvars:
            for body in (then_body, else_body or []):
                y = _trailing_yield(body)
                if y is not None and len(y.values) >= 1:
                    y.targets = [v.key for v in rvars[:max(len(y.values), 1)]] if len(rvars) > 1 else [rvars[0].key]
                    y.target_types = [v.type for v in rvars]
                    if len(rvars) > 1:
                        y.targets = [v.key for v in rvars]
        self.emit(ir.If(cond.expr, then_body, else_body, line=s.line, col=s.col))
        for n, v in zip(names, rvars):
            self.define(n, v, s)

    def _yield_annotation(self, a):
        t = self._annotation(a, a)
        if isinstance(t, list):
            if not t:
                return ir.TensorType((ir.IntConst(1),), "INT32")
            return t[0] if len(t) == 1 else ir.TupleType(tuple(t))
        return t if t is not None else UNKNOWN

    def _then_upper(self, s: ir.If) -> int:
        return self.extent.then_upper(s)

    def _while(self, s: ir.While):
        cond = self.expr(s.cond)
        self._check_bool(cond, "while", s)
        saved = (self.in_while,)
        self.in_while = True
        self.loop_kinds.append("while")
        self.blocks.append([])
        self.enter_scope()
        self.body(s.body)
        if s.body:
            self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        self.exit_scope(True)
        body = self.blocks.pop()
        self.loop_kinds.pop()
        (self.in_while,) = saved
        self.emit(ir.While(cond.expr, body, line=s.line, col=s.col))

    def _for(self, s: ir.For):
        it = s.iter
        kind = it.func.rsplit(".", 1)[-1]
        if "." not in it.func or kind not in _ITERATORS:
            raise DslError(_ITER_ERR, it)
        if kind == "while_":
            return self._while_for(s)
        if kind in ("spmd", "split_aiv"):
            return self._scope_loop(s, kind)
        simple = not s.iter_args
        if s.loop_var is None:
            raise DslError("For loop target must be a simple name or: (loop_var, (iter_args...))", s)
        if not it.args:
            raise DslError(f"pl.{kind}() requires at least 1 argument (stop)", it)
        bounds = [self.expr(a) for a in it.args[:3]]
        init_vals: list = []
        attrs = None
        stage = None
        for k, v in it.kwargs:
            if k == "init_values":
                if type(v) not in (ir.TupleExpr, ir.ListExpr):
                    raise DslError("init_values must be a list or tuple", v)
                init_vals = [self.expr(x) for x in v.items]
            elif k == "attrs":
                attrs = v
            elif k == "stage" and kind == "pipeline":
                stage = v
            elif k == "stage":
                raise DslError(f"stage= is only supported on pl.pipeline(), not pl.{kind}()", it)
            else:
                raise DslError(f"Unknown keyword argument '{k}' in pl.{kind}()", it)
        if simple and init_vals:
            raise DslError("For loop target must be a tuple when init_values is provided", s)
        if init_vals and self._bare_yield(s.body):
            raise DslError("Loop with init_values requires an assignment-form pl.yield_(...) — the LHS supplies "
                           "the post-loop binding name. Bare pl.yield_(...) is rejected here.", s)
        if kind == "unroll":
            if init_vals:
                raise DslError("pl.unroll() cannot be combined with init_values", it)
            for b in bounds:
                if type(b.expr) is not ir.IntConst:
                    raise DslError("pl.unroll() requires compile-time constant integer bounds", it)
            if len(bounds) == 3 and bounds[2].expr.value == 0:
                raise DslError("pl.unroll() step cannot be zero", it)
        if kind == "pipeline":
            if stage is None:
                raise DslError("pl.pipeline() requires stage= (positive integer)", it)
            if type(stage) is not ir.IntConst:
                raise DslError("pl.pipeline() stage must be a compile-time constant integer", it)
            if stage.value < 1:
                raise DslError(f"pl.pipeline() stage must be >= 1, got {stage.value}", it)
        if len(bounds) == 1:
            start, stop, step = const_int(0), bounds[0], const_int(1)
        elif len(bounds) == 2:
            start, stop, step = bounds[0], bounds[1], const_int(1)
        else:
            start, stop, step = bounds
        ldt = "INDEX"
        saw_index = saw_int64 = False
        for bd in (start, stop, step):
            cv = const_value(bd.expr)
            if cv is not None and cv[0] != "BOOL" and type(bd.expr) in (ir.IntConst, ir.Call):
                if cv[0] == "INDEX":
                    saw_index = True
                elif cv[0] == "INT64":
                    saw_int64 = True
                else:
                    ldt = cv[0]
                    break
        if ldt == "INDEX" and saw_int64 and not saw_index:
            ldt = "INT64"
        loop_var = self.new_var(s.loop_var, scalar(ldt))
        saved = (self.yield_vars, self.yield_types, self.yield_stmts, self.in_for)
        self.in_for = True
        self.loop_kinds.append(kind)
        self.enter_scope()
        self.define(s.loop_var, loop_var, s, allow_redef=True)
        iter_vars = []
        if not simple:
            if len(s.iter_args) != len(init_vals):
                raise DslError(f"Mismatch: {len(s.iter_args)} iter_args but {len(init_vals)} init_values", s)
            for n, iv in zip(s.iter_args, init_vals):
                v = self.new_var(n, iv.type, iter_arg=True)
                iter_vars.append(v)
                self.define(n, v, s, allow_redef=True)
        self.yield_vars, self.yield_types, self.yield_stmts = [], {}, []
        self.blocks.append([])
        with self._loop_masks_errors("For", len(iter_vars)):
            self.body(s.body)
        if s.body:
            self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        out_names = list(self.yield_vars)
        body = self.blocks.pop()
        self.exit_scope(simple and not out_names)
        self.loop_kinds.pop()
        self.yield_vars, self.yield_types, self.yield_stmts, self.in_for = saved
        rvars = []
        if not simple:
            if out_names:
                if len(out_names) != len(iter_vars):
                    raise DslError(f"Failed to parse function '{self.raw.name.value}': For loop has "
                                   f"{len(iter_vars)} iteration arguments but {len(out_names)} return variables. "
                                   "They must match.", s)
                rvars = [self.new_var(n, iv.type) for n, iv in zip(out_names, iter_vars)]
                y = _trailing_yield(body)
                if y is not None:
                    y.targets = [v.key for v in rvars]
                    y.target_types = [v.type for v in rvars]
            else:
                rvars = [self.new_var(f"{iv.hint}_out", iv.type) for iv in iter_vars]
        kws = []
        if stage is not None:
            kws.append(("stage", ir.IntConst(stage.value)))
        if init_vals:
            kws.append(("init_values", ir.TupleExpr(tuple(v.expr for v in init_vals))))
        if attrs is not None:
            kws.append(("attrs", self._loop_attrs(attrs)))
        hdr = self._bounds(start, stop, step)
        call = ir.Call(f"pl.{kind}", tuple(hdr), tuple(kws), it.line, it.col)
        loop = ir.For(loop_var.key, [v.key for v in iter_vars] if not simple else None, call, body,
                      line=s.line, col=s.col)
        self.emit(loop)
        if out_names:
            for n, v in zip(out_names, rvars):
                self.define(n, v, s)

    def _scope_loop(self, s: ir.For, kind: str):
        """``for blk in pl.spmd(n, ...)`` / ``for aiv in pl.split_aiv(n, mode=...)``: scopes
        (an SPMD grid, the two AIV lanes), printed as loops; the loop var is the block /
        sub-block index (INDEX).  Names bound in the body stay visible after it."""
        it = s.iter
        if s.loop_var is None or s.iter_args:
            raise DslError(f"pl.{kind}() takes one loop variable: for i in pl.{kind}(...)", s)
        if kind == "spmd":
            it = _spmd_core_num(it)
        if len(it.args) != 1:
            raise DslError(f"pl.{kind}() takes the count as its one positional argument", it)
        n = self.core_num_expr(it.args[0]) if kind == "spmd" else self.expr(it.args[0])
        kws = []
        if kind == "split_aiv" and not (type(n.expr) is ir.IntConst and n.expr.value == 2):
            got = n.expr.value if type(n.expr) is ir.IntConst else self.source_of(n.expr)    # AP:4996-5004
            raise DslError(f"pl.split_aiv(n) requires n == 2 (AIV sub-core count is hardware-fixed at 2), "
                           f"got {got}", it.args[0])
        if kind == "split_aiv":
            for k, v in it.kwargs:
                if k != "mode":
                    raise DslError(f"Unknown keyword argument '{k}' in pl.split_aiv()", it)
                if type(v) is not ir.Dotted or v.parts[-2:-1] != ("SplitMode",):
                    raise DslError("pl.split_aiv() mode must be a pl.SplitMode value", v)
                if v.parts[-1] not in _SPLIT_MODES:     # parser/enum_utils.py:95
                    raise DslError(f"Unknown SplitMode value: {v.parts[-1]}", v)
                kws.append(("mode", dotted("pl", "SplitMode", v.parts[-1])))
            if not kws:
                raise DslError("pl.split_aiv() requires mode=pl.SplitMode.<...>", it)
            user = next((m for m in reversed(self.user_splits) if m is not None), None)
            if user is not None:        # AP:841-870: two AIV-split mechanisms on one scope
                raise DslError(f"scope combines a function-level pl.split(pl.SplitMode.{user}) "
                               "(optimizations=[pl.split(...)]) with a pl.split_aiv region; these are mutually "
                               "exclusive AIV-split mechanisms \u2014 the function-level split would be silently "
                               "dropped (the per-region split governs the lanes)", s)
        else:
            for k, v in it.kwargs:
                if k == "deps":     # the loop form has no TaskId (AP:4105-4131)
                    raise DslError("pl.spmd() does not accept 'deps=' here", v)
            self._spmd_in_cluster(s, it)
            kws = list(self._scope_kwargs("spmd", it, loop=True))
        var = self.new_var(s.loop_var, scalar("INDEX"))
        self.define(s.loop_var, var, s, allow_redef=True)
        self.loop_kinds.append(kind)
        self.split_modes.append(kws[0][1] if kind == "split_aiv" else None)
        self.incore_depth += 1
        body = self.block(s)
        self.incore_depth -= 1
        self.split_modes.pop()
        self.loop_kinds.pop()
        call = ir.Call(it.func.rsplit(".", 1)[0] + "." + kind, (n.expr,), tuple(kws), it.line, it.col)
        loop = ir.For(var.key, None, call, body, line=s.line, col=s.col)
        if kind == "split_aiv" and not self.incore_depth and self.func_type != "InCore":
            # outside an InCore scope or function the split region opens its own InCore
            # scope, even in an AIC / AIV function (AP:5035-5056)
            at_kws = self._with_dumps([("level", dotted("pl", "Level", "CORE_GROUP"))], _SCOPE_KWARGS["at"])
            loop = ir.With(ir.Call("pl.at", (), tuple(at_kws)), None, [loop], line=s.line, col=s.col)
        self.emit(loop)

    def _scope_kwargs(self, name: str, item: ir.Call, loop: bool = False) -> list:
        """The keyword arguments of a scope construct, checked, in printed order."""
        order = _SCOPE_KWARGS[name]
        given = dict(item.kwargs)
        for k in given:
            if k not in order:
                raise DslError(f"Unknown keyword argument '{k}' in pl.{name}()", item)
        kws = []
        for k in order:
            if k not in given:
                continue
            v = given[k]
            if k == "level":
                lv = v.parts[-1] if type(v) is ir.Dotted else None
                lv = LEVEL_ALIASES.get(lv, lv)
                if lv not in LEVELS:
                    raise DslError(f"Unknown Level value: {self.source_of(v)}", v)
                kws.append((k, dotted("pl", "Level", lv)))
            elif k == "role":
                rv = v.parts[-1] if type(v) is ir.Dotted else None
                if rv not in ROLES:
                    raise DslError(f"Unknown Role value: {self.source_of(v)}", v)
                kws.append((k, dotted("pl", "Role", rv)))
            elif k == "name_hint":
                if type(v) is not ir.StrConst:
                    raise DslError("name_hint must be a string literal", v)
                hint = self.string_value(v)
                if hint and (not hint.isidentifier() or keyword.iskeyword(hint)):
                    raise DslError(f"pl.{name}() 'name_hint' must be a valid non-keyword identifier, got {hint!r}", v)
                if loop and hint and not hint.endswith("_spmd"):
                    hint += "_spmd"         # the loop form names its Spmd scope (ast_parser.py:585-600)
                kws.append((k, ir.StrConst(hint, '"')))
            elif k in ("sync_start", "allow_early_resolve", "windowize"):
                if type(v) is not ir.BoolConst:     # AP:3575-3588 (pl.at), 4078-4090 (pl.spmd)
                    who = "pl.at() " if name == "at" else ""
                    raise DslError(f"{who}{k} must be a boolean literal (True/False)", v)
                if v.value:
                    kws.append((k, v))
            elif k == "optimizations":
                if type(v) is not ir.ListExpr:
                    raise DslError(f"pl.{name}(optimizations=...) must be a list literal", v)
                entries = _optimizations(self, v, f"pl.{name}")
                if entries:             # nothing to print: no optimization (or SplitMode.NONE alone)
                    kws.append((k, ir.ListExpr(entries)))
            elif k == "deps":
                deps = self.deps_list(v, f"pl.{name}()")
                if deps is not None:
                    kws.append((k, deps))
            elif k in ("no_dep_args", "dumps") and name == "at" and \
                    not self._at_tensor_names(k, v) and type(v) is ir.ListExpr:
                continue                # an empty var list is not printed (python_printer.cpp:1912-1933)
            elif k in ("no_dep_args", "dumps") and type(v) is ir.ListExpr and not v.items:
                continue
            elif k == "predicate":
                kws.append((k, self.predicate_expr(v, f"pl.{name}()")))
            else:                       # no_dep_args / dumps: expressions
                kws.append((k, self.expr(v).expr))
        return kws

    def _spmd_in_cluster(self, s, item: ir.Call) -> None:
        """A pl.spmd nested in pl.cluster() is unwrapped into the Group function and never
        becomes a Submit: what only a Submit carries is rejected (AP:4263-4292, 4720-4728)."""
        if not self.cluster_depth:
            return
        if getattr(s, "as_name", None) is not None:
            raise DslError("`with pl.spmd(...) as tid:` cannot capture a TaskId when nested inside `pl.cluster()` "
                           "— a cluster-nested pl.spmd is unwrapped into the Group function and never produces a "
                           "Submit.", s)
        given = dict(item.kwargs)
        early = given.get("allow_early_resolve")
        if type(early) is ir.BoolConst and early.value:
            kwarg, lost = "allow_early_resolve=True", "the early-dispatch hint"
        elif given.get("predicate") is not None:
            kwarg, lost = "predicate=(...)", "the dispatch predicate"
        else:
            return
        raise DslError(f"`pl.spmd(..., {kwarg})` cannot be nested inside `pl.cluster()` — a cluster-nested "
                       f"pl.spmd is unwrapped into the Group function and never produces a Submit, so {lost} "
                       "would be lost.", s)

    def _at_tensor_names(self, k: str, v) -> list:
        """``pl.at(no_dep_args=[...])`` / ``pl.at(dumps=[...])``: distinct bare names of tensors
        (AP:5410-5520)."""
        if type(v) not in (ir.ListExpr, ir.TupleExpr):
            raise DslError(f"pl.at({k}=...) must be a list literal of tensor names", v)
        seen, out = set(), []
        for x in v.items:
            if type(x) is not ir.Name:
                raise DslError(f"pl.at({k}=[...]) entries must be bare tensor names", x)
            var = self.lookup(x.id)
            if var is None:
                raise DslError(f"pl.at({k}=[...]) references unknown name '{x.id}'", x)
            if not isinstance(var.type, ir.TensorType):
                raise DslError(f"pl.at({k}=[...]) entry '{x.id}' is not a tensor (got type "
                               f"{print_type_text(var.type)})", x)
            if id(var) in seen:
                raise DslError(f"pl.at({k}=[...]) lists '{x.id}' more than once", x)
            seen.add(id(var))
            out.append(var)
        return out

    def shard(self, name: str, call: ir.Call) -> Val:
        """``pl.aiv_shard(x)`` / ``pl.aic_gather(x)``: the split mode is the enclosing
        ``pl.split_aiv``'s; stored without ``split=`` (the printer suppresses it there).
        The outlined form ``pl.tile.aiv_shard(t, split=N[, lane_stride=M])`` carries the
        split itself, outside any split_aiv loop, on a tile only (AP:6270-6390)."""
        mode = next((m for m in reversed(self.split_modes) if m is not None), None)
        split = lane = None
        for k, v in call.kwargs:
            if k == "split":
                split = v
            elif k == "lane_stride":
                lane = v
            elif k == "mode":
                raise DslError(f"pl.{name}() does not take a mode= argument \u2014 pass the lowered integer "
                               "'split=' (outlined form) or rely on the enclosing pl.split_aiv(mode=...) scope "
                               "(high-level form)", call)
            else:
                raise DslError(f"pl.{name}() does not accept keyword argument '{k}'", call)
        if len(call.args) != 1:
            raise DslError(f"pl.{name}() takes exactly one positional argument (the tile to "
                           f"{'shard' if name == 'aiv_shard' else 'gather'}), got {len(call.args)}", call)
        x = self.expr(call.args[0])
        from tilemem.frontend.dsl.operands import is_dist
        if is_dist(x.type):
            raise DslError(f"pl.{name} does not support distributed tensors (AIV/AIC split only)", call)
        ns = "tensor" if isinstance(x.type, ir.TensorType) else "tile"
        if split is not None:
            if mode is not None:
                raise DslError(f"pl.{name}() does not take a split= argument inside a 'for ... in "
                               "pl.split_aiv(...)' loop \u2014 the split mode is inherited from that scope", call)
            if isinstance(x.type, ir.TensorType):
                raise DslError(f"pl.{name}(..., split=N) does not accept a high-level Tensor operand \u2014 the "
                               "outlined split= form is tile-only. Wrap the Tensor in a 'for aiv_id in "
                               "pl.split_aiv(...)' region instead, which supplies the split mode and lowers to "
                               "the tile op.", call)
            if type(split) is not ir.IntConst:
                raise DslError(f"pl.{name}(..., split=N) requires an integer split (the lowered SplitMode "
                               f"value), got '{self.source_of(split)}'", call)
            kws = [("split", ir.IntConst(split.value))]
            if lane is not None:
                if name == "aic_gather":
                    raise DslError("pl.aic_gather() does not take a lane_stride= argument: only the Cube -> "
                                   "Vector shard is ever rebalanced onto a ragged boundary's valid region, so "
                                   "the gather always re-joins the lanes on the box partition", call)
                if type(lane) is not ir.IntConst:
                    raise DslError(f"pl.{name}(..., lane_stride=N) requires an integer partition stride, got "
                                   f"'{self.source_of(lane)}'", call)
                kws.append(("lane_stride", ir.IntConst(lane.value)))
            mode = kws[0][1]
            stored = ir.Call(f"pl.{ns}.{name}", (x.expr,), tuple(kws), call.line, call.col)
        elif mode is None:
            raise DslError(f"pl.{name}() must be used inside a 'for ... in pl.split_aiv(...)' loop (or pass an "
                           "explicit integer 'split=' in the outlined form); it otherwise inherits the split mode "
                           "from that scope", call)
        elif lane is not None:
            raise DslError(f"pl.{name}() does not take a lane_stride= argument inside a 'for ... in "
                           "pl.split_aiv(...)' loop \u2014 the partition follows the region's own per-lane offsets",
                           call)
        else:
            stored = ir.Call(f"pl.{ns}.{name}", (x.expr,), (), call.line, call.col)
        from tilemem.ir import typerules
        kwargs = {"split": mode} if lane is None else {"split": mode, "lane_stride": lane}
        try:
            if isinstance(x.type, ir.TensorType):
                return Val(stored, self._tensor_split_reshape(f"tensor.{name}", x.type, kwargs, name == "aiv_shard"))
            t = typerules.derive_result_type(f"{ns}.{name}", [typerules.ArgInfo(x.expr, x.type)], kwargs)
        except typerules.DeductionError as e:      # the parser's own create_op_call: parse_function wraps it
            raise DslError(f"Failed to parse function '{self.fname}': {e}", None,
                           self.raw.deftok.line, self.raw.deftok.column) from None
        if t is None:
            t = x.type
        return Val(stored, t)

    @staticmethod
    def _tensor_split_reshape(op: str, t: ir.TensorType, kwargs, halve: bool) -> ir.TensorType:
        """DeduceSplitReshapeTensor (tile_ops/cross_core.cpp:384-436): NONE keeps the operand's
        type; otherwise a 2D tensor whose split axis is halved / doubled as the tile form's,
        viewed only where the reshaped valid shape is a genuine partial."""
        from tilemem.ir import typerules
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        split = typerules.split_code(op, kwargs)
        if split == 0:
            return t
        if len(t.shape) != 2:
            raise typerules.DeductionError(
                f"{op} requires a 2D tensor, but got rank {len(t.shape)}. Reshape the operand to 2D (pl.reshape) "
                "before the shard / gather so the UP_DOWN / LEFT_RIGHT split axis is unambiguous.")
        valid = tuple(view_parts(t.view)[0] or t.shape)
        if halve:
            typerules.check_split_boundary_valid(op, t.shape, valid, split - 1)
        shape, valid = typerules.split_reshape(t.shape, valid, split - 1, halve)
        from tilemem.ir.symbolic import finalize_dims
        shape, valid = finalize_dims(shape), finalize_dims(valid)
        return ir.TensorType(shape, t.dtype, tensor_view_expr(valid, (), "ND", None, shape))

    def _bounds(self, start: Val, stop: Val, step: Val) -> list:
        def is_idx(v, n):
            return type(v.expr) is ir.IntConst and v.expr.value == n
        if is_idx(start, 0) and is_idx(step, 1):
            return [stop.expr]
        if is_idx(step, 1):
            return [start.expr, stop.expr]
        return [start.expr, stop.expr, step.expr]

    def _loop_attrs(self, e) -> ir.Expr:
        if type(e) is not ir.DictExpr:
            raise DslError('attrs must be a dict literal', e)
        items = []
        for k, v in e.items:
            if type(k) is not ir.StrConst:
                raise DslError("attrs keys must be string literals", k)
            if type(v) not in (ir.IntConst, ir.FloatConst, ir.BoolConst, ir.StrConst):
                if not (type(v) is ir.UnaryOp and type(v.operand) in (ir.IntConst, ir.FloatConst)):
                    raise DslError(f"Unsupported value type for attrs key '{self.string_value(k)}'", v)
            if type(v) is ir.StrConst:
                v = self.quoted(v)
            elif type(v) is ir.FloatConst:
                from tilemem.frontend.dsl.values import float_text
                v = ir.FloatConst(float_text(float(v.text)))
            items.append((self.quoted(k), v))
        return ir.DictExpr(tuple(items))

    def _bare_yield(self, stmts) -> bool:
        for s in stmts:
            if type(s) is ir.Yield and not s.targets:
                return True
            if type(s) in (ir.If,):
                if self._bare_yield(s.then_body) or self._bare_yield(s.else_body or []):
                    return True
            if type(s) is ir.With:
                if self._bare_yield(s.body):
                    return True
        return False

    def _while_for(self, s: ir.For):
        it = s.iter
        init_vals = []
        for k, v in it.kwargs:
            if k == "init_values":
                if type(v) not in (ir.TupleExpr, ir.ListExpr):
                    raise DslError("init_values must be a list or tuple", v)
                init_vals = [self.expr(x) for x in v.items]
            else:
                raise DslError(f"Unknown keyword argument '{k}' in pl.while_()", it)
        if it.args:
            raise DslError("pl.while_() takes no positional arguments; use init_values=(...)", it)
        if not init_vals:
            raise DslError("pl.while_() requires init_values", it)
        if s.loop_var is not None or not s.iter_args:
            raise DslError("pl.while_() target must be a tuple of iteration variables: for (a, b) in pl.while_(...)", s)
        if len(s.iter_args) != len(init_vals):
            raise DslError(f"Mismatch: {len(s.iter_args)} iter_args but {len(init_vals)} init_values", s)
        if not s.body:
            raise DslError("pl.while_() body cannot be empty", s)
        if self._bare_yield(s.body):
            raise DslError("Loop with init_values requires an assignment-form pl.yield_(...) — the LHS supplies "
                           "the post-loop binding name. Bare pl.yield_(...) is rejected here.", s)
        saved = (self.yield_vars, self.yield_types, self.yield_stmts, self.in_while)
        self.in_while = True
        self.loop_kinds.append("while")
        self.enter_scope()
        iter_vars = []
        for n, iv in zip(s.iter_args, init_vals):
            v = self.new_var(n, iv.type, iter_arg=True)
            iter_vars.append(v)
            self.define(n, v, s, allow_redef=True)
        first = s.body[0]
        self.yield_vars, self.yield_types, self.yield_stmts = [], {}, []
        self.blocks.append([])
        with self._loop_masks_errors("While", len(iter_vars)):
            if not (type(first) is ir.EvalStmt and _pl_call(first.expr, "cond")):
                raise DslError("First statement in pl.while_() body must be pl.cond(condition)", first)
            leading = self._drain(first)
            cexpr = first.expr
            if len(cexpr.args) != 1:
                raise DslError("pl.cond() takes exactly one argument", first)
            cond = self.expr(cexpr.args[0])
            cstmt = ir.EvalStmt(ir.Call(cexpr.func.rsplit(".", 1)[0] + ".cond", (cond.expr,), (), cexpr.line,
                                        cexpr.col), line=first.line, col=first.col)
            if leading:
                # pl.cond is the loop's condition, not a statement: its comments go to the next one
                self.comments.requeue_after(self.extent.end(first), _col0(first), leading)
            self.blocks[-1].append(cstmt)
            self.body(s.body[1:])
        self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        out_names = list(self.yield_vars)
        body = self.blocks.pop()
        self.exit_scope(False)
        self.loop_kinds.pop()
        self.yield_vars, self.yield_types, self.yield_stmts, self.in_while = saved
        self._check_bool(cond, "while", first)
        if out_names and len(out_names) != len(iter_vars):
            raise DslError(f"Failed to parse function '{self.raw.name.value}': While loop has "
                           f"{len(iter_vars)} iteration arguments but {len(out_names)} return variables. "
                           "They must match.", s)
        rvars = [self.new_var(n, iv.type) for n, iv in zip(out_names, iter_vars)] if out_names else \
            [self.new_var(f"{iv.hint}_out", iv.type) for iv in iter_vars]
        if out_names:
            y = _trailing_yield(body)
            if y is not None:
                y.targets = [v.key for v in rvars]
                y.target_types = [v.type for v in rvars]
        call = ir.Call(it.func, (), (("init_values", ir.TupleExpr(tuple(v.expr for v in init_vals))),),
                       it.line, it.col)
        loop = ir.For(None, [v.key for v in iter_vars], call, body, line=s.line, col=s.col)
        self.emit(loop)
        if out_names:
            for n, v in zip(out_names, rvars):
                self.define(n, v, s)

    def _with(self, s: ir.With):
        item = s.item
        if type(item) is not ir.Call or item.func.count(".") != 1:
            raise DslError("Unsupported context manager in with statement", s)
        name = item.func.split(".")[1]
        if s.as_name is not None and name not in ("at", "spmd"):
            raise DslError(f"`with pl.{name}(...) as ...:` is not supported — the `as` clause only applies to "
                           "`with pl.at(...) as tid:` and `with pl.spmd(...) as tid:`", s)
        manual = False
        if name == "scope":
            if item.args:
                raise DslError("pl.scope() takes only a 'mode=' keyword, not positional arguments", s)
            mode = None
            for k, v in item.kwargs:
                if k == "mode":
                    # extract_enum_value (parser/enum_utils.py): pl.ScopeMode.AUTO | MANUAL only
                    if type(v) is ir.NoneConst:
                        raise DslError("Expected pl.ScopeMode.<name>", v)
                    mode = _enum_kw(v, "ScopeMode", ("AUTO", "MANUAL"), "scope")
                else:
                    raise DslError(f"pl.scope() got an unexpected keyword '{k}'", s)
            manual = mode == "MANUAL"
            if mode in (None, "AUTO"):
                if self.auto_scope:
                    raise DslError("a hand-placed AUTO 'with pl.scope()' requires @pl.function(auto_scope=False)", s)
                if self.manual_depth:
                    raise DslError("an AUTO scope may not be nested inside a manual scope", s)
                new_item = ir.Call("pl.scope", (), (), item.line, item.col)
            else:
                new_item = ir.Call("pl.scope", (), (("mode", dotted("pl", "ScopeMode", mode)),),
                                   item.line, item.col)
        elif name == "manual_scope":
            if item.args or item.kwargs:
                raise DslError("pl.manual_scope() does not accept arguments", s)
            manual = True
            new_item = ir.Call("pl.scope", (), (("mode", dotted("pl", "ScopeMode", "MANUAL")),), item.line, item.col)
        elif name == "spmd":
            return self._spmd_with(s, item)
        elif name in _SCOPE_KWARGS:
            if name == "at":
                item = _at_positional(item)
            elif item.args:
                raise DslError(f"pl.{name}() takes keyword arguments only", item)
            kws = self._scope_kwargs(name, item)
            if name == "at":
                if not any(k == "level" for k, _ in item.kwargs):      # AP:3546-3551
                    raise DslError("pl.at() requires a level argument", item)
                kws = self._with_dumps(kws, _SCOPE_KWARGS["at"])
            new_item = ir.Call(f"pl.{name}", (), tuple(kws), item.line, item.col)
        else:
            raise DslError("Unsupported context manager in with statement", s)
        inner = name in ("at", "spmd")
        as_key = None
        if s.as_name is not None:
            tid = self.new_var(s.as_name, scalar("TASK_ID"))
            self.define(s.as_name, tid, s)
            as_key = tid.key
        if manual and self.manual_depth:
            raise DslError("a manual scope may not be nested inside another manual scope", s)
        self.incore_depth += inner
        self.manual_depth += manual
        self.cluster_depth += name == "cluster"
        self.user_splits.append(_user_split(item) if name == "at" else None)
        self.blocks.append([])
        self.body(s.body)
        self.user_splits.pop()
        if s.body:
            self.comments.discard_tail(s.body[0].line or 1, _col0(s.body[0]), self.extent.end(s))
        body = self.blocks.pop()
        self.incore_depth -= inner
        self.manual_depth -= manual
        self.cluster_depth -= name == "cluster"
        self.emit(ir.With(new_item, as_key if name in _SCOPE_KWARGS else None, body, line=s.line, col=s.col))

    def _with_dumps(self, kws: list, order: tuple) -> list:
        """``kws`` with the tensors marked by ``pl.dump_tag`` so far merged into ``dumps``
        (forward-sticky: every scope that becomes a dispatch, ast_parser.py:5097-5147)."""
        tagged = [v for v in self.dump_tagged if isinstance(v.type, ir.TensorType)]
        if not tagged:
            return kws
        kws = list(kws)
        for i, (k, v) in enumerate(kws):
            if k == "dumps" and type(v) is ir.ListExpr:
                have = {x.id for x in v.items if type(x) is ir.Name}
                kws[i] = (k, ir.ListExpr(tuple(v.items) + tuple(ir.Name(t.key) for t in tagged
                                                                if t.key not in have)))
                return kws
        kws.append(("dumps", ir.ListExpr(tuple(ir.Name(t.key) for t in tagged))))
        pos = {k: i for i, k in enumerate(order)}
        return sorted(kws, key=lambda kv: pos.get(kv[0], len(order)))

    def _spmd_with(self, s: ir.With, item: ir.Call):
        """``with pl.spmd(n, ...) [as tid]:`` (ast_parser.py:4418-4580), built as PyPTO builds
        it -- an Spmd scope, around an InCore scope when the body does the per-block work
        itself (reads ``get_block_idx()``) or carries optimizations -- and in the shape
        PyPTO's printer gives it back (python_printer.cpp:2080-2190): ``for i in pl.spmd``
        when the InCore body starts with ``i = pl.tile.get_block_idx()``, the InCore
        statements inline under ``with pl.spmd(...) as tid:``, else the scopes as built."""
        item = _spmd_core_num(item)
        n = self.core_num_expr(item.args[0]).expr
        raw_opt = dict(item.kwargs).get("optimizations")
        has_opt = type(raw_opt) is ir.ListExpr and bool(raw_opt.items)
        carrier = _incore_carrier(s.body)
        if carrier is not None:
            if has_opt:
                twice = any(k == "optimizations" and type(v) is ir.ListExpr and v.items
                            for k, v in carrier.item.kwargs)
                where = ("is specified twice: on `pl.spmd(...)` and on the inner" if twice else
                         "belongs on the InCore scope, but the body already provides one as the inner")
                raise DslError(f"`optimizations=` {where} `pl.at(level=pl.Level.CORE_GROUP, ...)`", s)
            needs_incore = False
        else:
            inline = _reads_block_idx(s.body)
            ndisp = 0 if inline else _dispatch_count(s.body)
            if not inline and ndisp == 0:
                raise DslError("`with pl.spmd(...)` body neither reads the per-block index via "
                               "`pl.tile.get_block_idx()` nor dispatches a `self.<kernel>(...)` call, "
                               "so every block would run identical work.", s)
            if ndisp > 1:
                raise DslError(f"`with pl.spmd(...)` dispatch body launches {ndisp} kernels; only one "
                               "kernel dispatch per SPMD scope is supported.", s)
            needs_incore = inline or has_opt
        # an InCore scope built here takes the hint, the Spmd scope "<hint>_spmd" (ast_parser.py:586)
        if s.as_name is None:
            for k, v in item.kwargs:
                if k == "deps":     # no TaskId to hang the edges on (AP:4105-4131)
                    raise DslError("pl.spmd() does not accept 'deps=' here", v)
        self._spmd_in_cluster(s, item)
        kws = self._scope_kwargs("spmd", item, loop=needs_incore)
        opt = [kv for kv in kws if kv[0] == "optimizations"]
        hint = next((v.value for k, v in kws if k == "name_hint"), "")
        plain = [kv for kv in kws if kv[0] != "optimizations"]
        as_key = None
        if s.as_name is not None:
            tid = self.new_var(s.as_name, scalar("TASK_ID"))
            self.define(s.as_name, tid, s)
            as_key = tid.key
        self.incore_depth += 1
        body = self.block(s)
        self.incore_depth -= 1
        if needs_incore:
            at_kws = [("level", dotted("pl", "Level", "CORE_GROUP"))] + opt
            if hint:
                at_kws.append(("name_hint", ir.StrConst(hint[:-len("_spmd")], '"')))
            at_kws = self._with_dumps(at_kws, _SCOPE_KWARGS["at"])
            incore = ir.With(ir.Call("pl.at", (), tuple(at_kws)), None, body, line=s.line, col=s.col)
        elif len(body) == 1 and type(body[0]) is ir.With and body[0].item.func == "pl.at" and \
                _is_core_group(body[0].item):
            incore = body[0]
        else:
            incore = None
        line, col = s.line, s.col
        if incore is not None:
            inc_opt = [kv for kv in incore.item.kwargs if kv[0] == "optimizations"]
            ib = incore.body
            first = ib[0] if ib else None
            if as_key is None and type(first) is ir.Assign and type(first.value) is ir.Call and \
                    first.value.func == syntax_op("block_index") and len(first.targets) == 1:
                # the for-form: the leading block-index read is the loop var
                order = {k: i for i, k in enumerate(_SCOPE_KWARGS["spmd"])}
                fkws = sorted(plain + inc_opt, key=lambda kv: order[kv[0]])
                call = ir.Call(item.func.rsplit(".", 1)[0] + ".spmd", (n,), tuple(fkws), item.line, item.col)
                rest = ib[1:] or [ir.Pass(line=line, col=col)]
                self.emit(ir.For(first.targets[0], None, call, rest, line=line, col=col))
                return
            if as_key is not None and (inc_opt or _reads_block_idx_ir(ib)):
                order = {k: i for i, k in enumerate(_SCOPE_KWARGS["spmd"])}
                tkws = sorted(plain + inc_opt, key=lambda kv: order[kv[0]])
                self.emit(ir.With(ir.Call("pl.spmd", (n,), tuple(tkws), item.line, item.col), as_key,
                                  ib, line=line, col=col))
                return
            body = [incore] if needs_incore else body
        self.emit(ir.With(ir.Call("pl.spmd", (n,), tuple(plain), item.line, item.col), as_key, body,
                          line=line, col=col))
