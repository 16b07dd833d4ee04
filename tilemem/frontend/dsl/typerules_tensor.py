"""Result types of the DSL's tensor ops (``pl.tensor.*`` and the ``pl.NAME`` forms that
take tensors): PyPTO's tensor deducers, as the op caller's ``_rt_*`` rules (the tile ops'
rules are :mod:`tilemem.ir.typerules`)."""
from __future__ import annotations


from tilemem import ir
from tilemem.frontend.dsl.exprs import DT_NAME, const_value
from tilemem.frontend.dsl.operands import constant_kind, fresh_tensor_type, is_dist, type_name
from tilemem.frontend.dsl.values import DTYPE_BITS, FLOAT_DTYPES, DslError, Enum, WrapperCrash, scalar
from tilemem.ir import typerules, views

__all__ = ["TensorResultTypes"]


class TensorResultTypes:
    """Mixin of the op caller: the result rules of tensor ops (``ops.txt``'s ``: RULE``)."""

    def _rt_like(self, call, arg, spec, b):
        t = self._arg_type(call, int(arg))
        if t is None:
            raise DslError(f"{spec.qualified}: expected a tensor or tile operand")
        return t

    def _rt_tensor_assemble(self, call, arg, spec, b):
        """A tensor assembled from a source at an offset (tensor_ops/memory.cpp
        DeduceTensorAssembleType): the source's valid region must fit at the offset
        (CheckWriteDimBounds, a valid-region transfer), and the result is a fresh tensor of
        the target's shape and dtype holding the union of the target's valid region and the
        region written (InferWriteValidShapeUnion; the whole shape when the ranks differ).
        A DistributedTensor target keeps its own type (its window binding is not modelled
        here)."""
        from tilemem.frontend.dsl.types import view_parts
        t, src = self._arg_type(call, 0), self._arg_type(call, 1)
        if isinstance(t, ir.TensorType) and isinstance(src, ir.TensorType) and type(call.args[2]) is ir.ListExpr:
            valid = view_parts(src.view)[0] or src.shape
            offsets = call.args[2].items
            try:
                typerules.check_write_bounds(
                    call.op, t.shape, offsets, valid,
                    f"{call.op} transfers only the source's effective valid region, so it is that "
                    "extent -- not the whole source allocation -- that has to fit at this offset")
                union = tuple(t.shape)
                if len(src.shape) == len(t.shape) == len(offsets):
                    union = typerules.write_union(t.shape, view_parts(t.view)[0] or tuple(t.shape), valid,
                                                  offsets, call.op)
            except typerules.DeductionError as e:
                raise DslError(str(e)) from None
            if t.kind == "pl.Tensor":
                return fresh_tensor_type(t.shape, t.dtype, union)
        return self._rt_like(call, arg, spec, b)

    def _rt_dest(self, call, arg, spec, b):
        """The tensor a tile is written to (tile.store, tile.mscatter; tile_ops/memory.cpp):
        the result has its type; anything but a tensor is rejected."""
        t = self._arg_type(call, int(arg))
        if t is not None and not isinstance(t, ir.TensorType):
            raise DslError(f"The operator {call.op} requires third argument to be a TensorType or "
                           f"DistributedTensorType, but got {type_name(t)}")
        tile = self._arg_type(call, 0)
        if spec.params[1].name == "offsets" and len(call.args) == 3 and isinstance(tile, ir.TileType) \
                and t is not None and type(call.args[1]) is ir.ListExpr:
            # a store without an ND partition moves the tile's valid region into the tensor
            try:
                typerules.check_write_bounds(call.op, t.shape, call.args[1].items, views.valid_shape_of(tile),
                                             "A store performs no layout conversion (RFC #1300 P7): the offsets "
                                             "and the tile extent must already be in the destination's coordinate "
                                             "system. If the tile was read through a view whose layout differs "
                                             "from the destination's -- a DN view transposes it -- take the "
                                             "matching view of the destination, pl.view(out, layout=...), and "
                                             "store into that")     # tile_ops/memory.cpp:382-386
                stored = self._stored_union(call, t, tile)
            except typerules.DeductionError as e:
                raise DslError(str(e)) from None
            if stored is not None:
                return stored
        return self._rt_like(call, arg, spec, b)

    @staticmethod
    def _stored_union(call, t, tile):
        """A store returns its destination holding what it held plus the region written
        (tile_ops/memory.cpp DeduceTileStoreType, InferWriteValidShapeUnion): a new type with
        that valid shape, or None where it is the destination's own (the common case: a
        fully valid destination) or underivable (ranks differ)."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        offsets = call.args[1].items
        if not (len(tile.shape) == len(t.shape) == len(offsets)):
            return None
        valid, stride, layout, pad = view_parts(t.view)
        dest_valid = valid or tuple(t.shape)
        union = typerules.write_union(t.shape, dest_valid, views.valid_shape_of(tile), offsets, call.op)
        if views.expr_lists_equal(union, dest_valid):
            return None
        return ir.replace(t, view=tensor_view_expr(union, stride, layout, pad, t.shape))

    def _rt_tensor_dim(self, call, arg, spec, b):
        """DeduceTensorDimType (tensor_ops/memory.cpp:798-820): an INDEX scalar of a tensor's
        extent; the wrapper unwraps its first argument (a literal has no unwrap), the deducer
        wants a TensorType there."""
        t = self._arg_type(call, 0)
        literal = constant_kind(call.args[0]) if t is None else None
        if literal is not None:
            raise WrapperCrash(f"'{literal}' object has no attribute 'unwrap'")
        if t is not None and not isinstance(t, ir.TensorType):
            raise DslError(f"tensor.dim requires first argument to be a TensorType, but got {type_name(t)}")
        return scalar("INDEX")

    def _rt_tensor_create(self, call, arg, spec, b):
        # the shape list: the first argument (create, full) or the second (ci: start, shape)
        dims = next(a for a in call.args if type(a) is ir.ListExpr).items
        if dims and len(call.args) == 2 and type(call.args[0]) is not ir.ListExpr:
            # (start, shape): tensor_ops/memory.cpp DeduceTensorCiType's ISA checks on constant dims
            bad = typerules.ci_shape_error(dims)
            if bad:
                raise DslError(f"{call.op} {bad}")
        dt = self._dtype_arg(b["dtype"])
        layout = b.get("layout")
        lay = layout.name if isinstance(layout, Enum) else "ND"
        if lay != "ND":
            from tilemem.frontend.dsl.types import tensor_view_expr
            return ir.TensorType(tuple(dims), dt, tensor_view_expr((), (), lay, "null", dims))
        return ir.TensorType(tuple(dims), dt)

    def _broadcast_operands(self, call, spec, axis_name: str):
        """The checks DeduceTensorRowExpandType / DeduceTensorColExpandType share: two
        tensors of rank >= 2."""
        op = spec.irop
        t, v = self._arg_type(call, 0), self._arg_type(call, 1)
        for i, x in enumerate((t, v)):
            if not isinstance(x, ir.TensorType):
                raise DslError(f"The operator {op} requires {('first', 'second')[i]} argument to be a TensorType, "
                               f"but got {type_name(x)}")
            if len(x.shape) < 2:
                raise DslError(f"The operator {op} requires {('first', 'second')[i]} argument to have at least 2 "
                               f"dimensions, but got {len(x.shape)} dimensions")
        return t, v

    def _rt_tensor_row_expand(self, call, arg, spec, b):
        """DeduceTensorRowExpandType (tensor_ops/broadcast.cpp): a [.., M, 1] row vector of
        the target's rows; the target's shape, the promoted dtype."""
        return self._vector_expand(call, spec, "row")

    def _rt_tensor_col_expand(self, call, arg, spec, b):
        """DeduceTensorColExpandType (tensor_ops/broadcast.cpp): a [.., 1, N] column vector
        of the target's columns; the target's shape, the promoted dtype."""
        return self._vector_expand(call, spec, "col")

    def _vector_expand(self, call, spec, kind: str):
        """The checks row_expand and col_expand share: the vector is 1 across its other axis
        (``kind`` "row": the last, "col": the second-to-last) and matches the target along
        its own."""
        op = spec.irop
        t, v = self._broadcast_operands(call, spec, kind)
        unit, along = (-1, -2) if kind == "row" else (-2, -1)
        if not (type(v.shape[unit]) is ir.IntConst and v.shape[unit].value == 1):
            what, got = (("last dimension", typerules.shape_text(v.shape)) if kind == "row" else
                         ("second-to-last dimension (row)", typerules.extent_text(v.shape[-2])))
            raise DslError(f"The operator {op} requires second argument's {what} to be 1, but got {got}")
        a, c = t.shape[along], v.shape[along]
        if type(a) is ir.IntConst and type(c) is ir.IntConst and a.value != c.value:
            dim, n = ("row", "rows") if kind == "row" else ("column", "cols")
            raise DslError(f"The operator {op} requires matching {dim} dimensions, but got tensor {n}={a.value} "
                           f"and {kind}_vec {n}={c.value}")
        return ir.TensorType(tuple(t.shape), views.promote_dtype(t.dtype, v.dtype))

    def _rt_tensor_concat(self, call, arg, spec, b):
        """DeduceTensorConcatType (tensor_ops/transform.cpp): two 2-D tensors of one dtype and
        row count side by side."""
        t0, t1 = self._arg_type(call, 0), self._arg_type(call, 1)
        for i, t in enumerate((t0, t1)):
            if not isinstance(t, ir.TensorType):
                raise DslError(f"tensor.concat: src{i} must be TensorType, got {type_name(t)}")
        if t0.dtype != t1.dtype:
            raise DslError(f"tensor.concat: src0 and src1 must have same dtype, got {DT_NAME.get(t0.dtype, t0.dtype)} "
                           f"and {DT_NAME.get(t1.dtype, t1.dtype)}")
        if len(t0.shape) != 2 or len(t1.shape) != 2:
            raise DslError("tensor.concat requires 2D tensors")
        r0, r1 = t0.shape[0], t1.shape[0]
        if type(r0) is ir.IntConst and type(r1) is ir.IntConst and r0.value != r1.value:
            raise DslError(f"tensor.concat: row count must match, got {r0.value} vs {r1.value}")
        c0, c1 = t0.shape[1], t1.shape[1]
        cols = ir.IntConst(c0.value + c1.value) if type(c0) is ir.IntConst and type(c1) is ir.IntConst \
            else ir.BinOp("+", c0, c1)
        return ir.TensorType((r0, cols), t0.dtype)

    def _rt_tensor_expands(self, call, arg, spec, b):
        """DeduceTensorExpandScalarType (tensor_ops/broadcast.cpp): the target's shape and dtype."""
        t = self._tensor_of(call, 0, spec)
        s = self._arg_type(call, 1)
        if s is not None and not isinstance(s, ir.ScalarType):
            raise DslError(f"The operator {spec.irop} requires second argument to be a ScalarType, but got "
                           f"{type_name(s)}")
        return ir.TensorType(tuple(t.shape), t.dtype)

    def _rt_tensor_paged_gather(self, call, arg, spec, b):
        """DeduceTensorPagedGatherType (tensor_ops/paged_gather.cpp): a [max_indices, size]
        tensor of the source's dtype ([size, max_indices] with is_trans); the operand dtypes
        are dtypes.txt rows, the attr values ranges.txt rows."""
        op = spec.irop
        src, idx, bt = (self._arg_type(call, i) for i in range(3))
        for t, what in ((src, "src"), (idx, "indices"), (bt, "block_table")):
            if not isinstance(t, ir.TensorType):
                raise DslError(f"The operator {op} requires {what} to be a TensorType, but got {type_name(t)}")
        if len(src.shape) != 2:
            raise DslError(f"The operator {op} requires 2D src, but got rank {len(src.shape)}")
        for t, what in ((idx, "indices"), (bt, "block_table")):
            if len(t.shape) not in (1, 2):
                raise DslError(f"The operator {op} requires 1D or 2D {what}, but got rank {len(t.shape)}")
            if len(t.shape) == 2 and not (type(t.shape[0]) is ir.IntConst and t.shape[0].value == 1):
                first = t.shape[0].value if type(t.shape[0]) is ir.IntConst else "dynamic"
                raise DslError(f"The operator {op} requires 2D {what} to have shape [1, n], but got first dim {first}")
        kw = {k: (v.value if type(v) in (ir.IntConst, ir.BoolConst) else v) for k, v in call.kwargs}
        trans = kw.get("is_trans") is True
        space = call.kwarg("space")
        if trans and not (type(space) is ir.Dotted and space.parts[-1] == "Mat"):
            raise DslError(f"The operator {op} requires space=MemorySpace::Mat (L1) when is_trans=true")
        cols = src.shape[1]
        if type(cols) is ir.IntConst and isinstance(kw.get("size"), int) and isinstance(kw.get("col_off"), int) \
                and kw["col_off"] + kw["size"] > cols.value:
            raise DslError(f"The operator {op} requires col_off + size ({kw['col_off'] + kw['size']}) <= src columns "
                           f"({cols.value})")
        rows, size = ir.IntConst(kw["max_indices"]), ir.IntConst(kw["size"])
        return ir.TensorType((size, rows) if trans else (rows, size), src.dtype)

    def _rt_l1_accumulator(self, call, arg, spec, b):
        """DeduceTensorCreateL1Type (tensor_ops/paged_gather.cpp): a tensor of positive
        constant dims (lowered to a Mat tile later)."""
        dims = call.args[0].items
        for i, d in enumerate(dims):
            cv = const_value(d) if type(d) is ir.IntConst else None
            if cv is None or cv[1] <= 0:
                raise DslError(f"The operator {spec.irop} shape element {i} must be a positive compile-time ConstInt")
        if not dims:
            raise DslError(f"The operator {spec.irop} requires a non-empty shape")
        return ir.TensorType(tuple(dims), self._dtype_arg(b["dtype"]))

    def _rt_tensor_gather_row(self, call, arg, spec, b):
        """DeduceTensorGatherRowType (tensor_ops/paged_gather.cpp): DPS, the accumulator's type."""
        op = spec.irop
        acc, src = self._arg_type(call, 0), self._arg_type(call, 1)
        if not isinstance(acc, ir.TensorType):
            raise DslError(f"The operator {op} requires acc to be a TensorType (from tensor.create_l1), but got "
                           f"{type_name(acc)}")
        if not isinstance(src, ir.TensorType):
            raise DslError(f"The operator {op} requires src to be a TensorType (GM), but got {type_name(src)}")
        try:
            typerules.check_gather_row_operands(op, list(call.args), dict(call.kwargs))
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        return acc

    def _rt_tensor_expand_clone(self, call, arg, spec, b):
        """DeduceTensorExpandCloneType (tensor_ops/broadcast.cpp): the target's shape from a
        rank-3 input, broadcast from a 1 in at most one dimension; the promoted dtype."""
        op = spec.irop
        src, target = self._arg_type(call, 0), self._arg_type(call, 1)
        if not isinstance(src, ir.TensorType):
            raise DslError(f"{op}requires first argument to be a TensorType, but got {type_name(src)}")
        if not isinstance(target, ir.TensorType):
            raise DslError(f"{op}requires second argument to be a TensorType, but got {type_name(target)}")
        old, new = src.shape, target.shape
        shown = typerules.shape_text
        if len(old) != 3:
            raise DslError(f"{op} requires input rank to be 3, but got {len(old)}")
        if len(old) != len(new):
            raise DslError(f"{op} requires input rank ({len(old)}) to match target rank ({len(new)})")
        broadcast = 0
        for i, (a, c) in enumerate(zip(old, new)):
            if views.exprs_equal(a, c):
                continue
            cv = const_value(a)
            if cv is None or cv[1] != 1:
                raise DslError(f"{op} only allows broadcasting from dimension 1, but input shape {shown(old)} "
                               f"cannot be expanded to {shown(new)} at dim {i} (got {typerules.extent_text(a)} -> "
                               f"{typerules.extent_text(c)})")
            broadcast += 1
        if broadcast > 1:
            raise DslError(f"{op} allows broadcasting in at most one dimension, but got {broadcast} (input shape "
                           f"{shown(old)}, target shape {shown(new)})")
        return ir.TensorType(tuple(new), views.promote_dtype(src.dtype, target.dtype))

    def _rt_tensor_gather_compare(self, call, arg, spec, b):
        """DeduceTensorGatherCompareType (tensor_ops/gather.cpp): (dst [rows, out_cols] INT32,
        cdst [1, rows] count_dtype); the operand dtypes are dtypes.txt rows."""
        t = self._tensor_of(call, 0, spec)
        if len(t.shape) != 2:
            raise DslError(f"The operator {spec.irop} requires 2D input, but got rank {len(t.shape)}")
        kv = self._arg_type(call, 1)
        if kv is not None and not isinstance(kv, ir.ScalarType):
            raise DslError(f"The operator {spec.irop} requires kvalue to be a ScalarType, but got {type_name(kv)}")
        try:
            rows, cols, count = typerules.gather_compare_extents(spec.irop, t.shape, dict(call.kwargs))
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        return ir.TupleType((ir.TensorType((rows, cols), "INT32"), ir.TensorType((ir.IntConst(1), rows), count)))

    def _rt_tensor_random(self, call, arg, spec, b):
        """DeduceTensorRandomType (tensor_ops/memory.cpp): a tensor.create of a 2-D shape (the
        seeds, dtype and rounds are dtypes.txt / ranges.txt rows)."""
        t = self._rt_tensor_create(call, arg, spec, b)
        if len(t.shape) != 2:
            raise DslError(f"{spec.irop} requires a 2D shape (rows, cols), but got rank {len(t.shape)}")
        return t

    def _rt_tensor_reinterpret(self, call, arg, spec, b):
        """DeduceTensorReinterpretViewType (tensor_ops/transform.cpp): the same bytes as
        another dtype (typerules.reinterpret_extents); the layout and a zero pad carry over."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        op = spec.irop
        t = self._arg_type(call, 0)
        if is_dist(t):
            raise DslError(f"{op} does not support DistributedTensorType in the initial implementation")
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{op} requires data to be a TensorType, but got {type_name(t)}")
        valid, stride, layout, pad = view_parts(t.view)
        if layout.startswith("MX"):
            raise DslError(f"{op} does not support MX-layout tensors")
        if not t.shape:
            raise DslError(f"{op} requires a tensor rank >= 1")
        if layout == "NZ":
            raise DslError(f"{op} does not support boxed/fractal NZ tensor layout")
        if layout == "DN" and len(t.shape) < 2:
            raise DslError(f"{op} requires rank >= 2 for DN layout")
        if stride:
            raise DslError(f"{spec.qualified}: a strided source is not read yet")
        shape = call.kwarg("shape")
        requested = tuple(shape.items) if type(shape) is ir.ListExpr else None
        if layout == "DN" and requested is not None and len(requested) < 2:
            raise DslError(f"{op} requires target rank >= 2 for DN layout")
        axis = len(t.shape) - 2 if layout == "DN" else len(t.shape) - 1
        try:
            new_shape, new_valid = typerules.reinterpret_extents(op, t.shape, valid, t.dtype,
                                                                 self._dtype_arg(b["dtype"]), axis, requested)
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        view = tensor_view_expr(new_valid, (), layout, "zero" if pad == "zero" else "null", new_shape)
        return ir.TensorType(tuple(new_shape), self._dtype_arg(b["dtype"]), view)

    def _rt_tensor_matmul_acc(self, call, arg, spec, b):
        """DeduceTensorMatMulAccType (tensor_ops/matmul.cpp): the accumulator's type, once
        lhs x rhs (transposed as asked) provably fits it: one operand dtype, an FP32 / INT32
        accumulator, constant K, M and N that agree."""
        names = ("acc", "lhs", "rhs")
        ts = [self._arg_type(call, i) for i in range(3)]
        for i, (n, t) in enumerate(zip(names, ts)):
            if not isinstance(t, ir.TensorType):
                raise DslError(f"tensor.matmul_acc requires {('first', 'second', 'third')[i]} argument ({n}) to be a "
                               f"TensorType, but got {type_name(t)}")
            if len(t.shape) < 2:
                raise DslError(f"tensor.matmul_acc requires {n} to be at least 2D, but got {len(t.shape)}D")
        acc, lhs, rhs = ts
        if lhs.dtype != rhs.dtype:
            raise DslError(f"tensor.matmul_acc requires identical lhs and rhs dtypes, but got "
                           f"{DT_NAME.get(lhs.dtype, lhs.dtype)} and {DT_NAME.get(rhs.dtype, rhs.dtype)}")
        want = "FP32" if lhs.dtype in FLOAT_DTYPES else "INT32"
        if acc.dtype != want:
            raise DslError(f"tensor.matmul_acc requires accumulator dtype {DT_NAME[want]}, but got "
                           f"{DT_NAME.get(acc.dtype, acc.dtype)}")
        a_t = const_value(call.kwarg("a_trans") or ir.BoolConst(False))
        b_t = const_value(call.kwarg("b_trans") or ir.BoolConst(False))
        a_t, b_t = bool(a_t and a_t[1]), bool(b_t and b_t[1])

        def num(x):
            return x.value if type(x) is ir.IntConst else None
        m, k_l = (lhs.shape[-1], lhs.shape[-2]) if a_t else (lhs.shape[-2], lhs.shape[-1])
        k_r, n = (rhs.shape[-1], rhs.shape[-2]) if b_t else (rhs.shape[-2], rhs.shape[-1])
        for what, x, y, text in (("K", k_l, k_r, "lhs K={} != rhs K={}"), ("M", acc.shape[-2], m, "acc M={} != matmul M={}"),
                                 ("N", acc.shape[-1], n, "acc N={} != matmul N={}")):
            if num(x) is not None and num(y) is not None and num(x) != num(y):
                raise DslError("tensor.matmul_acc: " + text.format(num(x), num(y)))
        return acc

    def _tensor_of(self, call, i, spec) -> ir.TensorType:
        t = self._arg_type(call, i)
        if not isinstance(t, ir.TensorType):
            raise DslError(f"{spec.qualified}: expected a Tensor operand")
        return t

    def _rt_tensor_binary(self, call, arg, spec, b):
        """tensor_ops/elementwise.cpp: the promoted dtype; `lhs` keeps the tensor's dtype
        (preserve_lhs_dtype: the shifts, the scalar bitwise forms, subs).  The result is a
        fresh tensor valid where its operands are (preserve_valid_shape, on unless the rule
        says `fresh`): against a scalar the tensor's valid shape, against a tensor of the same
        shape their valid shape when provably equal (GetMatchingElementwiseValidShape); a
        DistributedTensor operand carries none."""
        from tilemem.frontend.dsl.types import view_parts
        from tilemem.ir.symbolic import prove_eq
        words = (arg or "").split()
        a = self._tensor_of(call, 0, spec)
        other = self._arg_type(call, 1)
        dt = a.dtype
        shape = a.shape
        valid = None
        keep_valid = "fresh" not in words and a.kind == "pl.Tensor"
        if isinstance(other, ir.TensorType):
            shown = lambda sh: "[" + ", ".join(self.source_of(d) for d in sh) + "]"     # FormatShape
            if "bitwise" in words and not views.expr_lists_equal(a.shape, other.shape):
                raise DslError(f"The operator {call.op} requires both operands to have the same shape, but got "
                               f"{shown(a.shape)} and {shown(other.shape)}. Broadcasting is not supported for "
                               "bitwise/shift operators because the hardware provides no row/col-expand form; "
                               "reshape or expand the operand explicitly first.")
            if other.dtype != a.dtype and "lhs" not in words:
                dt = views.promote_dtype(a.dtype, other.dtype)
            try:
                shape = typerules.bcast(a.shape, other.shape)
            except typerules.DeductionError:          # BroadcastShapes (type_inference.cpp:43-106)
                raise DslError(f"The operator {call.op} requires compatible shapes, but got "
                               f"{shown(a.shape)} and {shown(other.shape)}") from None
            if keep_valid and other.kind == "pl.Tensor" and views.expr_lists_equal(a.shape, other.shape):
                va, vb = view_parts(a.view)[0] or a.shape, view_parts(other.view)[0] or other.shape
                if len(va) == len(vb) and all(views.exprs_equal(x, y) or prove_eq(x, y) for x, y in zip(va, vb)):
                    valid = va
        else:
            cv = const_value(call.args[1])
            sdt = cv[0] if cv is not None else (other.dtype if isinstance(other, ir.ScalarType) else a.dtype)
            if "lhs" not in words:
                dt = views.promote_dtype(a.dtype, sdt)      # DeduceTensorOpElementwiseScalarType
            if keep_valid:
                valid = view_parts(a.view)[0] or a.shape
        return fresh_tensor_type(shape, dt, valid or shape)

    def _rt_tensor_cast(self, call, arg, spec, b):
        """DeduceTensorCastType (tensor_ops/unary.cpp:196-244): a same-dtype cast is refused;
        the result is DeduceTensorUnaryResultType's fresh tensor."""
        a = self._tensor_of(call, 0, spec)
        dtype = self._dtype_arg(b["target_type"])
        if dtype == a.dtype:
            raise DslError(f"{spec.irop}: target_type {DT_NAME.get(dtype, dtype.lower())} equals input dtype; "
                           "same-dtype cast is not a valid operation. Remove the cast or use a different "
                           "target_type.")
        return self._fresh_tensor(a, dtype)

    def _rt_tensor_unary(self, call, arg, spec, b):
        """DeduceTensorUnaryResultType (tensor_ops/unary.cpp:43-46): a fresh tensor of the
        operand's shape and valid shape, no stride or layout; `float`: an integer operand's
        result is FP32."""
        a = self._tensor_of(call, 0, spec)
        dtype = "FP32" if "float" in (arg or "").split() and a.dtype not in FLOAT_DTYPES else a.dtype
        return self._fresh_tensor(a, dtype)

    @staticmethod
    def _fresh_tensor(a: ir.TensorType, dtype: str) -> ir.TensorType:
        """A fresh tensor of ``a``'s shape and effective valid shape, of ``dtype``."""
        from tilemem.frontend.dsl.types import view_parts
        valid = (view_parts(a.view)[0] if a.kind == "pl.Tensor" else ()) or a.shape
        return fresh_tensor_type(a.shape, dtype, valid)

    def _rt_tensor_reshape(self, call, arg, spec, b):
        a = self._tensor_of(call, 0, spec)
        new = tuple(call.args[1].items)
        old_n, new_n = typerules.static_size(a.shape), typerules.static_size(new)
        if old_n and new_n and old_n > 0 and new_n > 0 and old_n != new_n:     # tensor_ops/transform.cpp:187-193
            raise DslError(f"tensor.reshape: cannot reshape tensor of size {old_n} into shape with size {new_n}")
        return ir.TensorType(new, a.dtype)

    def _rt_tensor_slice(self, call, arg, spec, b):
        """tensor.slice (tensor_ops/memory.cpp:150-280): a window of the source, valid where
        the source is (typerules.window_read) when window, offsets and source share a rank;
        the source's pad carries through."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        from tilemem.ir.symbolic import finalize_dims
        a = self._tensor_of(call, 0, spec)
        if view_parts(a.view)[2] in ("MX_A_ZZ", "MX_B_NN"):     # IsMxTensorLayout (ir/type.h)
            raise DslError("tensor.slice does not support MX-layout tensors")
        dims = list(call.args[1].items)
        offs = list(call.args[2].items)
        valid = list(call.args[3].items) if len(call.args) > 3 else []
        drop = [x.value for x in call.args[4].items] if len(call.args) > 4 else []
        src_valid, _, _, pad = view_parts(a.view)
        if len(dims) == len(a.shape) == len(offs):
            clamp = const_value(dict(call.kwargs).get("clamp", ir.BoolConst(False)))
            try:
                typerules.check_window_bounds(call.op, a.shape, offs, dims, valid or None, clamped=True,
                                              clamp=bool(clamp and clamp[1]),      # type_inference.cpp:715-717
                                              remedy="Pass clamp=True -- pl.slice(x, shape, offset, clamp=True) "
                                                     "-- to narrow the valid region to the source edge instead")
            except typerules.DeductionError as e:
                raise DslError(str(e)) from None
        if len(dims) == len(a.shape) == len(offs) and src_valid and \
                not views.expr_lists_equal(src_valid, a.shape):
            if len(src_valid) != len(dims):     # CheckWindowReadRanks (type_inference.cpp)
                raise DslError(f"tensor.slice source valid_shape rank {len(src_valid)} does not match its "
                               f"shape rank {len(dims)}")
            valid = list(finalize_dims(typerules.window_read(a.shape, src_valid, offs, dims,
                                                             valid or None)))
        if drop:
            keep = [i for i in range(len(dims)) if i not in drop]
            dims = [dims[i] for i in keep]
            valid = [valid[i] for i in keep] if valid else []
        view = None
        if (valid and not views.expr_lists_equal(valid, dims)) or pad != "null":
            view = tensor_view_expr(valid, (), "ND", pad, dims)
        return ir.TensorType(tuple(dims), a.dtype, view, kind=a.kind)     # a DistributedTensor stays one

    def _rt_tensor_view(self, call, arg, spec, b):
        """tensor.view (DeduceTensorViewType, tensor_ops/transform.cpp:457-640): the result
        always carries a view -- the source's strides for a layout-only view, else the
        canonical strides of the new shape and layout."""
        from tilemem.frontend.dsl.types import logical_strides, tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        valid, stride, src_layout, pad = view_parts(a.view)
        lay = b.get("layout")
        new_layout = lay.name if isinstance(lay, Enum) else src_layout
        if "NZ" in (new_layout, src_layout):
            raise DslError("tensor.view: NZ layout is not allowed on TensorType (NZ is tile-only)")
        if src_layout.startswith("MX") or new_layout.startswith("MX"):
            raise DslError("tensor.view does not support MX layouts")
        has_shape = len(call.args) >= 2
        explicit_valid = len(call.args) == 3
        if not has_shape and lay is None:
            raise DslError("tensor.view requires at least one of shape or layout")
        if has_shape:
            dims = list(call.args[1].items)
            for i, d in enumerate(dims):
                if type(d) is ir.IntConst and d.value <= 0:
                    raise DslError(f"tensor.view shape dimension {i} must be positive, got {d.value}")
            old, new = typerules.static_size(a.shape), typerules.static_size(dims)
            if old is not None and new is not None and old != new:
                raise DslError(f"tensor.view: cannot reinterpret tensor of size {old} as shape with "
                               f"size {new}")
            if stride and list(stride) != logical_strides(a.shape, src_layout) and not all(
                    type(x) is ir.IntConst and type(y) is ir.IntConst and x.value == y.value
                    for x, y in zip(stride, logical_strides(a.shape, src_layout))):
                raise DslError("tensor.view: shape reinterpret requires a packed source when the source "
                               "has explicit stride")
        else:
            dims = list(a.shape)
            if src_layout != new_layout:
                if len(dims) < 2:
                    raise DslError(f"tensor.view: cross-layout reinterpret requires rank >= 2, got {len(dims)}")
                dims[-2], dims[-1] = dims[-1], dims[-2]
        if new_layout == "DN" and len(dims) < 2:
            raise DslError(f"tensor.view: DN layout requires rank >= 2, got {len(dims)}")
        if not has_shape and stride:
            new_stride = list(stride)
            if src_layout != new_layout:
                new_stride[-2], new_stride[-1] = new_stride[-1], new_stride[-2]
        else:
            new_stride = logical_strides(dims, new_layout)
        new_valid, new_pad = (), "null"
        if a.view is not None:
            if not has_shape and valid:
                new_valid = list(valid)
                if src_layout != new_layout and len(new_valid) >= 2:
                    new_valid[-2], new_valid[-1] = new_valid[-1], new_valid[-2]
            if not has_shape or explicit_valid:
                new_pad = pad
        if explicit_valid:
            new_valid = tuple(call.args[2].items)
        return ir.TensorType(tuple(dims), a.dtype,
                             tensor_view_expr(tuple(new_valid), tuple(new_stride), new_layout, new_pad, dims),
                             kind=a.kind)

    def _rt_tensor_matmul(self, call, arg, spec, b):
        a = self._tensor_of(call, 0, spec)
        c = self._tensor_of(call, 1, spec)
        odt = b.get("out_dtype")
        # no out_dtype: the operands' promoted dtype (matmul.cpp:93-99)
        dt = self._dtype_arg(odt) if odt is not None else views.promote_dtype(a.dtype, c.dtype)
        ta = bool(getattr(b.get("a_trans"), "value", False))
        tb = bool(getattr(b.get("b_trans"), "value", False))
        ls, rs = list(a.shape), list(c.shape)
        if ta and len(ls) < 2:
            raise DslError("tensor.matmul: a_trans does not apply to a 1D lhs (a vector has no axes to swap); "
                           "drop a_trans or pass a 2D lhs")
        if tb and len(rs) < 2:
            raise DslError("tensor.matmul: b_trans does not apply to a 1D rhs (a vector has no axes to swap); "
                           "drop b_trans or pass a 2D rhs")

        def check_k(kl, kr, context):
            if type(kl) is ir.IntConst and type(kr) is ir.IntConst and kl.value != kr.value:
                raise DslError(f"{context}, but got lhs K={kl.value} and rhs K={kr.value}")
        # DeduceTensorMatMulType (tensor_ops/matmul.cpp:71-190)
        if len(ls) == 1 and len(rs) == 1:
            check_k(ls[0], rs[0], f"{call.op} dot product requires matching dimensions")
            out = []
        elif len(ls) == 2 and len(rs) == 1:
            check_k(ls[0] if ta else ls[1], rs[0], f"{call.op} requires matching inner dimensions")
            out = [ls[1] if ta else ls[0]]
        elif len(ls) == 1 and len(rs) == 2:
            check_k(ls[0], rs[1] if tb else rs[0], f"{call.op} requires matching inner dimensions")
            out = [rs[0] if tb else rs[1]]
        else:
            if len(ls) < 2 or len(rs) < 2:
                raise DslError("tensor.matmul requires both tensors to have at least 2 dimensions for batched "
                               f"matmul, but got lhs shape size {len(ls)} and rhs shape size {len(rs)}")
            ctx = f"{call.op} requires matching inner dimensions" + \
                ("" if len(ls) == len(rs) == 2 else " for batched matmul")
            check_k(ls[-2] if ta else ls[-1], rs[-1] if tb else rs[-2], ctx)
            try:
                out = list(typerules.bcast(ls[:-2], rs[:-2]))
            except typerules.DeductionError:
                raise DslError("Cannot broadcast batch dimensions for tensor.matmul") from None
            out += [ls[-1] if ta else ls[-2], rs[-2] if tb else rs[-1]]
        return ir.TensorType(tuple(out), dt)

    def _rt_tensor_scatter(self, call, arg, spec, b):
        """DeduceTensorScatterType (tensor_ops/scatter.cpp:104-163): rank-2 input, src of its
        rank, a 2-D index of src's shape, src no larger than the input (constant extents);
        the input's type, no view."""
        op = spec.irop
        inp, idx, src = (self._tensor_of(call, i, spec) for i in range(3))
        rank = len(inp.shape)
        if rank != 2:
            raise DslError(f"The operator {op} currently supports rank-2 input only, got rank {rank}")
        if len(src.shape) != rank:
            raise DslError(f"The operator {op} requires src rank ({len(src.shape)}) to match input rank ({rank})")
        if len(idx.shape) != 2:
            raise DslError(f"The operator {op} requires 2D index, but got rank {len(idx.shape)}")

        def num(x):
            return x.value if type(x) is ir.IntConst else None
        for axis, what in ((0, "rows"), (1, "cols")):
            sv, iv, nv = num(src.shape[axis]), num(idx.shape[axis]), num(inp.shape[axis])
            if sv is not None and iv is not None and sv != iv:
                raise DslError(f"The operator {op} requires index.shape[{axis}] == src.shape[{axis}], got src "
                               f"{what} {sv} vs index {what} {iv}")
        for axis, what in ((0, "rows"), (1, "cols")):
            sv, nv = num(src.shape[axis]), num(inp.shape[axis])
            if sv is not None and nv is not None and sv > nv:
                raise DslError(f"The operator {op} requires src.shape[{axis}] <= input.shape[{axis}], got src "
                               f"{what} {sv} vs input {what} {nv}")
        return ir.TensorType(tuple(inp.shape), inp.dtype)

    def _rt_tensor_scatter_mask(self, call, arg, spec, b):
        """DeduceTensorScatterMaskType (tensor_ops/scatter.cpp:190-236): 2-D input and dst, the
        dst's columns the input's times the pattern's stride (1 for P1111, 2 for patterns 1-2,
        else 4); the dst's type, no view."""
        op = spec.irop
        inp, dst = self._tensor_of(call, 0, spec), self._tensor_of(call, 1, spec)
        if len(inp.shape) != 2 or len(dst.shape) != 2:
            raise DslError(f"The operator {op} requires 2D input/dst, but got input rank {len(inp.shape)} and dst "
                           f"rank {len(dst.shape)}")
        mp = call.kwarg("mask_pattern")
        pattern = mp.value if type(mp) is ir.IntConst else None
        ic, dc = inp.shape[1], dst.shape[1]
        if pattern is not None and 1 <= pattern <= 7 and type(ic) is ir.IntConst and type(dc) is ir.IntConst:
            stride = 1 if pattern == 7 else 2 if pattern <= 2 else 4
            if dc.value != ic.value * stride:
                raise DslError(f"The operator {op} with mask_pattern={pattern} requires dst.shape[1] ({dc.value}) "
                               f"== input.shape[1] ({ic.value}) * {stride}")
        return ir.TensorType(tuple(dst.shape), dst.dtype)

    def _rt_tensor_plain(self, call, arg, spec, b):
        # a deducer that returns TensorType(shape, dtype) of operand `arg` (no view)
        t = self._tensor_of(call, int(arg), spec)
        return ir.TensorType(tuple(t.shape), t.dtype)

    def _rt_tensor_gather_mask(self, call, arg, spec, b):
        # DeduceTensorGatherMaskType (tensor_ops/gather.cpp:130-205): the columns a mask pattern
        # keeps (1-2: every 2nd, 3-6: every 4th, 7: all); output_dtype of the same width
        t = self._tensor_of(call, 0, spec)
        name = spec.irop
        if len(t.shape) != 2:
            raise DslError(f"The operator {name} requires 2D input, but got rank {len(t.shape)}")
        pattern = const_value(call.kwarg("mask_pattern"))[1]
        if not 1 <= pattern <= 7:
            raise DslError(f"The operator {name} requires mask_pattern in range [1, 7], but got {pattern}")
        cols = t.shape[1]
        if pattern != 7:
            div = 2 if pattern <= 2 else 4
            cv = const_value(cols)
            if cv is not None and cv[1] % div:
                raise DslError(f"The operator {name} with mask_pattern={pattern} requires src columns divisible "
                               f"by {div}, got {cv[1]}")
            cols = ir.IntConst(cv[1] // div) if cv is not None else ir.BinOp("//", cols, ir.IntConst(div))
        dt = t.dtype
        if b.get("output_dtype") is not None:
            dt = self._dtype_arg(b["output_dtype"])
            if DTYPE_BITS[dt] != DTYPE_BITS[t.dtype]:
                raise DslError(f"The operator {name} output_dtype must have the same bit width as input dtype "
                               f"({DT_NAME[t.dtype]} = {DTYPE_BITS[t.dtype]} bits), but got {DT_NAME[dt]} = "
                               f"{DTYPE_BITS[dt]} bits")
        return ir.TensorType((t.shape[0], cols), dt)

    def _rt_tensor_sort32(self, call, arg, spec, b):
        # DeduceTensorSort32Type (tensor_ops/sort.cpp:45-91): the last dim doubled
        t = self._tensor_of(call, 0, spec)
        last = t.shape[-1]
        cv = const_value(last)
        dim = ir.IntConst(cv[1] * 2) if cv is not None else ir.BinOp("*", last, ir.IntConst(2))
        return ir.TensorType(tuple(t.shape[:-1]) + (dim,), t.dtype)

    def _rt_tensor_mrgsort(self, call, arg, spec, b):
        # DeduceTensorMrgSortType (sort.cpp:112-174): the sources' last dims summed; each
        # source of the first's dtype and rank, and its shape but on the concatenated last axis
        from tilemem.ir.symbolic import prove_eq
        srcs = [self._tensor_of(call, i, spec) for i in range(len(call.args))]
        op = spec.irop
        for i, t in enumerate(srcs[1:], 1):
            if t.dtype != srcs[0].dtype:
                raise DslError(f"The operator {op} requires all src tensors to have matching dtype, but argument {i} "
                               f"has {DT_NAME.get(t.dtype, t.dtype)} (expected "
                               f"{DT_NAME.get(srcs[0].dtype, srcs[0].dtype)})")
            if len(t.shape) != len(srcs[0].shape):
                raise DslError(f"The operator {op} requires all src tensors to have matching rank")
            for axis in range(len(t.shape) - 1):
                a, b0 = t.shape[axis], srcs[0].shape[axis]
                if not (views.exprs_equal(a, b0) or prove_eq(a, b0)):
                    raise DslError(f"The operator {op} requires all src tensors to match shape on non-concat axis "
                                   f"{axis}, but argument {i} differs")
        lasts = [s.shape[-1] for s in srcs]
        if all(const_value(x) is not None for x in lasts):
            dim = ir.IntConst(sum(const_value(x)[1] for x in lasts))
        else:
            dim = lasts[0]
            for x in lasts[1:]:
                dim = ir.BinOp("+", dim, x)
        return ir.TensorType(tuple(srcs[0].shape[:-1]) + (dim,), srcs[0].dtype)

    def _rt_tensor_validshape(self, call, arg, spec, b):
        a = self._tensor_of(call, 0, spec)
        from tilemem.frontend.dsl.types import tensor_view_expr
        valid = (call.args[1], call.args[2])
        return ir.TensorType(tuple(a.shape), a.dtype, tensor_view_expr(valid, (), "ND", "null", a.shape))

    def _rt_tensor_transpose(self, call, arg, spec, b):
        """tensor.transpose (DeduceTensorTransposeType, tensor_ops/transform.cpp:312-455): the
        shape swapped, the layout tag flipped for the trailing pair, and the source's
        strides (row-major when it has none) swapped, kept when not row-major."""
        from tilemem.frontend.dsl.types import row_major_strides, same_index, tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        in_shape = list(a.shape)
        n = len(in_shape)
        if n < 2:
            raise DslError(f"tensor.transpose requires at least 2 dimensions, but got {n}")
        i, j = (const_value(x) for x in call.args[1:3])
        if i is None or j is None:
            raise DslError(f"{spec.qualified}: the axes must be constants")
        i, j = i[1], j[1]
        if not (-n <= i < n and -n <= j < n):
            raise DslError(f"{spec.qualified}: axis out of range for a rank {n} tensor")
        i, j = i % n, j % n
        if i == j:
            raise DslError(f"tensor.transpose: axis1 and axis2 must be different, but got axis1={i}, axis2={j}")
        shape = list(in_shape)
        shape[i], shape[j] = shape[j], shape[i]
        valid, in_stride, in_layout, pad = view_parts(a.view)
        out_layout = in_layout
        if {i, j} == {n - 1, n - 2}:
            out_layout = "DN" if in_layout == "ND" else "ND"
        stride = list(in_stride) if in_stride else row_major_strides(in_shape)
        stride[i], stride[j] = stride[j], stride[i]
        valid = list(valid)
        if valid:
            valid[i], valid[j] = valid[j], valid[i]
        canonical = row_major_strides(shape)
        row_major = out_layout == "ND" and all(same_index(x, y) for x, y in zip(canonical, stride))
        record = bool(stride) and not row_major
        if record or out_layout != "ND" or valid or pad != "null":
            return ir.TensorType(tuple(shape), a.dtype, tensor_view_expr(
                tuple(valid), tuple(stride) if record else (), out_layout, pad, shape))
        return ir.TensorType(tuple(shape), a.dtype)

    def _pad_kw(self, call, op):
        pad = dict(call.kwargs).get("pad_value")
        name = pad.parts[-1] if type(pad) is ir.Dotted else "zero"
        if name == "null":
            raise DslError(f"{op} requires pad_value to be zero/max/min, not null")
        return name

    def _rt_tensor_fillpad(self, call, arg, spec, b):
        """tensor.fillpad (tensor_ops/memory.cpp): the whole shape valid again."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        self._pad_kw(call, call.op)
        if a.view is None:
            return ir.TensorType(tuple(a.shape), a.dtype)
        _, stride, layout, pad = view_parts(a.view)
        return ir.TensorType(tuple(a.shape), a.dtype, tensor_view_expr((), stride, layout, pad, a.shape))

    def _rt_tensor_fillpad_expand(self, call, arg, spec, b):
        """tensor.fillpad_expand: the larger shape, valid everywhere, padded with pad_value."""
        from tilemem.frontend.dsl.types import tensor_view_expr, view_parts
        a = self._tensor_of(call, 0, spec)
        dims = list(call.args[1].items)
        if len(dims) != len(a.shape):
            raise DslError(f"tensor.fillpad_expand shape rank ({len(dims)}) must match source rank "
                           f"({len(a.shape)})")
        for i, (d, s) in enumerate(zip(dims, a.shape)):
            if type(d) is not ir.IntConst:
                raise DslError(f"tensor.fillpad_expand shape dimension {i} must be a constant integer")
            if d.value <= 0:
                raise DslError(f"tensor.fillpad_expand shape dimension {i} must be positive, got {d.value}")
            if type(s) is ir.IntConst and d.value < s.value:
                raise DslError(f"tensor.fillpad_expand destination dimension {i} ({d.value}) must be >= "
                               f"source dimension ({s.value})")
        pad = self._pad_kw(call, call.op)
        _, stride, layout, _ = view_parts(a.view)
        return ir.TensorType(tuple(dims), a.dtype, tensor_view_expr((), stride, layout, pad, dims))

    def _rt_tensor_gather(self, call, arg, spec, b):
        """DeduceTensorGatherType (tensor_ops/gather.cpp): the index's shape, the input's
        dtype; off the gather axis a constant index extent fits the input's (its dtypes, rank
        and dim: dtypes.txt / ranges.txt rows)."""
        a = self._tensor_of(call, 0, spec)
        idx = self._arg_type(call, 1)
        if not isinstance(idx, ir.TensorType):
            raise DslError(f"{spec.qualified}: the index must be a Tensor")
        d = call.kwarg("dim")
        rank = len(a.shape)
        if type(d) is ir.IntConst and len(idx.shape) == rank and -rank <= d.value < rank:
            axis = d.value % rank
            for i, (x, y) in enumerate(zip(idx.shape, a.shape)):
                if i != axis and type(x) is ir.IntConst and type(y) is ir.IntConst and x.value > y.value:
                    raise DslError(f"The operator {spec.irop} requires index.shape[{i}] ({x.value}) <= input.shape[{i}] "
                                   f"({y.value}) on non-gather axes")
        return ir.TensorType(tuple(idx.shape), a.dtype)

    def _rt_tensor_row_reduce(self, call, arg, spec, b):
        """tensor_ops/reduction.cpp: the last axis reduced to 1 (argmax/argmin: INT32 indices)."""
        a = self._tensor_of(call, 0, spec)
        return self._reduction_result(call, a, len(a.shape) - 1, arg or a.dtype)

    def _rt_tensor_col_reduce(self, call, arg, spec, b):
        """tensor_ops/reduction.cpp: axis -2 reduced to 1, [..., M, N] -> [..., 1, N]."""
        a = self._tensor_of(call, 0, spec)
        if len(a.shape) < 2:
            raise DslError(f"The operator {call.op} requires at least a 2D tensor, but got {len(a.shape)} dimensions")
        return self._reduction_result(call, a, len(a.shape) - 2, arg or a.dtype)

    def _reduction_result(self, call, a, axis: int, dtype: str):
        """MakeReductionResultType (tensor_ops/reduction.cpp:67-100, keep_dim): a fresh tensor
        whose reduced axis is 1 and fully valid, the other axes valid where the input is; an
        input valid extent that is provably 0 is CheckReductionInputNonEmpty's refusal."""
        from tilemem.frontend.dsl.types import view_parts
        valid = tuple(view_parts(a.view)[0] or a.shape)
        try:
            typerules.check_reduction_non_empty(call.op, valid)
        except typerules.DeductionError as e:
            raise DslError(str(e)) from None
        shape = tuple(ir.IntConst(1) if i == axis else d for i, d in enumerate(a.shape))
        out_valid = tuple(ir.IntConst(1) if i == axis else d for i, d in enumerate(valid))
        return fresh_tensor_type(shape, dtype, out_valid)
