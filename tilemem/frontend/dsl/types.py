"""Type annotations as PyPTO's front end reads them (spec: dsl.md §2; source:
type_resolver.py), and how an annotation merges with the type an expression has
(dsl.md §2.3; ast_parser.py:1561-1792).

Types are tilemem's ``ir`` types in their canonical printed form: a TileType carries
the view PyPTO's TileType constructor keeps (a valid shape equal to the shape and an
implicit view are dropped), a TensorType the TensorView it keeps.
"""
from __future__ import annotations

import re

import weakref
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem import ir
from tilemem.frontend.pyconstants import DataTypeRef
from tilemem.frontend.dsl.values import DTYPES, SPACES, DslError, Val, dotted, is_unknown
from tilemem.ir import views

__all__ = ["TypeReader", "types_equal", "merge_annotation", "tile_type", "print_type_text"]

_TILE_LAYOUTS = ("none_box", "row_major", "col_major")
_PADS = ("null", "zero", "max", "min")
_COMPACTS = ("null", "normal")
_TENSOR_LAYOUTS = ("ND", "DN", "NZ", "MX_A_ZZ", "MX_B_NN")


def print_type_text(t) -> str:
    """A type as a message shows it: a var in it by its own name, not the reader's key."""
    from tilemem.ir.printer import print_type
    return _KEY.sub(r"\1", print_type(t))


_KEY = re.compile(r"\b([A-Za-z_]\w*)#\d+\b")


def tile_type(shape, dtype, space, view: Optional[views.EffectiveView], memref=None) -> ir.TileType:
    """``TileType(shape, dtype, memref, view, space)`` with the constructor's
    canonicalisation."""
    return views.make_tile_type(tuple(shape), dtype, memref, space, view)


_PREFETCH_MARKERS = ("PrefetchAsyncContext", "PrefetchAsyncContextType", "AsyncEvent", "AsyncEventType",
                     "AsyncSession", "AsyncSessionType")


def _last(e) -> Optional[str]:
    if type(e) is ir.Dotted:
        return e.parts[-1]
    if type(e) is ir.Name:
        return e.id
    return None


def _enum(e, enum: str) -> Optional[str]:
    """``X`` of ``pl.<enum>.X`` / ``<enum>.X``."""
    if type(e) is ir.Dotted and len(e.parts) >= 2 and e.parts[-2] == enum:
        return e.parts[-1]
    return None


