"""What an op's operand is, and how PyPTO's messages name it: the Python type a wrapper
sees, a deducer's type name, a computed tensor's fresh type, dims in printed form."""
from __future__ import annotations

from typing import Optional

from tilemem import ir
from tilemem.frontend.dsl.exprs import DT_NAME
from tilemem.frontend.dsl.values import Enum, Py, Val

__all__ = ["py_type_name", "is_tile", "is_tensor", "is_scalar_like", "wrapper_kind", "constant_kind",
           "fresh_tensor_type", "printed_dims", "is_dist", "printed_type", "type_name", "dtype_or_name"]

def py_type_name(v) -> str:
    """The Python type a DSL wrapper sees for a value: the wrapper class, or a literal's."""
    if isinstance(v, Py):
        return type(v.value).__name__
    if isinstance(v, Val):
        t = v.type
        return ("Tile" if isinstance(t, ir.TileType) else "Tensor" if isinstance(t, ir.TensorType)
                else "Scalar" if isinstance(t, ir.ScalarType) else type(t).__name__)
    return type(v).__name__


def is_tile(v) -> bool:
    return isinstance(v, Val) and isinstance(v.type, ir.TileType)


def is_tensor(v) -> bool:
    return isinstance(v, Val) and isinstance(v.type, ir.TensorType)


def is_scalar_like(v) -> bool:
    if isinstance(v, Val):
        return isinstance(v.type, ir.ScalarType)
    return isinstance(v, Py) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool)


def wrapper_kind(v) -> str:
    """What a wrapper's dispatch error calls an operand that is no Tensor or Tile: the
    ``type(a).__name__`` of what PyPTO's parser hands it (unified_ops.py).  A numeric
    literal is the IR constant (``1.0``, ``-2``, ``pl.const(1, pl.INT32)``: ConstFloat /
    ConstInt), a list literal a Python list, a bool literal or a scalar expression a DSL
    Scalar."""
    if isinstance(v, Enum):
        return v.kind                   # the enum's class: MemorySpace, DataType, PadValue, ...
    if not isinstance(v, Val):
        return type(getattr(v, "value", v)).__name__
    e = v.expr
    if type(e) is ir.ListExpr:
        return "list"
    if not isinstance(v.type, ir.ScalarType):
        return type(e).__name__
    return constant_kind(e) or "Scalar"


def constant_kind(e) -> Optional[str]:
    """The IR constant PyPTO's parser builds for a numeric literal (``1.0``, ``-2``,
    ``pl.const(1, pl.INT32)``): ConstFloat / ConstInt; None for any other expression."""
    if type(e) is ir.Call and e.func == "pl.const" and e.args:
        e = e.args[0]
    if type(e) is ir.UnaryOp and e.op == "-":
        e = e.operand
    return {ir.IntConst: "ConstInt", ir.FloatConst: "ConstFloat"}.get(type(e))


def fresh_tensor_type(shape, dtype: str, valid) -> ir.TensorType:
    """MakeFreshTensorType (type_inference.h:750): a computed tensor's own metadata only --
    shape, dtype and its valid shape (no stride, layout, pad or memref; no view at all
    when fully valid)."""
    from tilemem.frontend.dsl.types import tensor_view_expr
    return ir.TensorType(tuple(shape), dtype, tensor_view_expr(tuple(valid), (), "ND", None, tuple(shape)))


def printed_dims(t):
    """A deduced tensor type with its dims in printed form: constants folded, the integer
    leaves of a composite dim ``pl.const(v, pl.INDEX)`` (printer.md §3, as typerules does
    for tiles)."""
    from tilemem.ir.symbolic import finalize_dims
    if isinstance(t, ir.TensorType):
        view = t.view
        if type(view) is ir.Call:
            view = ir.replace(view, kwargs=tuple(
                (k, ir.ListExpr(finalize_dims(v.items)) if k in ("stride", "valid_shape") else v)
                for k, v in view.kwargs))
        return ir.replace(t, shape=finalize_dims(t.shape), view=view)
    if isinstance(t, ir.TupleType):
        return ir.replace(t, items=tuple(printed_dims(x) for x in t.items))
    return t



def is_dist(t) -> bool:
    return isinstance(t, ir.TensorType) and t.kind == "pld.DistributedTensor"



def printed_type(t) -> str:
    """``python_print_type``: how a DSL wrapper's message shows an operand's type."""
    from tilemem.frontend.dsl.types import print_type_text
    return print_type_text(t) if t is not None else "UnknownType"


def type_name(t) -> str:
    """``Type::TypeName()``: how a deducer's message names an operand's type."""
    if is_dist(t):
        return "DistributedTensorType"
    if isinstance(t, ir.OpaqueType) and type(t.expr) is ir.Dotted:
        last = t.expr.parts[-1]
        return {"Ptr": "PtrType", "PrefetchAsyncContext": "PrefetchAsyncContextType", "AsyncEvent": "AsyncEventType",
                "AsyncSession": "AsyncSessionType"}.get(last, last)
    return {"tile": "TileType", "tensor": "TensorType", "scalar": "ScalarType",
            "tuple": "TupleType"}.get(ir.type_kind(t), "UnknownType")


def dtype_or_name(t) -> str:
    return DT_NAME.get(t.dtype, t.dtype) if isinstance(t, ir.ScalarType) else type_name(t)


