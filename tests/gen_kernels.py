"""Random well-typed PyPTO programs: InCore kernels plus an orchestration function.

Every decision goes through a :class:`Choices` object, so the same generator serves

* the property tests, through hypothesis (:class:`HypothesisChoices`: every decision is a
  draw, so a failing program shrinks to a small one), and
* benchmarks and one-off corpora, through :class:`RandomChoices` (a seeded
  ``random.Random``)::

      import sys; sys.path.insert(0, "tests")
      from gen_kernels import RandomChoices, generate
      text = generate(RandomChoices(7), GenOptions(max_stmts=40))

  or from the shell: ``python tests/gen_kernels.py --seed 7 --count 100 --out DIR``.

What a program contains: InCore functions with loads (Vec/Mat/no target, optionally
carrying the compiler's Mat-bridge mark), creates, elementwise chains (unary, binary,
tile-scalar, cast, row reductions), matmul chains (Mat -> Left/Right moves or none,
``tile.matmul`` / ``tile.matmul_acc``, transposed right operands), views (slice, reshape,
transpose_view, fillpad), explicit moves, aliases, stores, comments, ``pl.range`` loops
with and without iter-args (``init_values`` / ``pl.yield_``), ``if``/``else`` blocks with
and without return values; and an orchestration function that creates the output
tensors and calls every kernel.

Result annotations are what PyPTO's type deducer gives (``tilemem.ir.typerules``), optionally
without their memory space, as in the text PyPTO prints before the pass.

``strict`` programs (the default) avoid the constructs for which PyPTO's pass itself does
not produce a verified or a fixed-point result, so that the properties "the output
verifies" and "solving the output changes nothing" must hold:

* the two arms of an ``if`` yield values made the same way (so the arms agree on the space
  of every return value; PyPTO leaves a return var whose arms disagree unresolved);
* a loop's init value already lives where the loop's yielded value will live (PyPTO writes
  the yielded space back onto the init var after the loop, which re-resolves the
  statements that read it before the loop on a second run);
* iter-args are never aliased (an alias of an iter-arg stays unresolved in PyPTO).

``strict=False`` drops those restrictions and adds unknown ops, random annotation spaces
and names that collide with inserted-move names: programs that must still be solved
without a crash, deterministically.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import dataclass, field
from typing import Optional, Sequence

# Allow `python tests/gen_kernels.py` from a checkout without installing.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from tilemem import ir  # noqa: E402
from tilemem.ir.printer import print_expr, print_type  # noqa: E402
from tilemem.ir.typerules import ArgInfo, DeductionError, derive_result_type  # noqa: E402

__all__ = ["Choices", "RandomChoices", "HypothesisChoices", "GenOptions", "generate", "main"]


# ----------------------------------------------------------------------------- choices


class Choices:
    """The source of every decision.  Subclasses implement :meth:`integer`."""

    def integer(self, lo: int, hi: int) -> int:   # inclusive bounds
        raise NotImplementedError

    def choice(self, seq: Sequence):
        seq = list(seq)
        return seq[self.integer(0, len(seq) - 1)]

    def chance(self, percent: int) -> bool:
        return self.integer(0, 99) < percent

    def weighted(self, table: Sequence[tuple[int, object]]):
        """One item of ``[(weight, item), ...]``; the first entries are the 'simplest'."""
        table = [(w, x) for w, x in table if w > 0]
        total = sum(w for w, _ in table)
        k = self.integer(0, total - 1)
        for w, x in table:
            if k < w:
                return x
            k -= w
        return table[-1][1]


class RandomChoices(Choices):
    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class HypothesisChoices(Choices):
    """Draws through hypothesis's ``data`` object (``st.data()``)."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data = data
        self.st = st

    def integer(self, lo: int, hi: int) -> int:
        if lo == hi:
            return lo
        return self.data.draw(self.st.integers(lo, hi))


@dataclass
class GenOptions:
    max_kernels: int = 2
    max_stmts: int = 8           # random statements per statement list
    max_depth: int = 2           # loop / if nesting
    strict: bool = True
    comments: bool = True


# ----------------------------------------------------------------------------- IR helpers


def _int(v: int) -> ir.IntConst:
    return ir.IntConst(v)


