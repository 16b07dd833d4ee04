"""Input/expected pairs under ``tests/data/solve`` (FileCheck style), one generic test.

A case is ``NAME.pto`` (or ``NAME.py``) with any of these beside it:

* ``NAME.args``          extra command-line arguments for every command of the case, one
                         line, split like a shell would (e.g. ``--backend 910B``); a line
                         ``COMMAND: ARGS`` gives arguments for that command only
                         (``solve: --backend 910B``);
* ``NAME.expected.pto``  what ``tilemem solve NAME.pto ARGS`` prints on stdout;
* ``NAME.fmt.pto``       what ``tilemem fmt NAME.pto ARGS`` prints on stdout;
* ``NAME.stderr.txt``    what ``tilemem solve NAME.pto ARGS`` prints on stderr;
* ``NAME.report.txt``    what ``tilemem solve NAME.pto ARGS --report`` prints on stderr;
* ``NAME.why.txt``       first line ``# why VAR [OPTIONS]``, then what
                         ``tilemem why NAME.pto VAR OPTIONS ARGS`` prints on stdout
                         (more questions about one input: ``NAME.LABEL.why.txt``);
* ``NAME.status``        the exit status of ``tilemem solve`` when it is not 0.

An input may also be a program that stays outside the repository (a real kernel of
``../shared/corpus-models``): ``NAME.ref`` holds its path relative to the repository's
folder (``../shared/...``); such a case runs in the repository's parent folder so that
the path reads the same everywhere, and skips cleanly when the file is absent.

Cases may sit in subfolders (``tests/data/solve/dsl/`` holds hand-written DSL
programs); paths in the outputs are relative to the case's own folder (the commands
run there).
``pytest --update-goldens tests/test_goldens.py`` rewrites every expected file that exists
from what tilemem prints now (review the diff before committing it).
"""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from cli_helpers import run_in_process

SOLVE = Path(__file__).resolve().parent / "data" / "solve"
REPO = Path(__file__).resolve().parents[1]       # a .ref names its input from here (../shared/...)
INPUTS = sorted(p for p in SOLVE.rglob("*") if p.suffix in (".pto", ".py", ".ref")
                and not p.name.endswith((".expected.pto", ".fmt.pto")))


def _input_of(src: Path) -> tuple[str, Path]:
    """(the input as the command is given it, the folder the command runs in)."""
    if src.suffix == ".ref":
        return src.read_text().strip(), REPO
    return src.name, src.parent

# expected-file suffix -> (command arguments before ARGS, which stream is compared)
CHECKS = {
    ".expected.pto": (["solve"], "out"),
    ".fmt.pto": (["fmt"], "out"),
    ".stderr.txt": (["solve"], "err"),
    ".report.txt": (["solve", "--report"], "err"),
}


def _case_args(src: Path, command: str) -> list[str]:
    f = src.with_suffix(".args")
    if not f.exists():
        return []
    out: list[str] = []
    for line in f.read_text().splitlines():
        head, sep, rest = line.partition(":")
        if sep and head.strip().isidentifier() and " " not in head.strip():
            if head.strip() == command:
                out += shlex.split(rest)
        else:
            out += shlex.split(line)
    return out


def _expected(src: Path) -> list[Path]:
    stem = str(src.with_suffix(""))
    found = [Path(stem + suffix) for suffix in CHECKS if Path(stem + suffix).exists()]
    name = src.with_suffix("").name
    found += [p for p in [src.parent / f"{name}.why.txt"] if p.exists()]
    found += sorted(p for p in src.parent.glob(f"{name}.*.why.txt") if p.name.count(".") == name.count(".") + 3)
    return found


def _checks():
    for src in INPUTS:
        for want in _expected(src):
            yield pytest.param(src, want, id=str(want.relative_to(SOLVE)))


@pytest.mark.parametrize("src,want", list(_checks()))
def test_golden(src, want, capsys, monkeypatch, request):
    name, where = _input_of(src)
    if not (where / name).exists():
        pytest.skip(f"{name} not found (a program kept outside the repository)")
    monkeypatch.chdir(where)
    if want.name.endswith(".why.txt"):
        extra = _case_args(src, "why")
        header, _, expected = want.read_text().partition("\n")
        assert header.startswith("# why "), f"{want.name}: first line must be '# why VAR ...'"
        argv, stream, keep = ["why", name, *shlex.split(header[len("# why "):]), *extra], "out", header + "\n"
    else:
        cmd, stream = CHECKS[want.name[len(src.with_suffix("").name):]]
        extra = _case_args(src, cmd[0])
        argv, expected, keep = [cmd[0], name, *cmd[1:], *extra], want.read_text(), ""
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
        assert _expected(src), src.name


def test_default_answers_are_short():
    """Every default ``why`` answer kept here reads in ten seconds: at most 12 lines of at
    most 100 columns, and its first sentence names the line of the program that decides
    it (a tensor is said to be one instead)."""
    import re
    n = 0
    for want in sorted(SOLVE.glob("*.why.txt")):
        header, _, text = want.read_text().partition("\n")
        if any(opt in header for opt in ("--tree", "--depth", "--json", "--width")):
            continue
        # a line's answer is one answer a tile decided there, each short
        for part in text.rstrip("\n").split("\n\n"):
            lines = part.split("\n")
            assert len(lines) <= 12 and max(map(len, lines)) <= 100, want.name
            first = " ".join(part.split()).split(". ")[0]
            assert re.search(r"\bline \d+\b", first) or "is a tensor" in first, want.name
        n += 1
    assert n >= 10