class TypeReader:
    """Resolves annotation expressions (tilemem's syntax IR) to types.

    ``names`` resolves a bare name used as a dim: it returns an ir expression (an int
    constant, a dynamic symbol or a scalar var) or None."""

    def __init__(self, reader):
        # the function reader (names, expressions, errors), which owns this reader: a proxy,
        # not a cycle (a command runs without the cyclic collector: the cycle kept the
        # reader, its module text and its syntax until the process ended)
        self.reader = weakref.proxy(reader)

    # -- dtypes ---------------------------------------------------------------
    def dtype(self, e, param: bool = False) -> str:
        """A dtype; ``param``: in a signature, which Python evaluates itself (a name it
        does not know is its NameError)."""
        if type(e) is ir.Dotted:
            name = e.parts[-1]
            if name in DTYPES:
                return name
            if len(e.parts) == 2 and e.parts[0] == "DataType":
                raise DslError(f"Unknown DataType: {name}", e)
            raise DslError(f"Unknown dtype: {name}", e)
        if type(e) is ir.Name:
            if e.id in DTYPES:
                return e.id
            c = self.reader.closure(e.id)
            if isinstance(c, DataTypeRef):           # DT = pl.FP32 around the program
                return c.name
            if param and c is None:
                raise DslError(f"NameError: name '{e.id}' is not defined", e)
            raise DslError(f"Unknown dtype: {e.id}", e)
        raise DslError(f"Cannot resolve dtype: {self.reader.source_of(e)}", e)

    # -- whole annotations ----------------------------------------------------
    def resolve(self, e, param: bool = False):
        """An annotation: an ``ir.Type``, or a list of types for ``tuple[...]``."""
        if type(e) is ir.Subscript:
            base = e.value
            if type(base) is ir.Name and base.id == "tuple":
                items = e.index
                if len(items) == 1 and type(items[0]) is ir.TupleExpr and not items[0].items:
                    return []
                return [self._single(x, param) for x in items]
            return self._subscript(e, param)
        if type(e) is ir.Dotted and e.parts[-1] in ("UnknownType", "Ptr", "MemRefType"):
            return ir.OpaqueType(e)
        if type(e) is ir.Dotted and e.parts[-1] in _PREFETCH_MARKERS:
            # TR:113-131: the async-prefetch handles, printed by their DSL names
            return ir.OpaqueType(ir.Dotted(("pl", e.parts[-1].removesuffix("Type"))))
        if type(e) is ir.Dotted and e.parts[-1] in ("CommCtx", "CommCtxType"):
            # TR:113-131: a marker type; the printer spells it pld.CommCtxType
            return ir.OpaqueType(ir.Dotted(("pld", "CommCtxType")))
        raise DslError(f"Unsupported type annotation: {self.reader.source_of(e)}", e)

    def _single(self, e, param):
        t = self.resolve(e, param)
        if isinstance(t, list):
            raise DslError("Nested tuple types are not supported", e)
        return t

    def _type_name(self, e) -> Optional[str]:
        valid = ("Tensor", "Tile", "Scalar", "Array", "Tuple", "DistributedTensor")
        n = _last(e)
        return n if n in valid else None

    def _subscript(self, e: ir.Subscript, param: bool):
        kind = self._type_name(e.value)
        if kind is None:
            raise DslError(f"Unknown type in subscript: {self.reader.source_of(e.value)}", e.value)
        items = e.index
        if kind == "Scalar":
            if len(items) != 1:
                raise DslError(f"Cannot resolve dtype: {', '.join(self.reader.source_of(i) for i in items)}", e)
            return ir.ScalarType(self.dtype(items[0], param))
        if kind == "Tuple":
            if len(items) == 1 and type(items[0]) is ir.TupleExpr and not items[0].items:
                return ir.TupleType(())
            return ir.TupleType(tuple(self._single(i, param) for i in items))
        if kind == "Array":
            if len(items) != 2 or type(items[0]) is not ir.IntConst:
                raise DslError(f"Array subscript requires [extent, dtype], got: "
                               f"{', '.join(self.reader.source_of(i) for i in items)}", e)
            return array_type(ir.IntConst(items[0].value), self.dtype(items[1], param))
        is_tensor = kind in ("Tensor", "DistributedTensor")
        # TR:448-: a DistributedTensor reads as a Tensor, only the IR kind differs; an
        # EXPLICIT pass dump's trailing "window_buffer=NAME" marker is dropped
        tkind = "pld.DistributedTensor" if kind == "DistributedTensor" else "pl.Tensor"
        if kind == "DistributedTensor" and items and type(items[-1]) is ir.StrConst \
                and items[-1].value.startswith("window_buffer="):
            items = items[:-1]
        counts = (2, 3, 4) if is_tensor else (2, 3, 4, 5)
        if len(items) not in counts:
            src = ", ".join(self.reader.source_of(i) for i in items)
            if is_tensor:
                raise DslError(f"{kind} subscript requires [shape, dtype], [shape, dtype, layout_or_memref], "
                               f"or [shape, dtype, layout, memref], got: {src}", e)
            raise DslError("Tile subscript requires [shape, dtype], [shape, dtype, tileview_or_memory_space], "
                           "[shape, dtype, memref, memory_space], or [shape, dtype, memref, memory_space, "
                           f"tileview], got: {src}", e)
        shape = self.shape(items[0], param)
        dtype = self.dtype(items[1], param)
        if dtype == "FP4" and shape and type(shape[-1]) is ir.IntConst and \
                not (shape[-1].value > 0 and shape[-1].value % 2 == 0):
            # the type's own constructor (type.cpp:53-61 ValidatePackedFp4Shape)
            raise DslError(f"Failed to parse function '{self.reader.fname}': Packed FP4 shaped types require a "
                           f"positive even logical last dimension, but got {shape[-1].value}", items[0])
        if not is_tensor:
            return self._tile(shape, dtype, items[2:], param)
        if len(items) == 2:
            return ir.TensorType(shape, dtype, kind=tkind)
        third = items[2]
        if self._is_memref(third):
            if len(items) == 3:
                return ir.TensorType(shape, dtype, None, self.reader.memref(third), tkind)
        view = self._tensor_view_slot(third, shape, param)
        memref = None
        if len(items) == 4:
            if not self._is_memref(items[3]):
                raise DslError(f"{kind} 4th argument must be pl.MemRef(...)", items[3])
            memref = self.reader.memref(items[3])
        return ir.TensorType(shape, dtype, view, memref, tkind)

    @staticmethod
    def _is_memref(e) -> bool:
        if type(e) is ir.Subscript:
            e = e.value
        return type(e) is ir.Call and e.func.rsplit(".", 1)[-1] == "MemRef"

    # -- Tile --------------------------------------------------------------------
    def _tile(self, shape, dtype, extra, param) -> ir.TileType:
        memref_node = view_node = space_node = None
        for node in extra:
            if self._is_memref(node):
                if memref_node is not None:
                    raise DslError("Tile annotation can contain at most one memref argument", node)
                memref_node = node
                continue
            if type(node) is ir.Call and node.func.rsplit(".", 1)[-1] == "TileView":
                if view_node is not None:
                    raise DslError("Tile annotation can contain at most one pl.TileView(...)", node)
                view_node = node
                continue
            if type(node) is ir.Dotted and len(node.parts) >= 2 and node.parts[-2] in ("Mem", "MemorySpace"):
                if node.parts[-1] not in SPACES:
                    raise DslError(f"Unsupported Tile annotation argument: {self.reader.source_of(node)}", node)
                if space_node is not None:
                    raise DslError("Tile annotation can contain at most one memory-space argument", node)
                space_node = node
                continue
            if self._layout_name(node) is not None:
                raise DslError(f"Tile does not accept layouts like {self.reader.source_of(node)}", node)
            declared = self.reader.declared_memref(node)
            if declared is not None:
                if memref_node is not None:
                    raise DslError("Tile annotation can contain at most one memref argument", node)
                memref_node = declared
                continue
            raise DslError(f"Unsupported Tile annotation argument: {self.reader.source_of(node)}", node)
        if memref_node is not None and space_node is None:
            raise DslError("Tile annotation with a memref argument must also specify explicit memory space",
                           memref_node)
        space = space_node.parts[-1] if space_node is not None else None
        memref = self.reader.memref(memref_node) if memref_node is not None else None
        view = self.tile_view(view_node, shape, space, param) if view_node is not None else None
        return tile_type(shape, dtype, space, view, memref)

    def tile_view(self, call: ir.Call, shape, space, param: bool = False) -> views.EffectiveView:
        """``pl.TileView(...)``: omitted fields take the implicit values for (shape,
        the annotation's own space) (TR:1741-1848)."""
        if call.args:
            raise DslError("pl.TileView() accepts keyword arguments only", call)
        lay = views.implicit_layout(shape, space)
        fields = dict(valid_shape=(), stride=(), start_offset=None, blayout=lay.blayout, slayout=lay.slayout,
                      fractal=lay.fractal, pad="null", compact="null")
        for key, val in call.kwargs:
            if key in ("valid_shape", "stride"):
                if type(val) not in (ir.ListExpr, ir.TupleExpr):
                    raise DslError(f"TileView {key} must be a list", val)
                fields[key] = tuple(self.view_dim(x, param) for x in val.items)
            elif key == "start_offset":
                fields[key] = self.view_dim(val, param)
            elif key in ("blayout", "slayout"):
                v = _enum(val, "TileLayout")
                if v not in _TILE_LAYOUTS:
                    raise DslError(f"Unknown TileLayout: {self.reader.source_of(val)}", val)
                fields[key] = v
            elif key == "fractal":
                if type(val) is not ir.IntConst:
                    raise DslError("TileView fractal must be an integer", val)
                if not 0 <= val.value < 2 ** 64:       # an unsigned field of ir.TileView's binding
                    raise DslError("TypeError: __init__(): incompatible function arguments (TileView fractal is "
                                   f"unsigned, got {val.value})", val)
                fields[key] = val.value
            elif key == "pad":
                v = _enum(val, "PadValue")
                if v not in _PADS:
                    raise DslError(f"Unknown PadValue: {self.reader.source_of(val)}", val)
                fields[key] = v
            elif key == "compact":
                v = _enum(val, "CompactMode")
                if v not in _COMPACTS:
                    raise DslError(f"Unknown CompactMode: {self.reader.source_of(val)}", val)
                fields[key] = v
            else:
                raise DslError(f"Unknown TileView keyword argument: '{key}'", call)
        return views.EffectiveView(**fields)

    def view_dim(self, e, param: bool = False):
        """A TileView/TensorView field: index arithmetic; an unknown bare name becomes a
        ``pl.dynamic`` symbol (TR:1871-1914) -- except in the signature, which Python
        itself evaluates when it defines the function: there it is a NameError."""
        return self.reader.view_expr(e, param)

    # -- Tensor views ----------------------------------------------------------------
    def _layout_name(self, e) -> Optional[str]:
        if type(e) is ir.Dotted:
            if e.parts[-1] in _TENSOR_LAYOUTS and (len(e.parts) == 2 or e.parts[-2] == "TensorLayout"):
                return e.parts[-1]
        if type(e) is ir.Name and e.id in _TENSOR_LAYOUTS:
            return e.id
        return None

    def _tensor_view_slot(self, e, shape, param: bool = False):
        lay = self._layout_name(e)
        if lay is not None:
            if lay == "DN":
                raise DslError(f"{self.reader.source_of(e)}: the DN layout-only shorthand is not accepted on a "
                               "Tensor annotation; use pl.TensorView(stride=..., layout=pl.TensorLayout.DN)", e)
            if lay == "ND":
                return None
            return tensor_view_expr((), (), lay, "null", shape)
        if type(e) is ir.Call and e.func.rsplit(".", 1)[-1] == "TensorView":
            valid = stride = ()
            layout, pad = "ND", "null"
            given = dict(e.kwargs)
            if param and "layout" not in given and not e.args and (
                    "stride" in given or "valid_shape" in given or
                    "pad" in given and _enum(given["pad"], "PadValue") != "null"):
                # Python builds a signature's pl.TensorView itself when it defines the
                # function: the factory's own refusal (ir/type.py:141-153)
                raise DslError("ValueError: layout is required when stride, valid_shape, or pad is provided", e)
            for key, val in e.kwargs:
                if key in ("valid_shape", "stride"):
                    if type(val) not in (ir.ListExpr, ir.TupleExpr):
                        raise DslError(f"TensorView {key} must be a list", val)
                    items = tuple(self.view_dim(x, param) for x in val.items)
                    if key == "valid_shape":
                        valid = items
                    else:
                        stride = items
                elif key == "layout":
                    v = self._layout_name(val)
                    if v is None:
                        raise DslError(f"Unknown TensorLayout: {self.reader.source_of(val)}", val)
                    layout = v
                elif key == "pad":
                    v = _enum(val, "PadValue")
                    if v not in _PADS:
                        raise DslError(f"Unknown PadValue: {self.reader.source_of(val)}", val)
                    pad = v
                else:
                    raise DslError(f"Unknown TensorView keyword argument: '{key}'", e)
            return tensor_view_expr(valid, stride, layout, pad, shape)
        raise DslError(f"Unsupported Tensor annotation argument: {self.reader.source_of(e)}", e)

    # -- shapes -----------------------------------------------------------------------
    def shape(self, e, param: bool) -> tuple:
        if type(e) in (ir.ListExpr, ir.TupleExpr):
            dims = [self.reader.shape_dim(x, param) for x in e.items]
        elif type(e) is ir.Name:
            dims = self.reader.shape_list(e, param)
        else:
            raise DslError(f"Shape must be a list, tuple, or variable: {self.reader.source_of(e)}", e)
        return tuple(dims)


