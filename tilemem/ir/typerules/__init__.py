"""Result-type rules of the ``tile.*`` ops (spec: typerules.md, tileview.md §5-§8).

This package holds the per-op type rules (they name the ops they type, by design), one
module per op family (``elementwise``, ``matmul``, ``memory``, ``transforms``, ``gather``,
``crosscore``), what they share (``common``: sub-rules, argument helpers, the registry)
and the entry points (``derive``); the symbolic arithmetic they compute with is
:mod:`tilemem.ir.symbolic`, and where an op's result lives (the registry's stamp) is the
op table's (:mod:`tilemem.ir.optable`).  The DSL's tensor and system ops have their own
rules in the front end (:mod:`tilemem.frontend.dsl.typerules_tensor`,
:mod:`tilemem.frontend.dsl.typerules_system`).

After InferTileMemorySpace retypes a var or swaps an argument for a moved copy, PyPTO
re-creates the consumer Call through ``OpRegistry::Create``: the op's deducer computes a
TileType from the arguments' NEW types, the registry stamps the memory space, and the pass
syncs the LHS annotation to that type (keeping the LHS's resolved space).  This module
re-derives that final LHS annotation.

Entry points
------------
``derive_result_type(op, args, kwargs, lhs_space=None, lhs_memref=None)``
    The LHS annotation of ``lhs = op(args..., **kwargs)`` after re-deduction, or None when the
    op's result is not a tile derived here (caller keeps the written type).  ``args`` is the
    list of positional arguments, each an ``ArgInfo(expr, type)`` (or a bare ``ir.TileType`` /
    ``ir.Type`` / ``ir.Expr``, wrapped automatically).  ``kwargs`` maps keyword name -> ir.Expr
    (``attrs`` is ignored).  Raises ``DeductionError`` where PyPTO's deducer throws.
``derive_call_type(call, type_of, lhs_space=None, lhs_memref=None)``
    Same for an ``ir.Call``; ``type_of(name) -> ir.Type | None`` resolves Name arguments.
``retargeted_type(written, new_space, lhs_space=None)``
    LHS type of a retargeted ``tile.load`` / ``tile.create`` (result collapses to the
    implicit view of the new space).

Which calls to re-derive (typerules.md §1): PyPTO re-creates every tile call that takes a
tile Var/IterArg defined in the InCore body.  Calls whose args are only tensors / scalars /
tuples (tile.load, tile.create, full, ci, tri, random, Mat-mode mgather, pld.tile.*) keep the
parser-merged type: do NOT re-derive them (use ``views.retype`` or ``retargeted_type``).
Rules for load/create/full/... exist here anyway (tests and completeness).

Known gaps
----------
* Symbolic arithmetic is a small simplifier, not PyPTO's arith analyzer: constants fold,
  ``max(a, b) - b -> max(a - b, 0)`` (verified), ``min/max`` resolved when provable by interval
  bounds (vars are unbounded), ``ceil(n/8) -> (n + 7) // 8`` (verified).  Other symbolic forms
  (``x - c``, the load clamp ``min(max(v - o, 0), w)``, aiv_shard ``x // 2``) are unverified.
* Vars are compared by printed name.  PyPTO prints a var inside a TYPE by its name hint while the
  same var as an argument may carry the printer's de-dup suffix (``gather_lv`` vs
  ``gather_lv_1``): a type derived from the argument text then carries the suffixed name.
* Layout/dtype checks that make PyPTO throw are modelled only where listed in typerules.md §7
  (plus broadcast, cast-to-same, fillpad null, move into a scale space); other validations
  (dtype whitelists, matmul K mismatch, ...) are not checked.
* reinterpret_view with an explicit shape rescales the valid shape on the contiguous axis only.
"""
from __future__ import annotations

from tilemem.ir.typerules.common import (
    ArgInfo, acc_compact, bcast, check_window_bounds, check_write_bounds, extent_text,
    message_form, normalize_op, reshape_valid, shape_text, window_read, write_union,
)
from tilemem.ir.typerules.crosscore import check_split_boundary_valid, split_code, split_reshape
from tilemem.ir.typerules.derive import (
    MISSING, CallTypes, call_key, derive_call_type, derive_result_type, holds_names, kept,
    retargeted_type,
)
from tilemem.ir.typerules.elementwise import check_reduction_non_empty
from tilemem.ir.typerules.gather import gather_compare_extents
from tilemem.ir.typerules.memory import ci_shape_error, check_gather_row_operands, move_result_type
from tilemem.ir.typerules.transforms import reinterpret_extents, static_size
from tilemem.ir.views import DeductionError

# the rule modules register their rules (``common._rule``) when imported: every family,
# whether or not a name is taken from it above
from tilemem.ir.typerules import (  # noqa: F401  (imported for the rules they register)
    crosscore, elementwise, gather, matmul, memory, transforms,
)

__all__ = [
    "ArgInfo", "DeductionError", "derive_result_type", "derive_call_type", "retargeted_type",
    "CallTypes", "call_key", "holds_names", "kept", "MISSING", "move_result_type", "normalize_op",
    # sub-rules shared by several ops, and by the DSL's rules
    "window_read", "write_union", "reshape_valid", "check_window_bounds", "check_write_bounds",
    "check_gather_row_operands", "shape_text", "gather_compare_extents", "reinterpret_extents",
    "static_size", "bcast", "acc_compact", "check_reduction_non_empty", "check_split_boundary_valid",
    "ci_shape_error", "split_code", "split_reshape", "extent_text", "message_form",
]
