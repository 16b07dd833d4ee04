"""Result types of the DSL's scalar, array, handle, system and distributed ops
(``pl.system.*``, ``pld.*``), as the op caller's ``_rt_*`` rules."""
from __future__ import annotations


from tilemem import ir
from tilemem.frontend.dsl.exprs import DT_NAME, const_value
from tilemem.frontend.dsl.operands import dtype_or_name, is_dist, printed_type, type_name
from tilemem.frontend.dsl.types import array_dtype, array_type, tile_type
from tilemem.frontend.dsl.values import FLOAT_DTYPES, INT_DTYPES, UNKNOWN, DslError, dotted, scalar
from tilemem.ir import typerules, views

__all__ = ["SystemResultTypes"]

_MIN_FFTS_WORKSPACE = 256       # ir/op/system_ops.py _MIN_FFTS_WORKSPACE_ELEMENTS


class SystemResultTypes:
    """Mixin of the op caller: the result rules of scalar, array, handle, system and
    distributed ops (``ops.txt``'s ``: RULE``)."""

    def _rt_scalar(self, call, arg, spec, b):
        return scalar(arg)

    def _rt_unknown(self, call, arg, spec, b):
        return UNKNOWN

    def _rt_array(self, call, arg, spec, b):
        e = call.args[0]
        if type(e) is ir.IntConst and e.value <= 0:         # array_ops/memory.cpp:68
            raise DslError(f"{call.op} extent must be positive, got {e.value}")
        return array_type(call.args[0], self._dtype_arg(b["dtype"]))

    def _rt_array_element(self, call, arg, spec, b):
        t = self._arg_type(call, 0)
        dt = array_dtype(t)
        if dt is None:
            raise DslError(f"{spec.qualified}: expected an Array operand")
        return scalar(dt)

    def _rt_ptr(self, call, arg, spec, b):
        return ir.OpaqueType(dotted("pl", "Ptr"))

    # -- async prefetch handles (prefetch_async.cpp): opaque marker types ----------------------
    def _rt_handle(self, call, arg, spec, b):
        return ir.OpaqueType(dotted("pl", arg))

    def _expect_handle(self, call, i, kind: str, expects: str) -> None:
        """Argument ``i`` must be a ``kind`` handle, else the call is rejected as PyPTO
        rejects it: ``"<expects>, got <its type>"``."""
        t = self._arg_type(call, i)
        if isinstance(t, ir.OpaqueType) and t.expr == dotted("pl", kind):
            return
        got = type_name(t)
        if got:
            raise DslError(f"{expects}, got {got}")

    def _rt_async_prefetch(self, call, arg, spec, b):
        # CheckFlatContiguous1DSource: a static, logically 1-D GM tensor
        name, t = spec.irop, self._arg_type(call, 0)
        if type(call.args[0]) is not ir.Name:
            raise DslError(f"{name} expects src to be a Var or IterArg")
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{name} expects src to be a GM Tensor (prefetch reads global memory), got {type_name(t)}")
        if not t.shape:
            raise DslError(f"{name} expects src to have rank >= 1, got a rank-0 tensor")
        dims = []
        for i, d in enumerate(t.shape):
            cv = const_value(d)
            if cv is None:
                raise DslError(f"{name} expects src to have a fully static shape, but dimension {i} is dynamic; "
                               "async prefetch needs a compile-time byte extent")
            dims.append(cv[1])
        for i, d in enumerate(dims[:-1]):
            if d != 1:
                raise DslError(f"{name} expects src to be a flat contiguous logical 1D GM region (all dimensions "
                               f"except the last must be 1), but dimension {i} is {d}; reshape the tensor to [N] "
                               "or [1, ..., N] before prefetching")
        self._expect_handle(call, 1, "PrefetchAsyncContext",
                            f"{name} expects ctx to be a PrefetchAsyncContext (output of prefetch.make_context)")
        return ir.OpaqueType(dotted("pl", "AsyncEvent"))

    def _rt_prefetch_session(self, call, arg, spec, b):
        self._expect_handle(call, 0, "PrefetchAsyncContext",
                            f"{spec.irop} expects ctx to be a PrefetchAsyncContext (output of prefetch.make_context)")
        return ir.OpaqueType(dotted("pl", "AsyncSession"))

    def _rt_prefetch_wait(self, call, arg, spec, b):
        self._expect_handle(call, 0, "AsyncEvent",
                            f"{spec.irop} expects event to be an AsyncEvent (output of prefetch.async_prefetch)")
        self._expect_handle(call, 1, "AsyncSession",
                            f"{spec.irop} expects session to be an AsyncSession (output of prefetch.session)")
        return scalar("BOOL")

    def _rt_cacheinvalid(self, call, arg, spec, b):
        # ir/op/system_ops.py cacheinvalid: the whole-GM form (no arguments) or a tensor region
        name = spec.irop
        if b.get("tensor") is None:
            if b.get("shapes") is not None or b.get("offsets") is not None:
                raise DslError(f"{name} whole-GM form takes no shapes/offsets; pass (tensor, shapes, offsets) for "
                               "the region form")
            return UNKNOWN
        if b.get("shapes") is None or b.get("offsets") is None:
            raise DslError(f"{name} region form requires both shapes and offsets (or pass no arguments for the "
                           "whole-GM form)")
        t = self._arg_type(call, 0)
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{name} tensor must have TensorType, got {printed_type(t)}")
        for what, lst in (("shapes", call.args[1].items), ("offsets", call.args[2].items)):
            if len(lst) != len(t.shape):
                raise DslError(f"{name} {what} must match tensor rank {len(t.shape)}, got {len(lst)}")
        for what, lst in (("shapes", call.args[1].items), ("offsets", call.args[2].items)):
            for x in lst:
                xt = self._scalar_kind(x)
                if isinstance(xt, ir.ScalarType) and xt.dtype in FLOAT_DTYPES:
                    raise DslError(f"{name} {what} must be integers, got dtype {DT_NAME.get(xt.dtype, xt.dtype)}")
        return UNKNOWN

    def _rt_set_ffts(self, call, arg, spec, b):
        # ir/op/system_ops.py set_ffts: a static 1-D INT64 workspace of at least 256 elements
        name, t = spec.irop, self._arg_type(call, 0)
        if not isinstance(t, ir.TensorType):
            raise DslError(f"set_ffts workspace must be a Tensor, got {type_name(t)}")
        if t.dtype != "INT64":
            raise DslError(f"{name} workspace must have INT64 dtype, got {DT_NAME.get(t.dtype, t.dtype)}")
        if len(t.shape) != 1:
            raise DslError(f"{name} workspace must be 1-D, got rank {len(t.shape)}")
        n = const_value(t.shape[0])
        if n is None or n[1] < _MIN_FFTS_WORKSPACE:
            raise DslError(f"{name} workspace must have a static length of at least {_MIN_FFTS_WORKSPACE} INT64 "
                           "elements")
        return UNKNOWN

    def _rt_window_buffer(self, call, arg, spec, b):
        # only `buf = ...` reads it (program.py alloc_window_buffer; AP:8573-8589)
        if not getattr(self, "alloc_rhs", False):
            raise DslError(f"{spec.irop} must appear as the RHS of a simple assignment (its result must be bound "
                           "to a named variable)", call)
        return self._rt_ptr(call, arg, spec, b)

    def _rt_host_scalar(self, call, arg, spec, b):
        # HOST-only (AP:8591-8603): outside any InCore / SPMD scope of a level=HOST function
        level = getattr(self, "explicit_level", None)
        if level != "HOST" or getattr(self, "incore_depth", 0):
            shown = f"Level.{level}" if level else "None"
            raise DslError(f"{spec.irop}() can only be called in HOST orchestration context (not inside InCore / "
                           f"SPMD scopes); current function level: {shown}", call)
        return scalar(arg)


    def _rt_remote_load(self, call, arg, spec, b):
        # DeduceRemoteLoadType (distributed/remote_load.cpp:94-208): a tile of the window's
        # dtype and no memory space; valid shape = the window read of InferWindowReadValidShape
        # with an exact (materialised) min against a requested valid shape; blayout from the
        # shape, row_major / col_major under an ND / DN TensorView
        t = self._dist_arg(call, 0, spec, "target ")
        offs, shape = call.args[2].items, call.args[3].items
        req = None
        if len(call.args) > 4:
            # NormalizeRemoteValidShape (remote_load.cpp:67-92): each extent as an INDEX
            req = []
            for i, x in enumerate(call.args[4].items):
                cv = const_value(x)
                xt = self.type_of_expr(x) if cv is None else None
                # only an integer constant becomes an INDEX constant: a float one (2.5, 1e309)
                # is a ScalarType of a float dtype, which PyPTO rejects like any float scalar
                if cv is not None and cv[0] in INT_DTYPES:
                    req.append(ir.IntConst(int(cv[1])))
                elif isinstance(xt, ir.ScalarType) and xt.dtype in INT_DTYPES:
                    req.append(x if xt.dtype == "INDEX" else ir.Call("pl.cast", (x, dotted("pl", "INDEX")), ()))
                else:
                    got = "ScalarType" if cv is not None else type_name(xt)
                    raise DslError(f"pld.tile.remote_load valid_shape {i} must be an integer scalar, "
                                   f"but got {got}")
        for what, n in (("offsets", len(offs)), ("shape", len(shape)), ("valid_shape", len(t.shape) if req is None else len(req))):
            if n != len(t.shape):
                raise DslError(f"pld.tile.remote_load {what} rank ({n}) must match target tensor rank "
                               f"({len(t.shape)})")
        try:                            # CheckWindowReadDimBounds (kClampedWindow, no clamp)
            typerules.check_window_bounds(spec.irop, t.shape, offs, shape, req, clamped=True,
                                          remedy="Pass a smaller valid_shape to describe a ragged remote-load tail")
        except typerules.DeductionError as err:
            raise DslError(str(err)) from None
        from tilemem.frontend.dsl.types import view_parts
        from tilemem.ir import symbolic as sym
        tvalid, _, layout, _ = view_parts(t.view)
        src_valid = tuple(tvalid) if tvalid else tuple(t.shape)
        valid = []
        for i, w in enumerate(shape):
            if i < len(t.shape) and not (views.exprs_equal(src_valid[i], t.shape[i])
                                         and const_value(src_valid[i]) is not None):
                o = sym.resimplify(offs[i])     # FoldExtent simplifies the offset it subtracts
                rem = src_valid[i] if sym.prove_zero(o) else sym.s_sub(sym.s_max(src_valid[i], o), o)
                avail = sym.s_min(rem, w)
            else:
                avail = w
            valid.append(avail if req is None else sym.s_min(req[i], avail))
        blayout = views.shape_layout(shape)
        if t.view is not None and layout in ("ND", "DN"):
            blayout = "row_major" if layout == "ND" else "col_major"
        view = views.fresh_view(sym.finalize_dims(valid), blayout=blayout)
        return tile_type(tuple(shape), t.dtype, None, view)

    # -- the distributed ops (src/ir/op/distributed/*.cpp; language/distributed/op/*.py) --------
    def _dist_arg(self, call, i, spec, role: str = "", printed: bool = True) -> ir.TensorType:
        """Argument ``i``, a DistributedTensor (window-bound); PyPTO's message names the
        operand by its printed type (the DSL wrapper's check) or its IR type name (the
        deducer's)."""
        t = self._arg_type(call, i)
        if is_dist(t):
            return t
        if printed:
            raise DslError(f"{spec.irop} expects a DistributedTensor {role}(window-bound); got {printed_type(t)}")
        raise DslError(f"{spec.irop} expects a DistributedTensor {role}(window-bound), got {type_name(t)}")

    def _rt_comm_ctx(self, call, arg, spec, b):
        self._dist_arg(call, 0, spec, printed=False)
        return ir.OpaqueType(dotted("pld", "CommCtxType"))

    def _rt_comm_scalar(self, call, arg, spec, b):
        # DeduceCommCtxScalarType (get_comm_ctx.cpp:76-85): rank / nranks of a CommCtx
        t = self._arg_type(call, 0)
        if not (isinstance(t, ir.OpaqueType) and t.expr == dotted("pld", "CommCtxType")):
            raise DslError(f"{spec.irop} expects a CommCtx (output of pld.system.get_comm_ctx), got {type_name(t)}")
        return scalar("INT32")

    def _scalar_kind(self, e):
        cv = const_value(e)
        return scalar(cv[0]) if cv is not None else self.type_of_expr(e)

    def _rt_defer_wait(self, call, arg, spec, b):
        # DeduceDeferWaitType (system.cpp:136-183)
        t = self._dist_arg(call, 0, spec, "signal ", printed=False)
        if t.dtype != "INT32":
            raise DslError(f"{spec.irop} signal dtype must be INT32, got {DT_NAME.get(t.dtype, t.dtype)}")
        for i, o in enumerate(call.args[1].items):
            ot = self._scalar_kind(o)
            if not (isinstance(ot, ir.ScalarType) and ot.dtype in INT_DTYPES):
                raise DslError(f"{spec.irop} offset {i} must be an integer or index scalar, got {dtype_or_name(ot)}")
        et = self._scalar_kind(call.args[2])
        if not (isinstance(et, ir.ScalarType) and et.dtype in INT_DTYPES):
            raise DslError(f"{spec.irop} expected must be an integer or index scalar, got {dtype_or_name(et)}")
        cmp = const_value(call.kwarg("cmp"))[1]
        if cmp != 1:
            raise DslError(f"{spec.irop} only supports WaitCmp.Ge (got int {cmp})")
        return UNKNOWN

    def _rt_collective(self, call, arg, spec, b):
        # a collective returns the window it writes (allreduce.cpp, collective.cpp); allreduce
        # (the one with a mode) reduces FP16 / FP32 only (allreduce.cpp:78-117)
        for i, p in enumerate(spec.params[:len(call.args)]):     # _unwrap_distributed_tensors
            if p.name in ("target", "signal", "recv_counts"):
                self._dist_arg(call, i, spec, p.name + " ")
        t = self._arg_type(call, int(arg))
        names = [p.name for p in spec.params]
        if "op" in names and "mode" not in names and isinstance(t, ir.TensorType) and len(t.shape) != 2:
            # DeduceTensorReduceScatterType (collective.cpp:762-763)
            raise DslError(f"{spec.irop} target must be 2D [NR, SIZE], got {len(t.shape)} dims")
        if call.kwarg("mode") is not None and t.dtype not in ("FP16", "FP32"):
            raise DslError(f"{spec.irop} target dtype must be FP16 or FP32, got {DT_NAME.get(t.dtype, t.dtype)}")
        if "send_counts" in names and "signal" in names:
            # DeduceTensorAllToAllVType (collective.cpp:606-636): the signal is [NR, 1], NR a
            # positive constant dividing the target's rows
            op = spec.irop
            sig = self._arg_type(call, names.index("signal"))
            if isinstance(sig, ir.TensorType):
                if len(sig.shape) != 2:
                    raise DslError(f"{op} signal must be 2D [NR, 1], got {len(sig.shape)} dims")
                d1 = sig.shape[1]
                if not (type(d1) is ir.IntConst and d1.value == 1):
                    raise DslError(f"{op} signal second dimension must be 1, got "
                                   f"{d1.value if type(d1) is ir.IntConst else '<dynamic>'}")
                d0 = sig.shape[0]
                if type(d0) is not ir.IntConst:
                    raise DslError(f"{op} signal dim 0 (NR) must be a compile-time constant")
                if d0.value <= 0:
                    raise DslError(f"{op} signal dim 0 (NR) must be positive, got {d0.value}")
                t0 = t.shape[0] if isinstance(t, ir.TensorType) and t.shape else None
                if type(t0) is ir.IntConst and t0.value % d0.value != 0:
                    raise DslError(f"{op} signal dim 0 ({d0.value}) must divide target dim 0 ({t0.value})")
        return t

    def _rt_staged_transfer(self, call, arg, spec, b):
        """DeducePutTileType / DeduceGetTileType (distributed put.cpp, get.cpp): a put writes
        a window (dst distributed), a get reads one (src distributed); one or two 2-D staging
        tiles of the element type, identical when two; an optional region (comm_op_utils.h)
        the stages fit in."""
        op = spec.irop
        has_region = _region_given(op, b)
        dst, peer, src = (self._arg_type(call, i) for i in range(3))
        dist, plain = ("dst", "src") if arg == "put" else ("src", "dst")
        sides = {"dst": dst, "src": src}
        if not is_dist(sides[dist]):
            raise DslError(f"{op} {dist} must be a DistributedTensor (window-bound), got {type_name(sides[dist])}")
        _peer_is_a_rank(op, call, peer)
        if not isinstance(sides[plain], ir.TensorType):
            raise DslError(f"{op} {plain} must be a Tensor or DistributedTensor, got {type_name(sides[plain])}")
        _same_dtype(op, dst, src)
        self._transfer_shapes(op, dst.shape, src.shape, not has_region)
        stages = []
        for i, what in ((3, "stage"), (4, "stage2")):
            if i >= len(call.args) or (what == "stage2" and b.get("stage2") is None):
                break
            t = self._arg_type(call, i)
            if not isinstance(t, ir.TileType):
                raise DslError(f"{op} {what} must be a TileType, got {type_name(t)}")
            if t.dtype != dst.dtype:
                raise DslError(f"{op} {what} dtype must match dst dtype, got stage={DT_NAME.get(t.dtype, t.dtype)} "
                               f"dst={DT_NAME.get(dst.dtype, dst.dtype)}")
            if len(t.shape) != 2:
                raise DslError(f"{op} {what} must be a 2D VEC staging tile, got rank {len(t.shape)}")
            stages.append(t)
        if len(stages) == 2 and not all(views.exprs_equal(x, y) for x, y in zip(stages[0].shape, stages[1].shape)):
            raise DslError(f"{op} ping/pong staging tiles must have identical shape")
        transfer = dst.shape
        if has_region:
            base = 3 + len(stages)
            transfer = self._region_args(op, call.args[base:base + 3], dst.shape, src.shape)
        for t in stages:
            self._stage_fits(op, t.shape, transfer)
        return UNKNOWN

    def _rt_transfer(self, call, arg, spec, b):
        """pld.tensor.put / pld.tensor.get: the DSL wrapper's checks (language/distributed/op/
        tensor_ops.py put / get: the chunk dims, pipeline, the operand kinds, the region given
        whole), then the deducer's (distributed put.cpp DeducePutType, get.cpp DeduceGetType,
        comm_op_utils.h): the peer, one dtype, shapes matched (the whole window, or a region
        whose offsets and extents fit), a dynamic transfer extent with its static chunk, a put's
        atomic add on the dtypes hardware combines."""
        op = spec.irop
        chunk = {k: (call.kwarg(k).value if type(call.kwarg(k)) is ir.IntConst else 0)
                 for k in ("chunk_rows", "chunk_cols")}
        for k, v in chunk.items():
            if v < 0:
                raise DslError(f"{op} {k} must be non-negative (0 = full), got {v}")
        pipeline = call.kwarg("pipeline")
        if type(pipeline) is ir.BoolConst and pipeline.value and not (chunk["chunk_rows"] > 0 and
                                                                     chunk["chunk_cols"] > 0):
            raise DslError(f"{op} pipeline=True requires both chunk_rows>0 and chunk_cols>0 "
                           f"(got chunk_rows={chunk['chunk_rows']}, chunk_cols={chunk['chunk_cols']})")
        dst, peer, src = (self._arg_type(call, i) for i in range(3))
        if arg == "put":
            if not is_dist(dst):
                raise DslError(f"{op} expects a DistributedTensor dst (window-bound); got {printed_type(dst)}")
            if not isinstance(src, ir.TensorType):
                raise DslError(f"{op} expects a Tensor or DistributedTensor src; got {printed_type(src)}")
        else:
            if not isinstance(dst, ir.TensorType):
                raise DslError(f"{op} expects a Tensor or DistributedTensor dst; got {printed_type(dst)}")
            if not is_dist(src):
                raise DslError(f"{op} expects a DistributedTensor src (window-bound); got {printed_type(src)}")
        has_region = _region_given(op, b)
        _peer_is_a_rank(op, call, peer)
        _same_dtype(op, dst, src)
        self._transfer_shapes(op, dst.shape, src.shape, not has_region)
        if arg == "put":                # comm_op_utils.h ValidateAtomicAddDtype
            atomic = call.kwarg("atomic")
            if type(atomic) is ir.Dotted and atomic.parts[-1] == "Add" and \
                    dst.dtype not in ("FP32", "BF16", "FP16", "INT32", "INT16", "INT8"):
                raise DslError(f"{op} with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8 dtype "
                               f"(hardware atomic-add dtypes), but got {DT_NAME.get(dst.dtype, dst.dtype)}")
        transfer = self._region_args(op, call.args[3:6], dst.shape, src.shape) if has_region else dst.shape
        if transfer:                    # ValidateDynamicTransferHasChunk
            if any(type(d) is not ir.IntConst for d in transfer[:-1]) and chunk["chunk_rows"] <= 0:
                raise DslError(f"{op}: a dynamic leading transfer dim needs a static chunk_rows to bound the VEC "
                               "staging tile")
            if type(transfer[-1]) is not ir.IntConst and chunk["chunk_cols"] <= 0:
                raise DslError(f"{op}: a dynamic innermost transfer dim needs a static chunk_cols to bound the VEC "
                               "staging tile")
        return UNKNOWN

    @staticmethod
    def _transfer_shapes(op, dst_shape, src_shape, same: bool) -> None:
        """comm_op_utils.h ValidateTransferShapeContract."""
        if not dst_shape:
            raise DslError(f"{op} requires at least one dimension on dst/src")
        if len(dst_shape) != len(src_shape):
            raise DslError(f"{op} dst rank ({len(dst_shape)}) must match src rank ({len(src_shape)})")
        for i, (d, s) in enumerate(zip(dst_shape, src_shape)):
            dv, sv = (const_value(x)[1] if type(x) is ir.IntConst else None for x in (d, s))
            if dv is not None and dv <= 0:
                raise DslError(f"{op} shape dimension {i} must be positive, got {dv}")
            if sv is not None and sv <= 0:
                raise DslError(f"{op} src shape dimension {i} must be positive, got {sv}")
            if same and dv is not None and sv is not None and dv != sv:
                raise DslError(f"{op} dst and src must have the same static shape; dimension {i} differs "
                               f"(dst={dv}, src={sv})")
            if same and (dv is None or sv is None) and not views.exprs_equal(d, s):
                raise DslError(f"{op} full-slice dst and src must have the same shape; dimension {i} differs "
                               "(dynamic dims must match structurally)")

    @staticmethod
    def _region_args(op, region, dst_shape, src_shape) -> tuple:
        """comm_op_utils.h ValidateRegionArgs: rank-matched offsets and shape; a constant
        extent is positive, a constant offset non-negative and inside its side's window."""
        dst_off, src_off, shape = (r.items for r in region)
        if len(dst_off) != len(dst_shape):
            raise DslError(f"{op} dst_offsets rank must match dst rank")
        if len(src_off) != len(src_shape):
            raise DslError(f"{op} src_offsets rank must match src rank")
        if len(shape) != len(dst_shape):
            raise DslError(f"{op} shape rank must match tensor rank")

        def num(x):
            return x.value if type(x) is ir.IntConst else None
        for i, e in enumerate(shape):
            dim = num(e)
            if dim is not None and dim <= 0:
                raise DslError(f"{op} shape dimension {i} must be positive, got {dim}")
            for side, offs, window in (("dst", dst_off, dst_shape), ("src", src_off, src_shape)):
                o, w = num(offs[i]), num(window[i])
                if o is None:
                    continue
                if o < 0:
                    raise DslError(f"{op} {side}_offsets dimension {i} must be non-negative, got {o}")
                if dim is not None and w is not None and o + dim > w:
                    raise DslError(f"{op} {side} subregion dimension {i} exceeds {side} shape (offset={o}, "
                                   f"shape={dim}, {side}_dim={w})")
        return shape

    @staticmethod
    def _stage_fits(op, stage, transfer) -> None:
        """comm_op_utils.h ValidateStageFitsTransfer: a static 2-D stage no larger than the
        flattened transfer (rows = the leading dims' product, cols = the last)."""
        def num(x):
            return x.value if type(x) is ir.IntConst else None
        rows, rows_static = 1, True
        for d in transfer[:-1]:
            if num(d) is None:
                rows_static = False
            else:
                rows *= num(d)
        cols = num(transfer[-1])
        sr, sc = num(stage[0]), num(stage[1])
        if sr is None or sc is None:
            raise DslError(f"Internal error: {op} stage dims must be static ConstInt")
        if sr <= 0 or sc <= 0:
            raise DslError(f"Internal error: {op} stage dims must be positive, got [{sr}, {sc}]")
        if rows_static and sr > rows:
            raise DslError(f"Internal error: {op} stage rows {sr} must fit within flattened transfer rows {rows} "
                           "(pto-isa auto-chunks a smaller stage)")
        if cols is not None and sc > cols:
            raise DslError(f"Internal error: {op} stage cols {sc} must fit within transfer cols {cols} "
                           "(pto-isa auto-chunks a smaller stage)")

    def _rt_remote_store(self, call, arg, spec, b):
        # the wrapper's type checks, then ValidateRemoteStoreContract (remote_store.cpp:96-125)
        src = self._arg_type(call, 0)
        if arg == "tensor":
            target = self._dist_arg(call, 1, spec, "target ")
            if not (isinstance(src, ir.TensorType) and not is_dist(src)):
                raise DslError(f"{spec.irop} expects a Tensor src (a tensor-level value); got {printed_type(src)}. "
                               "In a tile-level kernel use pld.tile.remote_store; to push one window buffer into "
                               "another use pld.tensor.put.")
        else:
            target = self._dist_arg(call, 1, spec, "target ")
            if not isinstance(src, ir.TileType):
                raise DslError(f"{spec.irop} src_tile must be a TileType, got {type_name(src)}. In a tensor-level "
                               "kernel (@pl.jit) call pld.tensor.remote_store instead (pld.remote_store dispatches "
                               "between the two).")
        offs = call.args[3].items
        if len(offs) != len(target.shape):
            raise DslError(f"{spec.irop} offsets rank ({len(offs)}) must match target tensor rank "
                           f"({len(target.shape)})")
        if src.dtype != target.dtype:
            raise DslError(f"{spec.irop} src dtype ({DT_NAME.get(src.dtype, src.dtype)}) must match target dtype "
                           f"({DT_NAME.get(target.dtype, target.dtype)})")
        extent = list(views.valid_shape_of(src) if isinstance(src, ir.TileType) else src.shape)
        if len(extent) < 2:
            raise DslError(f"{spec.irop} src must be at least 2-D (it is pushed as a 2-D region), got rank "
                           f"{len(extent)}")
        rank = len(target.shape)
        if rank < 2:
            raise DslError(f"{spec.irop} target rank must be >= 2 to hold a 2-D push, got {rank}")
        def num(x):                     # a ConstInt's value (a float offset is not checked)
            return x.value if type(x) is ir.IntConst else None
        for i in range(rank):           # comm_op::ValidatePushFitsTarget
            o = num(offs[i])
            if o is None:
                continue
            if o < 0:
                raise DslError(f"{spec.irop} offsets dimension {i} must be non-negative, got {o}")
            d = num(target.shape[i])
            if d is None:
                continue
            n = 1
            if i + 2 >= rank:
                n = num(extent[len(extent) - rank + i])
                if n is None:
                    continue
            if o + n > d:
                raise DslError(f"{spec.irop} push exceeds the peer's target region in dimension {i} "
                               f"(offset={o}, extent={n}, target_dim={d})")
        return UNKNOWN

    def _rt_window(self, call, arg, spec, b):
        # DeduceWindowType (distributed/memory.cpp): a DistributedTensor of the shape and dtype
        t = self._arg_type(call, 0)
        if not (isinstance(t, ir.OpaqueType) and t.expr == dotted("pl", "Ptr")):
            raise DslError(f"{spec.irop} expects a Ptr handle (output of pld.tensor.alloc_window_buffer); "
                           f"got {printed_type(t)}")
        return ir.TensorType(tuple(call.args[1].items), self._dtype_arg(b["dtype"]), kind="pld.DistributedTensor")

    def _rt_element_scalar(self, call, arg, spec, b):
        t = self._arg_type(call, int(arg))
        if not isinstance(t, (ir.TileType, ir.TensorType)):
            raise DslError(f"{spec.qualified}: expected a tensor or tile operand")
        return scalar(t.dtype)

    def _rt_tpop(self, call, arg, spec, b):
        shape, dt = b.get("shape"), b.get("dtype")
        if shape is None or dt is None:
            return UNKNOWN
        dims = self._list_arg(shape, "shape").items
        return tile_type(dims, self._dtype_arg(dt), arg, None)


def _region_given(op: str, b) -> bool:
    """A put/get's region (comm_op_utils.h): dst_offsets, src_offsets and shape come
    together or not at all; True when given."""
    region = [b.get(n) for n in ("dst_offsets", "src_offsets", "shape")]
    if any(r is not None for r in region) and any(r is None for r in region):
        raise DslError(f"{op} dst_offsets, src_offsets, and shape must be provided together")
    return region[0] is not None


def _peer_is_a_rank(op: str, call, peer) -> None:
    """A put/get's peer is a scalar rank index (or a constant)."""
    if not isinstance(peer, ir.ScalarType) and const_value(call.args[1]) is None:
        raise DslError(f"{op} peer must be a scalar (rank index), got {type_name(peer)}")


def _same_dtype(op: str, dst, src) -> None:
    """A put/get moves one element type."""
    if dst.dtype != src.dtype:
        raise DslError(f"{op} dst and src must have the same element type, got dst {type_name(dst)} vs src "
                       f"{type_name(src)}")