def tensor_view_expr(valid, stride, layout, pad, shape) -> Optional[ir.Expr]:
    """The printed ``pl.TensorView(...)`` of a stored TensorView (None: no view)."""
    from tilemem.ir.views import expr_lists_equal
    if not stride and layout == "ND" and pad in (None, "null") and (not valid or expr_lists_equal(valid, shape)):
        return None             # all defaults: the TensorType keeps no view
    kws = []
    if valid and not expr_lists_equal(valid, shape):
        kws.append(("valid_shape", ir.ListExpr(tuple(valid))))
    kws.append(("stride", ir.ListExpr(tuple(stride))))
    kws.append(("layout", dotted("pl", "TensorLayout", layout)))
    if pad not in (None, "null"):
        kws.append(("pad", dotted("pl", "PadValue", pad)))
    return ir.Call("pl.TensorView", (), tuple(kws))


def view_parts(view) -> tuple:
    """``(valid_shape, stride, layout, pad)`` of a stored TensorView (``None``: no view)."""
    valid, stride, layout, pad = (), (), "ND", "null"
    if type(view) is ir.Call:
        for k, v in view.kwargs:
            if k == "valid_shape":
                valid = tuple(v.items)
            elif k == "stride":
                stride = tuple(v.items)
            elif k == "layout":
                layout = v.parts[-1]
            elif k == "pad":
                pad = v.parts[-1]
    return valid, stride, layout, pad


