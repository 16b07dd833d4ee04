"""Var names after the pass: PyPTO's printer de-duplication (tilemem.ir.names) and the
name-hint rule (rules/p3_rewrite.dl, name_hint) with its hook for readers that know hints."""
from __future__ import annotations

from dataclasses import replace

import tilemem
from tilemem.infer.emitter import Solution3, emit
from tilemem.infer.solver import derive
from tilemem.ir import names
from tilemem.ir.printer import print_program

PROGRAM = """\
# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(a: pl.Tensor[[16, 128], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        x: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        x_1: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        e: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x_1)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(e, [0, 0], out_0)
        return out_0
"""


def test_printed_names_first_definition_keeps_the_bare_name():
    got = names.printed_names(["a", "m", "b", "c"], {"m": "a", "c": "a_1"})
    # a and m share hint a: in order a, a_1 -- but a_1 is a unique hint (c), reserved first
    assert got == {"a": "a", "m": "a_2", "b": "b", "c": "a_1"}


def test_definitions_in_printer_order():
    prog = tilemem.parse(PROGRAM)
    assert names.definitions(prog.functions[0]) == ["a", "out_0", "x", "x_1", "e"]


def _solve_with_hints(hints):
    prog = tilemem.parse(PROGRAM)
    prog = replace(prog, functions=[replace(prog.functions[0], name_hints=hints)])
    stmts: dict = {}
    derived, _ = derive(prog, None, (), origins=False, stmts=stmts)
    out, moves = emit(prog, stmts, Solution3.from_relations(derived.rel))
    return print_program(out), [m.name for m in moves]


def test_suffixed_name_beside_its_base_is_read_as_a_second_var_with_that_hint():
    text, moves = _solve_with_hints({})
    assert moves == ["x_Vec"]
    assert "pl.tile.exp(x_Vec)" in text


def test_a_reader_that_knows_the_hint_decides_the_move_name():
    text, moves = _solve_with_hints({"x_1": "x_1"})
    assert moves == ["x_1_Vec"]
    assert "pl.tile.exp(x_1_Vec)" in text
