"""The output-rule order is defined once, by the phase-1 rules (rules/p1_resolve.dl: a fixed
space, else the call's space kwarg, else the op's default, else the first argument's
space); the space the re-derived type is stamped with (``typerules.derive._stamp``, read
from the same op table) must follow it for every op of the table.

Each op is called once without its space kwarg and once with it, on an argument that
lives in Mat, in facts given to the rules directly (no demand reaches the results: they
are never read), and the space the rules write for the result is compared with the stamp.
"""
from __future__ import annotations

import pytest

from tilemem import ir
from tilemem.datalog import Database, RuleSet
from tilemem.ir.optable import op_table
from tilemem.ir.typerules import ArgInfo
from tilemem.ir.typerules.derive import _stamp

_ARG = ArgInfo(ir.Name("a"), ir.TileType((ir.IntConst(16), ir.IntConst(16)), "FP32", space="Mat"))
_GIVEN = "Left"             # the space a call's kwarg names when it is written


def _calls():
    """(op, its space kwarg or None) for every op whose result the table stamps, and an op
    the table does not know."""
    table = op_table()
    ops = sorted({*table.fixed, *table.kwarg, *table.inherits}) + ["tile.not_in_the_table"]
    out = []
    for op in ops:
        out.append((op, None))
        if op in table.kwarg:
            out.append((op, table.kwarg[op]))
    return out


def _facts(calls):
    """One InCore function: ``a`` loaded into Mat at 0, then ``v<p> = op(a[, kw=Left])`` at
    each p >= 1."""
    rows: dict[str, list] = {r: [] for r in ("incore", "stmt", "var", "declared", "assign", "call",
                                             "called_op", "arg", "kwarg", "has_kwarg")}
    rows["incore"].append(("k",))
    rows["stmt"].append((0, "k", "assign", 0))
    rows["var"].append(("k:a", "k", "a", "plain"))
    rows["declared"].append(("k:a", "tile", "Mat"))
    rows["assign"].append((0, "k:a"))
    rows["call"].append((0, "tile.load", 1))
    rows["kwarg"].append((0, "target_memory", "Mat"))
    rows["has_kwarg"].append((0, "target_memory"))
    for op in {op for op, _ in calls} | {"tile.load"}:
        rows["called_op"].append((op, "tile"))
    for p, (op, kw) in enumerate(calls, start=1):
        v = f"k:v{p}"
        rows["stmt"].append((p, "k", "assign", 0))
        rows["var"].append((v, "k", f"v{p}", "plain"))
        rows["declared"].append((v, "tile", ""))
        rows["assign"].append((p, v))
        rows["call"].append((p, op, 1))
        rows["arg"].append((p, 0, "k:a"))
        if kw is not None:
            rows["kwarg"].append((p, kw, _GIVEN))
            rows["has_kwarg"].append((p, kw))
    return rows


@pytest.mark.parametrize("engine", ["clingo", "pydatalog"])
def test_the_stamp_follows_the_rules_output_order(engine):
    calls = _calls()
    assert len(calls) > 100
    with Database(RuleSet.from_package(), engine=engine) as db:
        for rel, rows in _facts(calls).items():
            db.add_facts(rel, rows)
        written = {(p, s) for v, p, s in db.relation("space_written") if p >= 1}
    by_pos: dict[int, set] = {}
    for p, s in written:
        by_pos.setdefault(p, set()).add(s)
    wrong = []
    for p, (op, kw) in enumerate(calls, start=1):
        kwargs = {kw: ir.Dotted(("pl", "Mem", _GIVEN))} if kw is not None else {}
        stamp = _stamp(op, [_ARG], kwargs)
        if by_pos.get(p) != {stamp}:
            wrong.append((op, kw, by_pos.get(p), stamp))
    assert wrong == []