def _ints(*vs: int) -> ir.ListExpr:
    return ir.ListExpr(tuple(ir.IntConst(v) for v in vs))


def _dot(*parts: str) -> ir.Dotted:
    return ir.Dotted(tuple(parts))


def _mem(space: str) -> ir.Dotted:
    return _dot("pl", "Mem", space)


def _const_dims(t: ir.Type) -> Optional[tuple[int, ...]]:
    dims = []
    for d in getattr(t, "shape", ()):
        if not isinstance(d, ir.IntConst):
            return None
        dims.append(d.value)
    return tuple(dims)


DIMS = (16, 32, 64)
FLOATS = ("FP32", "FP16", "BF16")
MM_DTYPES = ("BF16", "FP16")
UNARY = ("exp", "abs", "neg", "relu", "sqrt")
BINARY = ("add", "sub", "mul", "maximum", "minimum")
TILE_SCALAR = ("muls", "adds", "subs", "maximums")
MOVE_SUFFIXES = ("Vec", "Mat", "Left", "Right", "Acc", "Bias")
# Where each op reads its tile operands (ops missing here read anything: views, move).
READS = {**{"tile." + op: ("Vec", "Vec") for op in UNARY + BINARY + TILE_SCALAR},
         "tile.cast": ("Vec",), "tile.fillpad": ("Vec",), "tile.row_max": ("Vec", "Vec"),
         "tile.row_sum": ("Vec", "Vec"), "tile.matmul": ("Left", "Right"),
         "tile.matmul_acc": ("Acc", "Left", "Right")}
BRIDGE = ir.DictExpr(((ir.StrConst("__compiler_tensor_to_tile_mat_bridge", '"'), ir.BoolConst(True)),))


@dataclass
class Val:
    """A tile value in scope.  ``space`` is where the pass will surely put it (None when
    it depends on demand); ``acc_factors`` are the (Left-able, Right-able) operands an
    Acc value was computed from (for a later ``matmul_acc``).  ``stable``: the pass leaves
    its type as written (an explicit producer, or an op whose operands all already sit
    where the op reads them, recursively), so it can seed a loop in strict programs."""
    name: str
    type: ir.TileType
    space: Optional[str]
    iter_arg: bool = False
    acc_factors: Optional[tuple["Val", "Val"]] = None
    stable: bool = False

    @property
    def dims(self) -> Optional[tuple[int, ...]]:
        return _const_dims(self.type)

    @property
    def dtype(self) -> str:
        return self.type.dtype


class _Skip(Exception):
    """This statement cannot be built here (no suitable operand, deduction refused)."""


# ----------------------------------------------------------------------------- kernels


@dataclass
class _Param:
    name: str
    type: ir.Type
    direction: str = "In"


@dataclass
class _Kernel:
    name: str
    params: list[_Param] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    ret_type: Optional[ir.TensorType] = None


class _ProgramGen:
    def __init__(self, ch: Choices, opts: GenOptions):
        self.ch = ch
        self.opts = opts
        self.n_tensor = 0

    def tensor_name(self) -> str:
        self.n_tensor += 1
        return f"a{self.n_tensor - 1}"

    def run(self) -> str:
        ch = self.ch
        n = ch.integer(1, self.opts.max_kernels)
        kernels = [_KernelGen(self, f"kernel_{k}").build() for k in range(n)]
        out = ["# pypto.program: Gen", "import pypto.language as pl", "", "@pl.program", "class Gen:"]
        for k in kernels:
            out.append("    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, "
                       "role=pl.Role.SubWorker)")
            params = []
            for p in k.params:
                t = print_type(p.type)
                params.append(f"{p.name}: {t if p.direction == 'In' else f'pl.{p.direction}[{t}]'}")
            out.append(f"    def {k.name}({', '.join(params)}) -> {print_type(k.ret_type)}:")
            out.extend(k.lines)
        out.extend(self.orchestration(kernels))
        return "\n".join(out) + "\n"

    def orchestration(self, kernels: list[_Kernel]) -> list[str]:
        ch = self.ch
        ins = [p for k in kernels for p in k.params if p.direction == "In"]
        if ch.chance(70):
            deco = ("    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, "
                    "role=pl.Role.Orchestrator)")
        else:
            deco = "    @pl.function"
        params = ", ".join(["self"] + [f"{p.name}: {print_type(p.type)}" for p in ins])
        last = kernels[-1].ret_type
        lines = [deco, f"    def main({params}) -> {print_type(last)}:"]
        result = None
        for ki, k in enumerate(kernels):
            args = []
            for p in k.params:
                if p.direction == "In":
                    args.append(p.name)
                    continue
                name = f"{k.name}_{p.name}"
                dims = ", ".join(print_expr(d) for d in p.type.shape)
                lines.append(f"        {name}: {print_type(p.type)} = pl.tensor.create([{dims}], "
                             f"dtype=pl.{p.type.dtype}, layout=pl.TensorLayout.ND)")
                args.append(name)
            result = f"r{ki}"
            lines.append(f"        {result}: {print_type(k.ret_type)} = self.{k.name}({', '.join(args)})")
        lines.append(f"        return {result}")
        return lines


