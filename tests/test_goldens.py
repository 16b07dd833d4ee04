"""Input/expected pairs under ``tests/data/solve`` (FileCheck style), one generic test.

A case is ``NAME.pto`` (or ``NAME.py``) with any of these beside it:

* ``NAME.args``          extra command-line arguments for every command of the case, one
                         line, split like a shell would (e.g. ``--backend 910B``);
* ``NAME.expected.pto``  what ``tilemem solve NAME.pto ARGS`` prints on stdout;
* ``NAME.fmt.pto``       what ``tilemem fmt NAME.pto ARGS`` prints on stdout;
* ``NAME.stderr.txt``    what ``tilemem solve NAME.pto ARGS`` prints on stderr;
* ``NAME.report.txt``    what ``tilemem solve NAME.pto ARGS --report`` prints on stderr;
* ``NAME.why.txt``       first line ``# why VAR [OPTIONS]``, then what
                         ``tilemem why NAME.pto VAR OPTIONS ARGS`` prints on stdout;
* ``NAME.status``        the exit status of ``tilemem solve`` when it is not 0.

Paths in the outputs are relative to ``tests/data/solve`` (the commands run there).
``pytest --update-goldens tests/test_goldens.py`` rewrites every expected file that exists
from what tilemem prints now (review the diff before committing it).
"""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from cli_helpers import run_in_process

SOLVE = Path(__file__).resolve().parent / "data" / "solve"
INPUTS = sorted(p for p in SOLVE.glob("*") if p.suffix in (".pto", ".py")
                and not p.name.endswith((".expected.pto", ".fmt.pto")))

# expected-file suffix -> (command arguments before ARGS, which stream is compared)
CHECKS = {
    ".expected.pto": (["solve"], "out"),
    ".fmt.pto": (["fmt"], "out"),
    ".stderr.txt": (["solve"], "err"),
    ".report.txt": (["solve", "--report"], "err"),
}


def _case_args(src: Path) -> list[str]:
    f = src.with_suffix(".args")
    return shlex.split(f.read_text()) if f.exists() else []


def _checks():
    for src in INPUTS:
        stem = src.with_suffix("")
        for suffix in (*CHECKS, ".why.txt"):
            want = Path(str(stem) + suffix)
            if want.exists():
                yield pytest.param(src, want, id=want.name)


@pytest.mark.parametrize("src,want", list(_checks()))
def test_golden(src, want, capsys, monkeypatch, request):
    monkeypatch.chdir(SOLVE)
    extra = _case_args(src)
    if want.name.endswith(".why.txt"):
        header, _, expected = want.read_text().partition("\n")
        assert header.startswith("# why "), f"{want.name}: first line must be '# why VAR ...'"
        argv, stream, keep = ["why", src.name, *shlex.split(header[len("# why "):]), *extra], "out", header + "\n"
    else:
        cmd, stream = CHECKS[want.name[len(src.with_suffix("").name):]]
        argv, expected, keep = [cmd[0], src.name, *cmd[1:], *extra], want.read_text(), ""
    status, out, err = run_in_process(capsys, *argv)
    got = out if stream == "out" else err
    if request.config.getoption("--update-goldens"):
        want.write_text(keep + got)
        return
    if argv[0] == "solve":
        status_file = src.with_suffix(".status")
        assert status == (int(status_file.read_text()) if status_file.exists() else 0), err
    assert got == expected


def test_every_case_checks_something():
    """An input without any expected file is a forgotten case."""
    for src in INPUTS:
        stem = str(src.with_suffix(""))
        assert any(Path(stem + s).exists() for s in (*CHECKS, ".why.txt")), src.name
