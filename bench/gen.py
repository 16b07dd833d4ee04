"""Generated PyPTO programs of a given size, for benchmarks (not for tests).

``generate(n_stmts, seed=0, fn_stmts=(20, 240))`` returns the text of one program with
about ``n_stmts`` statements (assignments, loops, branches), split into InCore kernels
whose sizes are drawn from ``fn_stmts`` (real model libraries have many kernels of a few
dozen to a few hundred statements: the 21,000-line DeepSeek models have ~440), plus an
orchestration function that creates the outputs and calls every kernel.

The statements follow the mix of real kernels (``/work/shared/corpus-models``): loads
(Vec, Mat, Mat with the compiler's bridge mark, no target), elementwise chains (some
results left unannotated, so that inheritance and demand have work), matmul chains
(Mat operands that need moves to Left/Right, Acc results read by Vec ops), K-loops with
an iter-arg accumulating ``matmul_acc`` over bridge loads (residency candidates),
branches yielding a phi, views (reshape, slice, transpose_view), explicit moves, stores.
Every block is self-contained, so the program is well-typed by construction.

    python bench/gen.py 1000 > /tmp/k1000.pto
"""
from __future__ import annotations

import random
import sys

T64 = "pl.Tile[[64, 64], pl.FP32{sp}]"
B64 = "pl.Tile[[64, 64], pl.BF16{sp}]"
TENS_F = "pl.Tensor[[64, 64], pl.FP32]"
TENS_B = "pl.Tensor[[64, 64], pl.BF16]"
TENS_BIG = "pl.Tensor[[64, 1024], pl.BF16]"
BRIDGE = ', attrs={"__compiler_tensor_to_tile_mat_bridge": True}'
UNARY = ("exp", "abs", "neg", "relu", "sqrt")
BINARY = ("add", "sub", "mul", "maximum", "minimum")


def _sp(space):
    return f", pl.Mem.{space}" if space else ""


