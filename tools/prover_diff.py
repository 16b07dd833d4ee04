#!/usr/bin/env python3
"""Differential check of tilemem's bounds prover against PyPTO's own.

usage: /tmp/pypto-oracle/venv/bin/python tools/prover_diff.py [SEED] [N]

tilemem decides ``a <= b`` between index expressions (``tilemem.ir.symbolic.prove_le``)
where PyPTO's deducers ask its arithmetic analyzer (``ProveValidExtentLessEqual``, i.e.
``Analyzer::CanProve(a <= b)``): whenever the two disagree, a valid shape prints
differently.  Run with the Python of a PyPTO build (``../shared/tools/ORACLE.md``; the
analyzer is exposed as ``pypto_core.arith.Analyzer``), from the repository root so this
checkout's tilemem is imported.  Draws N random pairs of min / max / + / - expressions
over INDEX vars and small constants and prints how many agree and the first
disagreements.  A developer's tool: nothing in the package or its tests needs PyPTO.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pypto.pypto_core as core  # noqa: E402  (only in a PyPTO build's Python)

from tilemem import ir as T  # noqa: E402
from tilemem.ir.symbolic import prove_le  # noqa: E402

P = core.ir
INDEX = core.DataType.INDEX
SPAN = P.Span.unknown()
VARS = {n: P.Var(n, P.ScalarType(INDEX), SPAN) for n in "NMK"}


def expr(depth: int, rng: random.Random):
    """One random expression as (tilemem IR, PyPTO IR)."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.5:
            v = rng.choice([0, 1, 2, 8, 16, 64])
            return T.IntConst(v), P.ConstInt(v, INDEX, SPAN)
        n = rng.choice("NMK")
        return T.Name(n), VARS[n]
    (ta, pa), (tb, pb) = expr(depth - 1, rng), expr(depth - 1, rng)
    op = rng.choice("+-<>")
    if op in "+-":
        return T.BinOp(op, ta, tb), (P.Add if op == "+" else P.Sub)(pa, pb, INDEX, SPAN)
    name, node = ("pl.min", P.Min) if op == "<" else ("pl.max", P.Max)
    return T.Call(name, (ta, tb)), node(pa, pb, INDEX, SPAN)


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    rng = random.Random(seed)
    agree, only = 0, {"tilemem": [], "pypto": []}
    for _ in range(count):
        (ta, pa), (tb, pb) = expr(2, rng), expr(2, rng)
        ours = prove_le(ta, tb)
        theirs = core.arith.Analyzer().can_prove(P.Le(pa, pb, core.DataType.BOOL, SPAN))
        if ours == theirs:
            agree += 1
        else:
            only["tilemem" if ours else "pypto"].append(f"{pa}  <=  {pb}")
    print(f"{agree}/{count} agree; tilemem proves {len(only['tilemem'])} PyPTO does not, "
          f"PyPTO proves {len(only['pypto'])} tilemem does not")
    for who, pairs in only.items():
        for p in pairs[:8]:
            print(f"  only {who}: {p}")


if __name__ == "__main__":
    main()