class _KernelGen:
    def __init__(self, pg: _ProgramGen, name: str):
        self.pg = pg
        self.ch = pg.ch
        self.opts = pg.opts
        self.k = _Kernel(name)
        self.scopes: list[list[Val]] = [[]]
        self.depth = 0
        self.loop_vars: list[str] = []
        self.names: set[str] = set()
        self.n = 0
        self.flag: Optional[_Param] = None
        self.outs: list[_Param] = []

    # ------------------------------------------------------------------ plumbing

    def fresh(self, base: str = "t") -> str:
        while True:
            self.n += 1
            name = f"{base}_{self.n}"
            if not self.opts.strict and self.ch.chance(3):
                # a name that an inserted move could also want (x_Left, ...)
                prev = self.visible()
                if prev:
                    name = f"{self.ch.choice(prev).name}_{self.ch.choice(MOVE_SUFFIXES)}"
            if name not in self.names:
                self.names.add(name)
                return name

    def emit(self, text: str, comment: bool = True) -> int:
        """Append one line at the current depth (maybe after a comment); returns its index."""
        ind = "        " + "    " * self.depth
        if comment and self.opts.comments and self.ch.chance(4):
            self.k.lines.append(f"{ind}# step {len(self.k.lines)}: {self.ch.choice(['note', 'todo', 'x = y'])}")
        self.k.lines.append(ind + text)
        return len(self.k.lines) - 1

    def visible(self, pred=None) -> list[Val]:
        vals = [v for s in self.scopes for v in s]
        return [v for v in vals if pred is None or pred(v)]

    def pick(self, pred=None) -> Val:
        vals = self.visible(pred)
        if not vals:
            raise _Skip()
        return self.ch.choice(vals)

    def add_val(self, v: Val) -> Val:
        self.scopes[-1].append(v)
        return v

    def new_input(self, dims: tuple[int, ...], dtype: str) -> _Param:
        p = _Param(self.pg.tensor_name(), ir.TensorType(tuple(_int(d) for d in dims), dtype))
        self.k.params.append(p)
        return p

    def annotation(self, t: ir.TileType) -> ir.TileType:
        """The written annotation: the deduced type, sometimes without its space."""
        if t.view is None and t.space is not None and self.ch.chance(20):
            return ir.replace(t, space=None)
        if not self.opts.strict and self.ch.chance(5):
            return ir.replace(t, space=self.ch.choice(MOVE_SUFFIXES))
        return t

    def call(self, op: str, args: list, kwargs: list[tuple[str, ir.Expr]] = (), space: Optional[str] = None,
             base: str = "t", acc_factors=None) -> Val:
        """Emit ``name: T = pl.<op>(args, kwargs)``; args are Vals or ir expressions."""
        infos, exprs = [], []
        reads = READS.get(op)
        stable = True
        for i, a in enumerate(args):
            if isinstance(a, Val):
                stable = stable and a.stable and (reads is None or (i < len(reads) and a.space == reads[i]))
        for a in args:
            if isinstance(a, Val):
                infos.append(ArgInfo(ir.Name(a.name), a.type))
                exprs.append(ir.Name(a.name))
            elif isinstance(a, _Param):
                infos.append(ArgInfo(ir.Name(a.name), a.type))
                exprs.append(ir.Name(a.name))
            else:
                infos.append(ArgInfo(a, None))
                exprs.append(a)
        try:
            t = derive_result_type(op, infos, dict(kwargs))
        except DeductionError:
            raise _Skip() from None
        if not isinstance(t, ir.TileType):
            raise _Skip()
        name = self.fresh(base)
        c = ir.Call("pl." + op, tuple(exprs), tuple(kwargs))
        self.emit(f"{name}: {print_type(self.annotation(t))} = {print_expr(c)}")
        if op in ("tile.load", "tile.create"):
            stable = space is not None
        return self.add_val(Val(name, t, space, acc_factors=acc_factors, stable=stable))

    # ------------------------------------------------------------------ producers

    def load(self, dims=None, dtype=None, target: Optional[str] = "?", base="x") -> Val:
        ch = self.ch
        if dims is None:
            dims = (ch.choice(DIMS), ch.choice(DIMS)) if ch.chance(85) else (ch.choice((64, 128, 256)),)
        if dtype is None:
            dtype = ch.choice(FLOATS)
        if target == "?":
            target = ch.weighted([(4, "Vec"), (3, "Mat"), (3, None)])
        p = self.new_input(dims, dtype)
        offs = [_int(0)] * len(dims)
        if self.loop_vars and len(dims) == 2 and ch.chance(25):
            offs[0] = ir.Name(self.ch.choice(self.loop_vars))
            p.type = ir.TensorType((_int(dims[0] * 8),) + p.type.shape[1:], dtype)
        kwargs = []
        if target is not None:
            kwargs.append(("target_memory", _mem(target)))
        if target == "Mat" and ch.chance(30):
            kwargs.append(("attrs", BRIDGE))
        args = [p, ir.ListExpr(tuple(offs)), _ints(*dims), _ints(*dims)]
        return self.call("tile.load", args, kwargs, space=target, base=base)

    def create(self, dims=None, dtype=None, target: Optional[str] = "?") -> Val:
        ch = self.ch
        dims = dims or (ch.choice(DIMS), ch.choice(DIMS))
        dtype = dtype or ch.choice(FLOATS)
        if target == "?":
            target = ch.weighted([(4, "Vec"), (2, "Mat"), (2, "Acc"), (2, None)])
        kwargs = [("dtype", _dot("pl", dtype))]
        if target is not None:
            kwargs.append(("target_memory", _mem(target)))
        return self.call("tile.create", [_ints(*dims)], kwargs, space=target, base="c")

    def operand(self, pred=None, make=None) -> Val:
        """A visible value satisfying pred (not an iter-arg in strict mode), else a fresh one."""
        def ok(v):
            return pred is None or pred(v)
        if self.ch.chance(75):
            vals = self.visible(ok)
            if vals:
                return self.ch.choice(vals)
        if make is None:
            raise _Skip()
        return make()

    # ------------------------------------------------------------------ statements

    def s_load(self):
        self.load()

    def s_create(self):
        self.create()

    def s_unary(self):
        v = self.operand(lambda v: v.dtype in FLOATS, self.load)
        self.call("tile." + self.ch.choice(UNARY), [v], space="Vec", base="u")

    def s_binary(self):
        a = self.operand(lambda v: v.dtype in FLOATS and v.dims is not None, self.load)
        b = self.operand(lambda v: v.dims == a.dims and v.dtype == a.dtype,
                         lambda: self.load(a.dims, a.dtype))
        self.call("tile." + self.ch.choice(BINARY), [a, b], space="Vec", base="b")

    def s_scalar(self):
        v = self.operand(lambda v: v.dtype in FLOATS, self.load)
        c = ir.FloatConst(self.ch.choice(["2.0", "0.5", "-1.0", "0.0078125"]))
        self.call("tile." + self.ch.choice(TILE_SCALAR), [v, c], space="Vec", base="s")

    def s_cast(self):
        v = self.operand(lambda v: v.dtype in FLOATS, self.load)
        to = self.ch.choice([d for d in FLOATS if d != v.dtype])
        kw = [("target_type", _dot("pl", to))]
        if self.ch.chance(50):
            kw.append(("mode", ir.StrConst(self.ch.choice(["none", "rint", "round"]))))
        self.call("tile.cast", [v], kw, space="Vec", base="cv")

    def s_row_reduce(self):
        v = self.operand(lambda v: v.dtype in FLOATS and v.dims is not None and len(v.dims) == 2,
                         lambda: self.load((self.ch.choice(DIMS), self.ch.choice(DIMS))))
        tmp = self.create(v.dims, v.dtype, "Vec")
        self.call("tile." + self.ch.choice(["row_max", "row_sum"]), [v, tmp], space="Vec", base="r")

    def mm_operands(self, stable: bool = False) -> tuple[Val, Val]:
        """Left-able and Right-able operands [M, K] x [K, N] of one matmul dtype
        (``stable``: explicitly moved, so that the matmul's type is final)."""
        ch = self.ch
        two_d = lambda v: v.dims is not None and len(v.dims) == 2 and v.dtype in MM_DTYPES  # noqa: E731
        lhs = self.operand(lambda v: two_d(v) and v.space in (None, "Mat", "Vec", "Left")
                           and (v.stable or not stable),
                           lambda: self.load((ch.choice(DIMS), ch.choice(DIMS)), ch.choice(MM_DTYPES),
                                             ch.weighted([(5, "Mat"), (0 if stable else 2, None), (1, "Vec")]),
                                             base="lhs"))
        m, k = lhs.dims
        if lhs.space != "Left" and (ch.chance(60) or stable):
            lhs = self.call("tile.move", [lhs], [("target_memory", _mem("Left"))], space="Left", base="l")

        def make_rhs():
            tgt = ch.weighted([(5, "Mat"), (0 if stable else 2, None), (1, "Vec")])
            n = ch.choice(DIMS)
            if tgt == "Mat" and ch.chance(30):      # a transposed right operand
                raw = self.load((n, k), lhs.dtype, "Mat", base="rhs")
                return self.call("tile.transpose_view", [raw], space="Mat", base="rt")
            return self.load((k, n), lhs.dtype, tgt, base="rhs")
        rhs = self.operand(lambda v: two_d(v) and v.dims[0] == k and v.dtype == lhs.dtype
                           and v.space in (None, "Mat", "Vec", "Right") and (v.stable or not stable), make_rhs)
        if rhs.space != "Right" and (ch.chance(60) or stable):
            rhs = self.call("tile.move", [rhs], [("target_memory", _mem("Right"))], space="Right", base="r")
        return lhs, rhs

    def s_matmul(self, stable: bool = False) -> Val:
        lhs, rhs = self.mm_operands(stable)
        c = self.call("tile.matmul", [lhs, rhs], space="Acc", base="mm", acc_factors=(lhs, rhs))
        for _ in range(self.ch.integer(0, 2)):
            c = self.call("tile.matmul_acc", [c, lhs, rhs], space="Acc", base="mma", acc_factors=(lhs, rhs))
        return c

    def s_view(self):
        ch = self.ch
        kind = ch.weighted([(3, "slice"), (3, "reshape"), (2, "transpose_view"), (2, "fillpad")])
        v = self.operand(lambda v: v.dims is not None and (len(v.dims) == 2 or kind in ("slice", "reshape")),
                         self.load)
        if self.opts.strict and v.iter_arg and kind != "fillpad":
            raise _Skip()
        dims = v.dims
        if kind == "slice":
            new = tuple(ch.choice([x for x in (8, 16, 32, 64) if x <= d] or [d]) for d in dims)
            offs = tuple(0 if ch.chance(70) else d - w for d, w in zip(dims, new))
            self.call("tile.slice", [v, _ints(*new), _ints(*offs)], space=v.space, base="sl")
        elif kind == "reshape":
            total = 1
            for d in dims:
                total *= d
            shapes = [(total,)]
            if len(dims) == 2:
                shapes.append((dims[1], dims[0]))
                if dims[1] % 2 == 0:
                    shapes.append((dims[0] * 2, dims[1] // 2))
            elif total % 16 == 0:
                shapes.append((16, total // 16))
            self.call("tile.reshape", [v, _ints(*ch.choice(shapes))], space=v.space, base="rs")
        elif kind == "transpose_view":
            self.call("tile.transpose_view", [v], space=v.space, base="tv")
        else:
            pad = ch.choice(["min", "zero", "max"])
            self.call("tile.fillpad", [v], [("pad_value", _dot("pl", "PadValue", pad))], space="Vec", base="fp")

    def s_move(self):
        v = self.operand(lambda v: not v.iter_arg, self.load)
        tgt = self.ch.choice(["Vec", "Mat"])
        self.call("tile.move", [v], [("target_memory", _mem(tgt))], space=tgt, base="mv")

    def s_alias(self):
        v = self.pick(lambda v: not v.iter_arg or not self.opts.strict)
        name = self.fresh("al")
        self.emit(f"{name}: {print_type(v.type)} = {v.name}")
        self.add_val(Val(name, v.type, v.space, acc_factors=v.acc_factors, stable=v.stable))

    def s_unknown_op(self):
        v = self.operand(None, self.load)
        name = self.fresh("uk")
        self.emit(f"{name}: {print_type(v.type)} = pl.tile.{self.ch.choice(['my_op', 'frob'])}({v.name})")
        self.add_val(Val(name, v.type, "Vec"))

    def s_store(self):
        v = self.operand(lambda v: v.dims is not None and not (self.opts.strict and v.iter_arg), self.load)
        self.store(v, top=self.depth == 0)

    def store(self, v: Val, top: bool) -> str:
        """Store v into a fresh Out parameter; returns the parameter."""
        p = _Param(f"out_{len(self.outs)}", ir.TensorType(v.type.shape, v.dtype), "Out")
        self.outs.append(p)
        dst = p.name if top else self.fresh("st")
        zero = ", ".join("0" for _ in v.dims)
        self.emit(f"{dst}: {print_type(p.type)} = pl.tile.store({v.name}, [{zero}], {p.name})")
        return p

    def s_for(self):
        ch = self.ch
        strict = self.opts.strict
        carried: list[tuple[Val, str]] = []
        for _ in range(ch.weighted([(3, 0), (4, 1), (2, 2)])):
            kind = ch.weighted([(5, "vec"), (3, "acc")])
            if strict:
                if kind == "vec":
                    init = self.operand(lambda v: v.space == "Vec" and v.dtype in FLOATS and v.stable
                                        and not v.iter_arg,
                                        lambda: self.load(target="Vec", dtype=ch.choice(FLOATS)))
                else:
                    init = self.operand(lambda v: v.space == "Acc" and v.acc_factors is not None
                                        and v.stable and not v.iter_arg,
                                        lambda: self.s_matmul(stable=True))
            else:
                init = self.operand(lambda v: v.dims is not None, self.load)
                kind = "acc" if init.acc_factors is not None and ch.chance(70) else "vec"
            if any(init is c for c, _ in carried):
                continue
            carried.append((init, kind))
        lv = f"i_{self.n + 1}"
        self.n += 1
        rng = ch.choice(["pl.range({n})", "pl.range(0, {m}, 16)", "pl.range(1, {n})"]).format(
            n=ch.integer(1, 4), m=16 * ch.integer(1, 4))
        iters = [self.fresh("ia") for _ in carried]
        if carried:
            inits = ", ".join(c.name for c, _ in carried) + ("," if len(carried) == 1 else "")
            rng = rng[:-1] + f", init_values=({inits}))"
            ia_tuple = ", ".join(iters) + ("," if len(iters) == 1 else "")
            self.emit(f"for {lv}, ({ia_tuple}) in {rng}:")
        else:
            self.emit(f"for {lv} in {rng}:")
        self.depth += 1
        self.loop_vars.append(lv)
        self.scopes.append([])
        ias = [self.add_val(Val(n, c.type, c.space, iter_arg=True, acc_factors=c.acc_factors, stable=c.stable))
               for n, (c, _) in zip(iters, carried)]
        self.block(ch.integer(0 if carried else 1, max(1, self.opts.max_stmts // 3)), not carried)
        yields = []
        for ia, (init, kind) in zip(ias, carried):
            if not strict and ch.chance(15):
                yields.append(ia)                       # yield the iter-arg itself
                continue
            if not strict:
                same = self.visible(lambda v: v.type == ia.type and not v.iter_arg and v in self.scopes[-1])
                if same and ch.chance(50):
                    yields.append(ch.choice(same))
                    continue
            if kind == "acc":
                lhs, rhs = ia.acc_factors
                yields.append(self.call("tile.matmul_acc", [ia, lhs, rhs], space="Acc", base="acc"))
            else:
                op = ch.weighted([(3, "binary"), (2, "unary"), (2, "scalar")])
                if op == "binary":
                    y = self.call("tile." + ch.choice(BINARY), [ia, ia], space="Vec", base="nx")
                elif op == "unary":
                    y = self.call("tile." + ch.choice(UNARY), [ia], space="Vec", base="nx")
                else:
                    y = self.call("tile.muls", [ia, ir.FloatConst("0.5")], space="Vec", base="nx")
                yields.append(y)
        rets = [self.fresh("rv") for _ in carried]
        if len(carried) == 1:
            self.emit(f"{rets[0]}: {print_type(carried[0][0].type)} = pl.yield_({yields[0].name})")
        elif carried:
            self.emit(f"{', '.join(rets)} = pl.yield_({', '.join(y.name for y in yields)})")
        self.scopes.pop()
        self.loop_vars.pop()
        self.depth -= 1
        for r, (init, kind), y in zip(rets, carried, yields):
            self.add_val(Val(r, init.type, "Acc" if kind == "acc" else "Vec" if strict else None,
                             acc_factors=init.acc_factors, stable=init.stable and y.stable))

    def condition(self) -> str:
        ch = self.ch
        if self.loop_vars and ch.chance(60):
            return f"{ch.choice(self.loop_vars)} < {ch.integer(1, 3)}"
        if self.flag is None:
            self.flag = _Param(f"flag_{self.k.name}", ir.ScalarType(ch.choice(["INT32", "INDEX"])))
        if ch.chance(50):
            return f"pl.cast({self.flag.name}, pl.INDEX) > 0"
        return f"{self.flag.name} < 1"

    def s_if(self):
        ch = self.ch
        strict = self.opts.strict
        n_ret = ch.weighted([(2, 0), (4, 1), (2, 2)])
        recipes = []
        for _ in range(n_ret):
            kind = ch.weighted([(3, "unary"), (2, "load"), (1, "create"), (2, "matmul")])
            if kind == "unary":
                recipes.append(("unary", self.operand(lambda v: v.dtype in FLOATS and not v.iter_arg, self.load),
                                ch.choice(UNARY)))
            elif kind == "load":
                recipes.append(("load", (ch.choice(DIMS), ch.choice(DIMS)), ch.choice(FLOATS),
                                ch.choice(["Vec", "Mat"])))
            elif kind == "create":
                recipes.append(("create", (ch.choice(DIMS), ch.choice(DIMS)), ch.choice(FLOATS),
                                ch.choice(["Vec", "Mat", "Acc"])))
            else:
                recipes.append(("matmul",) + self.mm_operands())
        cond = self.condition()
        has_else = n_ret > 0 or ch.chance(50)
        self.emit(f"if {cond}:")
        arms = []
        yield_lines: list[int] = []
        for arm in range(2 if has_else else 1):
            if arm == 1:
                self.emit("else:", comment=False)
            self.depth += 1
            self.scopes.append([])
            self.block(ch.integer(0 if n_ret else 1, max(1, self.opts.max_stmts // 3)), not recipes)
            vals = []
            for r in recipes:
                if not strict and ch.chance(40):
                    same = [v for v in self.visible() if v.type == (arms[0][len(vals)].type if arms else v.type)]
                    if same:
                        vals.append(ch.choice(same))
                        continue
                if r[0] == "unary":
                    vals.append(self.call("tile." + r[2], [r[1]], space="Vec", base="u"))
                elif r[0] == "load":
                    vals.append(self.load(r[1], r[2], r[3]))
                elif r[0] == "create":
                    vals.append(self.create(r[1], r[2], r[3]))
                else:
                    vals.append(self.call("tile.matmul", [r[1], r[2]], space="Acc", base="mm",
                                          acc_factors=(r[1], r[2])))
            arms.append(vals)
            if recipes:
                # the return var names are only known after both arms: patched below
                yield_lines.append(self.emit(f"pl.yield_({', '.join(v.name for v in vals)})"))
            self.scopes.pop()
            self.depth -= 1
        if recipes:
            rets = [self.fresh("ph") for _ in recipes]
            if len(rets) == 1:
                lhs = f"{rets[0]}: {print_type(arms[0][0].type)} = "
            else:
                lhs = f"{', '.join(rets)} = "
            for i in yield_lines:
                line = self.k.lines[i]
                body = line.lstrip()
                self.k.lines[i] = line[:len(line) - len(body)] + lhs + body
            for i, (r, v) in enumerate(zip(rets, arms[0])):
                self.add_val(Val(r, v.type, v.space if strict else None, acc_factors=v.acc_factors,
                                 stable=all(a[i].stable for a in arms)))

    def stmt(self):
        ch = self.ch
        nested = self.depth < self.opts.max_depth
        table = [(5, self.s_load), (4, self.s_unary), (3, self.s_binary), (2, self.s_scalar),
                 (4, self.s_matmul), (4, self.s_view), (1, self.s_cast), (1, self.s_row_reduce),
                 (1, self.s_create), (1, self.s_move), (1, self.s_alias), (2, self.s_store),
                 (3 if nested else 0, self.s_for), (3 if nested else 0, self.s_if)]
        # (no unknown op any more: printed IR is checked, an op the table does not know is
        # an error, issue #27; s_unknown_op stays for tests that want one)
        fn = ch.weighted(table)
        mark = (len(self.k.lines), list(map(len, self.scopes)), set(self.names), len(self.k.params),
                len(self.outs), self.flag, self.depth, len(self.loop_vars))
        try:
            fn()
        except _Skip:
            # roll the whole statement back (text, scopes, parameters, nesting)
            del self.k.lines[mark[0]:]
            del self.scopes[len(mark[1]):]
            for s, n in zip(self.scopes, mark[1]):
                del s[n:]
            self.names = mark[2]
            del self.k.params[mark[3]:]
            del self.outs[mark[4]:]
            self.flag, self.depth = mark[5], mark[6]
            del self.loop_vars[mark[7]:]

    def stmts(self, n: int):
        for _ in range(n):
            self.stmt()

    def block(self, n: int, needs_statement: bool):
        """The statements of a loop or branch body; a body that will get no yield gets at
        least one statement (a skipped statement leaves nothing behind)."""
        start = len(self.k.lines)
        self.stmts(n)
        if needs_statement and not any(not ln.lstrip().startswith("#") for ln in self.k.lines[start:]):
            self.load()

    def build(self) -> _Kernel:
        ch = self.ch
        self.stmts(ch.integer(1, self.opts.max_stmts))
        final = self.operand(lambda v: v.dims is not None and not v.iter_arg, self.load)
        ret = self.store(final, top=True)
        self.emit(f"return {ret.name}")
        self.k.ret_type = ret.type
        # parameter order: inputs, the scalar flag, outputs
        self.k.params += ([self.flag] if self.flag else []) + self.outs
        return self.k


def generate(ch: Choices, opts: Optional[GenOptions] = None) -> str:
    """One random program (text as PyPTO's printer writes it, with a final newline)."""
    return _ProgramGen(ch, opts or GenOptions()).run()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Write random well-typed PyPTO programs.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--max-stmts", type=int, default=GenOptions.max_stmts)
    ap.add_argument("--max-kernels", type=int, default=GenOptions.max_kernels)
    ap.add_argument("--wild", action="store_true", help="non-strict programs (see module docstring)")
    ap.add_argument("--out", help="directory to write gen_<seed>.pto files into (default: stdout)")
    a = ap.parse_args(argv)
    opts = GenOptions(max_kernels=a.max_kernels, max_stmts=a.max_stmts, strict=not a.wild)
    for seed in range(a.seed, a.seed + a.count):
        text = generate(RandomChoices(seed), opts)
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            with open(os.path.join(a.out, f"gen_{seed}.pto"), "w", encoding="utf-8") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