class _Kernel:
    """One InCore function: parameters x (FP32), a, b (BF16), w (wide BF16), out_0."""

    def __init__(self, name: str, rng: random.Random):
        self.name = name
        self.rng = rng
        self.lines: list[str] = []
        self.n = 0               # statements emitted
        self.k = 0               # fresh-name counter
        self.vecs: list[str] = []   # FP32 Vec tiles in scope at function level

    def fresh(self, base: str) -> str:
        self.k += 1
        return f"{base}_{self.k}"

    def stmt(self, depth: int, text: str):
        self.lines.append("        " + "    " * depth + text)
        self.n += 1

    # ------------------------------------------------------------------ blocks

    def vec_operand(self, depth: int) -> str:
        if self.vecs and self.rng.random() < 0.7:
            return self.rng.choice(self.vecs[-6:])
        v = self.fresh("x")
        self.stmt(depth, f"{v}: {T64.format(sp=_sp('Vec'))} = pl.tile.load(x, [0, 0], [64, 64], "
                         f"[64, 64], target_memory=pl.Mem.Vec)")
        if depth == 0:
            self.vecs.append(v)
        return v

    def elementwise(self, depth: int = 0):
        rng = self.rng
        cur = self.vec_operand(depth)
        for _ in range(rng.randint(2, 6)):
            r = self.fresh("e")
            sp = _sp("Vec") if rng.random() < 0.7 else ""
            kind = rng.random()
            if kind < 0.35:
                rhs = f"pl.tile.{rng.choice(UNARY)}({cur})"
            elif kind < 0.75:
                rhs = f"pl.tile.{rng.choice(BINARY)}({cur}, {self.vec_operand(depth)})"
            else:
                rhs = f"pl.tile.muls({cur}, 0.5)"
            self.stmt(depth, f"{r}: {T64.format(sp=sp)} = {rhs}")
            cur = r
        if depth == 0:
            self.vecs.append(cur)
        return cur

    def mat_load(self, depth: int, src: str, bridge: bool, offs: str = "[0, 0]",
                 shape: str = "[64, 64]") -> str:
        v = self.fresh("m")
        self.stmt(depth, f"{v}: {B64.format(sp=_sp('Mat'))} = pl.tile.load({src}, {offs}, {shape}, "
                         f"{shape}, target_memory=pl.Mem.Mat{BRIDGE if bridge else ''})")
        return v

    def matmul(self, depth: int = 0):
        rng = self.rng
        a = self.mat_load(depth, "a", False)
        b = self.mat_load(depth, "b", False)
        if rng.random() < 0.3:
            t = self.fresh("bt")
            self.stmt(depth, f"{t}: {B64.format(sp=_sp('Mat'))} = pl.tile.transpose_view({b})")
            b = t
        if rng.random() < 0.4:             # explicit staging moves
            al, br = self.fresh("al"), self.fresh("br")
            self.stmt(depth, f"{al}: {B64.format(sp=_sp('Left'))} = pl.tile.move({a}, target_memory=pl.Mem.Left)")
            self.stmt(depth, f"{br}: {B64.format(sp=_sp('Right'))} = pl.tile.move({b}, target_memory=pl.Mem.Right)")
            a, b = al, br
        c = self.fresh("c")
        sp = _sp("Acc") if rng.random() < 0.5 else ""
        self.stmt(depth, f"{c}: {T64.format(sp=sp)} = pl.tile.matmul({a}, {b})")
        r = self.fresh("r")                 # an Acc result read by a Vec op: a move to Vec
        self.stmt(depth, f"{r}: {T64.format(sp=_sp('Vec'))} = pl.tile.add({c}, {self.vec_operand(depth)})")
        if depth == 0:
            self.vecs.append(r)

    def k_loop(self):
        """A K-loop accumulating matmul_acc over bridge loads (a residency candidate)."""
        a0 = self.mat_load(0, "a", False)
        b0 = self.mat_load(0, "b", False)
        c0 = self.fresh("c")
        self.stmt(0, f"{c0}: {T64.format(sp=_sp('Acc'))} = pl.tile.matmul({a0}, {b0})")
        k, acc, res = self.fresh("k"), self.fresh("acc"), self.fresh("res")
        self.stmt(0, f"for {k}, ({acc},) in pl.range(64, 1024, 64, init_values=({c0},)):")
        wl = self.mat_load(1, "w", True, offs=f"[0, {k}]")
        bl = self.mat_load(1, "b", True)
        l, r = self.fresh("l"), self.fresh("rr")
        self.stmt(1, f"{l}: {B64.format(sp=_sp('Left'))} = pl.tile.move({wl}, target_memory=pl.Mem.Left)")
        self.stmt(1, f"{r}: {B64.format(sp=_sp('Right'))} = pl.tile.move({bl}, target_memory=pl.Mem.Right)")
        n = self.fresh("n")
        self.stmt(1, f"{n}: {T64.format(sp=_sp('Acc'))} = pl.tile.matmul_acc({acc}, {l}, {r})")
        self.stmt(1, f"{res}: {T64.format(sp=_sp('Acc'))} = pl.yield_({n})")
        v = self.fresh("v")
        self.stmt(0, f"{v}: {T64.format(sp=_sp('Vec'))} = pl.tile.muls({res}, 1.0)")
        self.vecs.append(v)

    def branch_loop(self):
        """A loop whose body branches on the index; both arms yield a Vec phi."""
        i = self.fresh("i")
        self.stmt(0, f"for {i} in pl.range(0, 4, 1):")
        base = self.vec_operand(1)
        self.stmt(1, f"if {i} == 0:")
        phi = self.fresh("phi")
        t = self.fresh("t")
        self.lines_depth_stmt(2, f"{t}: {T64.format(sp=_sp('Vec'))} = pl.tile.exp({base})")
        self.lines_depth_stmt(2, f"{phi}: {T64.format(sp=_sp('Vec'))} = pl.yield_({t})", count=False)
        self.lines.append("        " + "    " * 1 + "else:")
        u = self.fresh("u")
        self.lines_depth_stmt(2, f"{u}: {T64.format(sp='')} = pl.tile.neg({base})")
        self.lines_depth_stmt(2, f"{phi}: {T64.format(sp=_sp('Vec'))} = pl.yield_({u})", count=False)
        for _ in range(self.rng.randint(0, 3)):
            self.elementwise(1) if self.rng.random() < 0.5 else self.matmul(1)
        self.stmt(1, f"out_0: {TENS_F} = pl.tile.store({phi}, [0, 0], out_0)")

    def lines_depth_stmt(self, depth: int, text: str, count: bool = True):
        self.lines.append("        " + "    " * depth + text)
        if count:
            self.n += 1

    def views(self):
        src = self.vec_operand(0)
        r = self.fresh("rs")
        self.stmt(0, f"{r}: {T64.format(sp='')} = pl.tile.reshape({src}, [64, 64])")
        s = self.fresh("sl")
        self.stmt(0, f"{s}: pl.Tile[[32, 64], pl.FP32] = pl.tile.slice({r}, [32, 64], [0, 0])")
        e = self.fresh("se")
        self.stmt(0, f"{e}: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp({s})")
        m = self.fresh("mv")
        self.stmt(0, f"{m}: {T64.format(sp=_sp('Mat'))} = pl.tile.move({src}, target_memory=pl.Mem.Mat)")

    def build(self, target: int) -> list[str]:
        rng = self.rng
        blocks = [(30, self.elementwise), (20, self.matmul), (12, self.k_loop),
                  (10, self.branch_loop), (10, self.views)]
        total = sum(w for w, _ in blocks)
        while self.n < target:
            k = rng.randrange(total)
            for w, f in blocks:
                if k < w:
                    f()
                    break
                k -= w
        last = self.vecs[-1] if self.vecs else self.vec_operand(0)
        self.stmt(0, f"out_0: {TENS_F} = pl.tile.store({last}, [0, 0], out_0)")
        head = ["    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, "
                "role=pl.Role.SubWorker)",
                f"    def {self.name}(x: {TENS_F}, a: {TENS_B}, b: {TENS_B}, w: {TENS_BIG}, "
                f"out_0: pl.Out[{TENS_F}]) -> {TENS_F}:"]
        return head + self.lines + ["        return out_0"]