def index_mul(a, b):
    """An INDEX multiply folding constants and ``x 1`` (tensor_view_semantics.h:54-67); a
    product it builds is a new node (compared by identity, as PyPTO compares ExprPtrs)."""
    if type(a) is ir.IntConst and type(b) is ir.IntConst:
        return ir.IntConst(a.value * b.value)
    if type(b) is ir.IntConst and b.value == 1:
        return a
    if type(a) is ir.IntConst and a.value == 1:
        return b
    return ir.BinOp("*", a, b)


def row_major_strides(shape) -> list:
    """ND-packed strides (tensor_view_semantics.h:72-82)."""
    n = len(shape)
    if not n:
        return []
    st = [None] * n
    st[n - 1] = ir.IntConst(1)
    for i in range(n - 2, -1, -1):
        st[i] = index_mul(st[i + 1], shape[i + 1])
    return st


def logical_strides(shape, layout: str) -> list:
    """Packed canonical strides of (shape, layout) (tensor_view_semantics.h:94-130)."""
    n = len(shape)
    if not n or layout != "DN":
        return row_major_strides(shape)
    st = [None] * n
    st[n - 2] = ir.IntConst(1)
    st[n - 1] = shape[n - 2]
    if n >= 3:
        st[n - 3] = index_mul(shape[n - 2], shape[n - 1])
        for i in range(n - 4, -1, -1):
            st[i] = index_mul(st[i + 1], shape[i + 1])
    return st


