"""Phases 0-3 in two halves on two cores (tilemem.infer.halves): the same answer as one
solve of the whole program, on every corpus; and where a half fails, the whole program
solved as before (its answer or its error)."""
from __future__ import annotations

import json
import os

import pytest

import tilemem
from cli_helpers import CORPUS, REPO, SHARED, run_in_process
from tilemem import api
from tilemem.datalog import forked
from tilemem.errors import TilememError
from tilemem.frontend.check import alongside
from tilemem.infer import halves, solver
from tilemem.pipeline import Pipeline

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")

MODELS = SHARED / "corpus-models"
RANDOM = SHARED / "corpus-random"
KERNEL = (REPO / "examples" / "accumulate_loop.pto").read_text()


def _two_kernels(second: str = "kernel2") -> str:
    """The example kernel and a copy of it under another name: two InCore functions."""
    head, fn = KERNEL.split("    @pl.function", 1)
    fn = "    @pl.function" + fn
    return head + fn + "\n" + fn.replace("def kernel(", f"def {second}(")


def _recorded(monkeypatch) -> list[bool]:
    """Whether each solve from now on was split (appended as it ends)."""
    done: list[bool] = []

    def recorded(pipe):
        done.append(halves.solve_in_halves(pipe))
        return done[-1]
    monkeypatch.setattr(api, "solve_in_halves", recorded)
    return done


@pytest.fixture
def split(monkeypatch):
    """Every program of two InCore functions or more split (no size threshold, a core to
    spare); records whether each solve was."""
    monkeypatch.setattr(halves, "MIN_STATEMENTS", 0)
    monkeypatch.setattr(alongside, "core_to_spare", lambda: True)
    return _recorded(monkeypatch)


def _answer(text: str, path: str, backend, **kw):
    try:
        sol = tilemem.solve(text, backend=backend, path=path, **kw)
    except TilememError as e:
        return e.format()
    return (sol.text, [(f, list(vs.items())) for f, vs in sol.spaces.items()], sol.moves,
            sol.warnings, sol.residency, sol.program)


def _whole(text: str, path: str, backend, **kw):
    """The answer of one solve of the whole program (no core to spare: the library's)."""
    real = api.solve_in_halves
    api.solve_in_halves = lambda pipe: False
    try:
        return _answer(text, path, backend, **kw)
    finally:
        api.solve_in_halves = real


def _backend(case):
    meta = case / "meta.json"
    return json.loads(meta.read_text()).get("backend") if meta.is_file() else None


def _check(cases, split, want_split: int = 1):
    for src, backend in cases:
        text = src.read_text()
        whole = _whole(text, str(src), backend)
        n = len(split)
        assert _answer(text, str(src), backend) == whole, src
        assert len(split) == n + 1
    assert sum(split) >= want_split, "no program was split"


@pytest.mark.parametrize("backend", [None, "910B"])
def test_two_kernels_in_halves_equal_one_solve(split, backend):
    text = _two_kernels()
    whole = _whole(text, "two.pto", backend)
    assert _answer(text, "two.pto", backend) == whole
    assert split == [True]
    assert "def kernel2" in whole[0] and "pl.Mem.Acc" in whole[0]


def test_hand_written_dsl_in_halves_equals_one_solve(split):
    src = REPO / "examples" / "kernels.py"
    for name in ("MatmulBiasRelu", "KLoopMatmul"):
        assert _answer(src.read_text(), str(src), "910B", program=name) == \
            _whole(src.read_text(), str(src), "910B", program=name)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")
def test_golden_corpus_in_halves_equals_one_solve(split):
    cases = sorted(p for p in CORPUS.iterdir() if (p / "before.pto").is_file())
    _check([(c / "before.pto", _backend(c)) for c in cases], split)