def generate(n_stmts: int, seed: int = 0, fn_stmts: tuple[int, int] = (20, 240)) -> str:
    """A program of about ``n_stmts`` statements (see the module docstring)."""
    rng = random.Random(seed)
    out = ["# pypto.program: Bench", "import pypto.language as pl", "", "@pl.program",
           "class Bench:"]
    names, done = [], 0
    while done < n_stmts:
        target = min(rng.randint(*fn_stmts), max(1, n_stmts - done))
        k = _Kernel(f"kernel_{len(names)}", rng)
        out.extend(k.build(target))
        names.append(k.name)
        done += k.n
    out.append("    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, "
               "role=pl.Role.Orchestrator)")
    out.append(f"    def main(self, x: {TENS_F}, a: {TENS_B}, b: {TENS_B}, w: {TENS_BIG}) -> {TENS_F}:")
    for i, name in enumerate(names):
        out.append(f"        o_{i}: {TENS_F} = pl.tensor.create([64, 64], dtype=pl.FP32, "
                   f"layout=pl.TensorLayout.ND)")
        out.append(f"        r_{i}: {TENS_F} = self.{name}(x, a, b, w, o_{i})")
    out.append(f"        return r_{len(names) - 1}")
    return "\n".join(out) + "\n"


def count_statements(text: str) -> int:
    """Statements of a program as tilemem numbers them (every assignment, loop, branch)."""
    import tilemem
    from tilemem.residency.facts import extract_program
    facts = extract_program(tilemem.parse(text))
    return len(facts.rows.get("stmt", ()))


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    sys.stdout.write(generate(n, seed))