def same_index(a, b) -> bool:
    """Two stride entries equal as PyPTO compares them: equal constants, or one node."""
    if type(a) is ir.IntConst and type(b) is ir.IntConst:
        return a.value == b.value
    return a is b


# ----------------------------------------------------------------------------- equality

def _norm(t):
    if isinstance(t, ir.TileType):
        return ir.TileType(tuple(t.shape), t.dtype, None, t.space, t.view)
    if isinstance(t, ir.TensorType):
        return ir.TensorType(tuple(t.shape), t.dtype, t.view, None, t.kind)
    if isinstance(t, ir.TupleType):
        return ir.TupleType(tuple(_norm(i) for i in t.items))
    return t


def types_equal(a, b) -> bool:
    """Structural equality of two types (memrefs ignored, as PyPTO's ``_types_match``)."""
    if a is None or b is None:
        return a is b
    return _norm(a) == _norm(b)


# ----------------------------------------------------------------------------- merging

def _const(d) -> Optional[int]:
    return d.value if type(d) is ir.IntConst else None


def validate_annotation(ann, inferred, name: str, node) -> None:
    """TR:1511-1594: kind, dtype, rank and static dims must agree."""
    if ann is None or inferred is None or is_unknown(inferred) or isinstance(ann, ir.OpaqueType):
        return
    kind_a, kind_i = _kind(ann), _kind(inferred)
    if kind_a != kind_i:
        raise DslError(f"Type annotation for '{name}' is {kind_a} but expression has type {kind_i}", node)
    if isinstance(ann, (ir.TileType, ir.TensorType, ir.ScalarType)):
        da, di = ann.dtype, inferred.dtype
        if da != di and not (di == "INDEX" and da in _INT or da == "INDEX" and di in _INT):
            raise DslError(f"Type annotation for '{name}' has dtype {_dtname(da)} but expression has dtype "
                           f"{_dtname(di)}", node)
    if isinstance(ann, (ir.TileType, ir.TensorType)):
        if len(ann.shape) != len(inferred.shape):
            raise DslError(f"Type annotation for '{name}' has rank {len(ann.shape)} but expression has rank "
                           f"{len(inferred.shape)}", node)
        for i, (x, y) in enumerate(zip(ann.shape, inferred.shape)):
            cx, cy = _const(x), _const(y)
            if cx is not None and cy is not None and cx != cy:
                raise DslError(f"Type annotation for '{name}' has shape dimension {i} = {cx} but expression has "
                               f"shape dimension {i} = {cy}", node)