@pytest.mark.skipif(not RANDOM.is_dir(), reason="../shared/corpus-random not present")
def test_random_programs_in_halves_equal_one_solve(split):
    """Every sixteenth generated program, printed and hand-written (the suite stays fast)."""
    cases = sorted(p for p in RANDOM.iterdir() if (p / "before.pto").is_file())[::16]
    _check([(c / name, _backend(c)) for c in cases for name in ("before.pto", "before_dsl.pto")
            if (c / name).is_file()], split, want_split=len(cases) // 2)


@pytest.mark.skipif(not MODELS.is_dir(), reason="../shared/corpus-models not present")
def test_real_kernels_in_halves_equal_one_solve(split):
    """The 8 smallest real kernels of two InCore functions or more."""
    cases = sorted((p for p in MODELS.iterdir() if (p / "before.pto").is_file()),
                   key=lambda p: (p / "before.pto").stat().st_size)
    cases = [c for c in cases if (c / "before.pto").read_text().count("FunctionType.InCore") > 1]
    _check([(c / "before.pto", _backend(c)) for c in cases[:8]], split, want_split=8)


@pytest.mark.skipif(not MODELS.is_dir(), reason="../shared/corpus-models not present")
def test_the_largest_real_kernel_is_split_by_the_command(monkeypatch, capsys):
    """`tilemem solve` of the 21,000-line kernel (over MIN_STATEMENTS, a core to spare
    where the machine has two) prints what one solve of the whole program prints."""
    case = max((p for p in MODELS.iterdir() if (p / "before.pto").is_file()),
               key=lambda p: (p / "before.pto").stat().st_size)
    src, backend = case / "before.pto", _backend(case)
    done = _recorded(monkeypatch)
    monkeypatch.setattr(alongside, "_spare_core", lambda: True)
    code, out, err = run_in_process(capsys, "solve", src, "--no-cache",
                                    *(["--backend", backend] if backend else []))
    assert code == 0, err
    assert done == [True]
    whole = _whole(src.read_text(), str(src), backend)[0]
    assert out == (whole if whole.endswith("\n") else whole + "\n")     # (the command ends a line)


def test_a_failing_half_leaves_the_whole_solve(split, monkeypatch):
    """The second half's evaluation fails: nothing is taken from the halves, and the whole
    program's solve gives its own answer (here: the same, the failure being the test's)."""
    text = _two_kernels()
    whole = _whole(text, "two.pto", "910B")
    real = Pipeline.phase3
    halved = []

    def failing(self):
        if len(self.program.functions) == 1:        # a half
            halved.append(self.program.functions[0].name)
            raise TilememError("two.pto", 1, 1, "the test's failure")
        return real(self)
    monkeypatch.setattr(Pipeline, "phase3", failing)
    assert _answer(text, "two.pto", "910B") == whole
    assert split == [False] and halved == ["kernel2"]


@pytest.mark.parametrize("how", ["raises", "dies"])
def test_a_failing_child_leaves_the_whole_solve_or_its_own_answer(split, monkeypatch, how):
    """The first half's child raises (its error comes back: the whole program is solved
    as before) or dies with no answer (its half is evaluated in this process)."""
    text = _two_kernels()
    whole = _whole(text, "two.pto", "910B")
    parent = os.getpid()
    real = solver._relations

    def in_child(*args):
        if os.getpid() != parent:
            if how == "dies":
                os._exit(3)
            raise RuntimeError("the child's failure")
        return real(*args)
    monkeypatch.setattr(solver, "_relations", in_child)
    assert _answer(text, "two.pto", "910B") == whole
    assert split == [how == "dies"]


def test_not_split_without_a_core_to_spare_or_below_the_threshold(monkeypatch):
    """The library (no command's block), a program under MIN_STATEMENTS, or one of a single
    InCore function: one solve, as before."""
    text = _two_kernels()
    pipe = Pipeline.from_text(text, "two.pto", backend="910B")
    assert not halves.solve_in_halves(pipe)                 # no core to spare
    monkeypatch.setattr(alongside, "core_to_spare", lambda: True)
    assert not halves.solve_in_halves(pipe)                 # 2 x 12 statements
    monkeypatch.setattr(halves, "MIN_STATEMENTS", 0)
    assert not halves.solve_in_halves(Pipeline.from_text(KERNEL, "one.pto", backend="910B"))
    assert not halves.solve_in_halves(Pipeline.from_text(text, "two.pto", backend="910B",
                                                         explain=True))
    assert halves.solve_in_halves(pipe)


@pytest.mark.parametrize("when", ["second half", "waiting"])
def test_an_interrupt_ends_the_child(split, monkeypatch, when):
    """Ctrl-C while the second half is solved, or while the first half's answer is
    awaited: the interrupt goes on, and the first half's child is killed and reaped."""
    started = []
    start = solver.start_derive

    def recorded(*args):
        started.append(start(*args))
        return started[-1]
    monkeypatch.setattr(solver, "start_derive", recorded)
    if when == "second half":
        real = Pipeline.phase3

        def interrupted(self):
            if len(self.program.functions) == 1:
                raise KeyboardInterrupt
            return real(self)
        monkeypatch.setattr(Pipeline, "phase3", interrupted)
    else:                                           # (the answer's read is interrupted)
        def interrupted(*args, **kw):
            raise KeyboardInterrupt
        monkeypatch.setattr(forked.os, "fdopen", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tilemem.solve(_two_kernels(), backend="910B", path="two.pto")
    (child,) = started
    with pytest.raises(ChildProcessError):          # killed and reaped: no zombie left
        os.waitpid(child.child.pid, os.WNOHANG)
