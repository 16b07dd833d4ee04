"""A large one-shot evaluation runs in a child process (tilemem.datalog.forked), so that
clingo's symbols, never freed, leave with it: same answers, same errors, and in
process where a child cannot be used."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import tilemem
from tilemem.datalog import forked
from tilemem.datalog.forked import NOT_RUN, run_forked
from tilemem.errors import TilememError
from tilemem.infer import solver
from tilemem.infer.solver import KeyViolation

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


def test_the_result_comes_back_from_a_child():
    got = run_forked(lambda n: {"pid": [(os.getpid(),)], "rows": [(i, str(i)) for i in range(n)]}, 3)
    assert got["rows"] == [(0, "0"), (1, "1"), (2, "2")]
    assert got["pid"] != [(os.getpid(),)]


def test_an_error_comes_back_as_raised():
    def fail():
        raise KeyViolation("two rows of 'hoist'", 12, 5)
    with pytest.raises(KeyViolation) as e:
        run_forked(fail)
    assert (str(e.value), e.value.line, e.value.col) == ("two rows of 'hoist'", 12, 5)


class _Unpicklable(Exception):
    def __init__(self, a, b):
        super().__init__(a)


def test_no_answer_leaves_the_work_to_the_caller():
    def fail():
        raise _Unpicklable("x", "y")         # does not come back from pickling
    assert run_forked(fail) is NOT_RUN
    assert run_forked(os._exit, 3) is NOT_RUN


def test_not_forked_while_another_thread_runs():
    go = threading.Event()
    t = threading.Thread(target=go.wait)
    t.start()
    try:
        assert run_forked(os.getpid) is NOT_RUN
    finally:
        go.set()
        t.join()


@pytest.fixture
def forks(monkeypatch):
    """Every evaluation forked (FORK_ROWS 0): per evaluation, whether a child answered
    (None: it raised)."""
    answered = []

    def counted(*args):
        answered.append(None)
        got = run_forked(*args)
        answered[-1] = got is not NOT_RUN
        return got
    monkeypatch.setattr(solver, "FORK_ROWS", 0)
    monkeypatch.setattr(forked, "run_forked", counted)
    return answered


def test_phases_0_to_3_in_a_child_are_the_solve_in_process(forks, monkeypatch):
    from test_residency import program
    text = program()
    apart = tilemem.solve(text, backend="910B")
    assert forks == [True]                      # phases 0-3 (phase 4, the last, in process)
    assert tilemem.solve(text).text             # no phase 4 after them: in process
    assert forks == [True]
    monkeypatch.setattr(solver, "FORK_ROWS", 10**9)
    here = tilemem.solve(text, backend="910B")
    assert forks == [True]
    assert apart.text == here.text and apart.spaces == here.spaces
    assert apart.residency == here.residency and any(d.hoisted for d in here.residency)


def test_a_key_conflict_in_a_child_is_the_located_error_in_process(forks, monkeypatch, tmp_path):
    text = (Path(__file__).resolve().parents[1] / "examples" / "matmul_bias_relu.pto").read_text()
    rules = tmp_path / "left.dl"
    rules.write_text('space(V, "Left") :- space(V, "Vec").\n')
    errors = []
    for rows in (0, 10**9):
        monkeypatch.setattr(solver, "FORK_ROWS", rows)
        with pytest.raises(TilememError) as e:
            tilemem.solve(text, backend="910B", rules=[str(rules)])
        errors.append((e.value.format(), e.value.line, e.value.col))
    assert forks == [None]                      # the child raised it
    assert errors[0] == errors[1] and errors[0][1] is not None
    assert "two rows of 'space'" in errors[0][0] and f"{rules}:1" in errors[0][0]


def test_an_engine_that_frees_its_memory_is_not_forked(forks):
    pytest.importorskip("pyDatalog")
    from test_residency import program
    assert tilemem.solve(program(), backend="910B", engine="pydatalog").residency
    assert forks == []


def test_explanations_keep_their_database_in_process(forks):
    from test_residency import program
    sol = tilemem.solve(program(), backend="910B")
    del forks[:]
    assert sol.query('hoist(P, L)').rows
    assert forks == []                         # the kept databases were not forked
    sol.close()