_INT = frozenset(("INT4", "INT8", "INT16", "INT32", "INT64", "UINT4", "UINT8", "UINT16", "UINT32", "UINT64"))

# DataType::ToString (include/pypto/core/dtype.h)
_DT_NAMES = {"BOOL": "bool", "INT4": "int4", "INT8": "int8", "INT16": "int16", "INT32": "int32",
             "INT64": "int64", "UINT4": "uint4", "UINT8": "uint8", "UINT16": "uint16", "UINT32": "uint32",
             "UINT64": "uint64", "FP4": "fp4", "FP8E4M3FN": "fp8e4m3fn", "FP8E5M2": "fp8e5m2",
             "FP8E8M0": "fp8e8m0", "FP16": "fp16", "FP32": "fp32", "BF16": "bfloat16", "HF4": "hf4",
             "HF8": "hf8", "INDEX": "index", "TASK_ID": "task_id"}


def _dtname(d: str) -> str:
    return _DT_NAMES.get(d, d.lower())


_KIND_WORDS = {"tile": "Tile", "tensor": "Tensor", "scalar": "Scalar", "tuple": "Tuple"}


def _kind(t) -> str:
    """PyPTO's word for what a type is (in its annotation-mismatch messages)."""
    return _KIND_WORDS.get(ir.type_kind(t), "Unknown")


def checked_annotation(ann, inferred, name: str, node, region: bool = False):
    """The value's type ``inferred`` as ``name: ann = value`` compares it with the
    annotation (``region``: see :func:`merge_annotation`), after checking that they agree
    (:func:`validate_annotation`; raises DslError)."""
    if region and isinstance(ann, ir.TileType) and isinstance(inferred, ir.TileType) \
            and len(ann.shape) <= 2 < len(inferred.shape):
        # an ND load / create under a 2D annotation (FlattenTileNdTo2D's output): the
        # annotation's shape is trusted (ast_parser.py:450-485)
        inferred = ir.replace(inferred, shape=tuple(ann.shape))
    validate_annotation(ann, inferred, name, node)
    return inferred


def merge_annotation(ann, value: Val, name: str, node, region: bool = False):
    """The type of ``name: ann = value`` (dsl.md §2.3): returns the override type, or
    None when the var simply takes the value's type.  ``region``: the value is a call
    whose result is a `tile_region` (ops.txt)."""
    if ann is None or isinstance(ann, list):
        return None
    if isinstance(ann, ir.OpaqueType):          # pl.UnknownType / pl.Ptr / pl.MemRefType
        return None
    inferred = checked_annotation(ann, value.type, name, node, region)
    if is_unknown(inferred):
        return ann
    if isinstance(ann, ir.TileType) and isinstance(inferred, ir.TileType):
        inf_view = views.stored_view(inferred)
        ann_view = views.stored_view(ann) if ann.view is not None else None
        space = ann.space if ann.space is not None else inferred.space
        view = ann_view if ann.view is not None else inf_view
        if ann.memref is not None or space is not None or view is not None or not _shapes_match(ann.shape, inferred.shape):
            return tile_type(ann.shape, ann.dtype, space, view, ann.memref)
        return None
    if isinstance(ann, (ir.TileType, ir.TensorType)) and ann.memref is not None:
        return ann
    if isinstance(ann, ir.TensorType) and ann.view is not None:
        return ann
    if isinstance(ann, ir.ScalarType) and isinstance(inferred, ir.ScalarType) and inferred.dtype == "INDEX":
        return ann
    return None


def _shapes_match(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y or (type(x) is ir.Name and x == y):
            continue
        cx, cy = _const(x), _const(y)
        if cx is None or cy is None or cx != cy:
            return False
    return True


def array_type(extent: ir.Expr, dtype: str) -> ir.Type:
    """``pl.Array[N, pl.DT]`` (tilemem's IR keeps it as the annotation it prints)."""
    return ir.OpaqueType(ir.Subscript(dotted("pl", "Array"), (extent, dotted("pl", dtype))))


def array_dtype(t) -> Optional[str]:
    if isinstance(t, ir.OpaqueType) and type(t.expr) is ir.Subscript and type(t.expr.value) is ir.Dotted \
            and t.expr.value.parts[-1] == "Array" and len(t.expr.index) == 2 and type(t.expr.index[1]) is ir.Dotted:
        return t.expr.index[1].parts[-1]
    return None
