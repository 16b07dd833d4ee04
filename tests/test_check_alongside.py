"""A single file's printed-IR check on a spare core (tilemem.frontend.check.alongside): the
same answer and the same errors as the check in order, the check's error first, and the
child gone when the block is left by an interrupt."""
from __future__ import annotations

import os

import pytest

import tilemem
from cli_helpers import run_in_process
from test_printed_checks import KERNEL, edited
from tilemem.datalog import forked
from tilemem.errors import TilememError
from tilemem.frontend.check import alongside
from tilemem.frontend.check.alongside import checks_alongside
from tilemem.frontend.reading import read_program

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")

TYPO = edited(("pl.tile.matmul(x_tile", "pl.tile.matmull(x_tile"))


@pytest.fixture
def apart(monkeypatch):
    """Every program checked apart (no size threshold, a spare core); the children
    started, as they were asked to."""
    started = []
    start = forked.start_forked

    def counted(fn, *args):
        child = start(fn, *args)
        started.append(child)
        return child
    monkeypatch.setattr(alongside, "MIN_TEXT", 0)
    monkeypatch.setattr(alongside, "_spare_core", lambda: True)
    monkeypatch.setattr(forked, "start_forked", counted)
    return started


def _error_of(fn) -> str:
    with pytest.raises(TilememError) as e:
        fn()
    return e.value.format()


def test_a_program_checked_apart_solves_as_in_order(apart):
    with checks_alongside():
        sol = tilemem.solve(KERNEL, backend="910B")
    assert len(apart) == 1 and apart[0] is not None            # the check ran in a child
    assert sol.text == tilemem.solve(KERNEL, backend="910B").text
    assert len(apart) == 1                                     # outside a block: in order


def test_the_check_s_error_comes_back_from_the_child(apart):
    def apart_read():
        with checks_alongside():
            read_program(TYPO, "k.pto")
    got = _error_of(apart_read)
    assert got == _error_of(lambda: read_program(TYPO, "k.pto"))
    assert "unknown operation 'pl.tile.matmull'" in got and len(apart) == 1


def test_the_check_s_error_comes_before_the_solve_s(apart):
    """In order the check runs first: its error is the one reported, whatever the solve
    did after it."""
    def solve_fails_too():
        with checks_alongside():
            read_program(TYPO, "k.pto")
            raise TilememError("k.pto", 3, 1, "a later error")
    assert "unknown operation" in _error_of(solve_fails_too)

    def only_the_solve_fails():
        with checks_alongside():
            read_program(KERNEL, "k.pto")
            raise TilememError("k.pto", 3, 1, "a later error")
    assert "a later error" in _error_of(only_the_solve_fails)


def test_a_check_that_ends_without_an_answer_runs_in_process(apart, monkeypatch):
    class NoAnswer:
        def result(self):
            return forked.NOT_RUN
    monkeypatch.setattr(forked, "start_forked", lambda fn, *args: NoAnswer())

    def read():
        with checks_alongside():
            read_program(TYPO, "k.pto")
    assert "unknown operation 'pl.tile.matmull'" in _error_of(read)


def test_an_interrupt_ends_the_child(apart):
    with pytest.raises(KeyboardInterrupt):
        with checks_alongside():
            read_program(KERNEL, "k.pto")
            raise KeyboardInterrupt
    (child,) = apart
    with pytest.raises(ChildProcessError):          # killed and reaped: no zombie left
        os.waitpid(child.pid, os.WNOHANG)


def test_no_child_without_a_spare_core_or_for_a_small_program(monkeypatch):
    started = []
    monkeypatch.setattr(forked, "start_forked", lambda *a: started.append(a))
    with checks_alongside():
        read_program(KERNEL, "k.pto")               # ~1.6 kB: below MIN_TEXT
    monkeypatch.setattr(alongside, "MIN_TEXT", 0)
    monkeypatch.setattr(alongside, "_spare_core", lambda: False)
    with checks_alongside():
        read_program(KERNEL, "k.pto")
    with checks_alongside(enabled=False):
        read_program(KERNEL, "k.pto")
    assert started == []


def test_the_command_reports_the_check_s_error(apart, capsys, tmp_path):
    bad = tmp_path / "k.pto"
    bad.write_text(TYPO)
    status, out, err = run_in_process(capsys, "solve", bad)
    assert status == 2 and out == ""
    assert f"{bad}:" in err and "unknown operation 'pl.tile.matmull'" in err
    assert len(apart) == 1
    good = tmp_path / "ok.pto"
    good.write_text(KERNEL)
    status, out, err = run_in_process(capsys, "solve", good, "--backend", "910B")
    assert status == 0 and out.rstrip("\n") == tilemem.solve(KERNEL, backend="910B").text.rstrip("\n")
    assert len(apart) == 2


def test_a_program_check_program_refuses_is_refused_as_in_order(apart):
    """check_program runs in the child after check_printed: the solve, which goes on
    without it, is never what is reported."""
    from tilemem.frontend.check.alongside import checked_alongside
    bad = edited(("z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc]",
                  "z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Nowhere]"))
    in_order = _error_of(lambda: tilemem.solve(bad, backend="910B"))
    seen = []

    def apart_solve():
        with checks_alongside():
            prog = read_program(bad, "<input>")
            seen.append(checked_alongside(prog))
            tilemem.solve_program(prog, bad, "<input>", backend="910B")
    assert _error_of(apart_solve) == in_order and seen == [True]


@pytest.mark.parametrize("command", [("verify",), ("why", "z_tile"), ("why", "z_tile", "--backend", "910B")])
def test_verify_and_why_check_apart_as_in_order(apart, capsys, tmp_path, monkeypatch, command):
    """verify and why check a single large program on a spare core too (the solve's
    block): the same report and exit status as the check in order, its error first."""
    name, *options = command
    runs = {}
    for text, label in ((TYPO, "typo"), (KERNEL, "ok")):
        path = tmp_path / f"{label}.pto"
        path.write_text(text)
        args = (name, path, *options, "--no-cache")
        before = len(apart)
        runs[label, "apart"] = run_in_process(capsys, *args)
        assert len(apart) == before + 1 and apart[-1] is not None      # a child checked it
        with monkeypatch.context() as mp:
            mp.setattr(alongside, "_spare_core", lambda: False)         # in order
            runs[label, "in order"] = run_in_process(capsys, *args)
        assert len(apart) == before + 1
    assert runs["typo", "apart"] == runs["typo", "in order"]
    status, out, err = runs["typo", "apart"]
    assert status != 0 and "unknown operation 'pl.tile.matmull'" in out + err
    status, out, err = runs["ok", "apart"]
    assert runs["ok", "apart"] == runs["ok", "in order"] and status in (0, 1)     # (1: verify's violations)
    assert "unknown operation" not in out + err and out
