"""Files tilemem writes: atomically (a temp file in the same directory, then a rename),
never touching the input or an earlier output when anything fails, and a one-line error
with exit status 2 for a destination it cannot write.

Covers ``solve -o``, ``solve --in-place``, ``solve --out-dir`` (batch), ``fmt -o``,
``facts -o`` and standard output.  Subprocess tests run the installed command; fault
injection (a failing rename, an internal error, an interrupt) runs ``tilemem.cli.main``
in-process.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from cli_helpers import run, tilemem_command

GOOD = (Path(__file__).resolve().parents[1] / "examples" / "matmul_bias_relu.pto").read_text()
BAD = GOOD.replace("pl.tile.relu(s_tile)", "pl.tile.relu(s_tile")          # unclosed bracket
UNDEFINED = GOOD.replace("pl.tile.relu(s_tile)", "pl.tile.relu(nowhere)")
OLD = "previous output: must survive any failure\n"


def _leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith(".tilemem-"))


def _one_line_error(err: str, *needles: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert "error" in lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])


def _solved(text: str) -> str:
    import tilemem
    out = tilemem.solve(text).text
    return out if out.endswith("\n") else out + "\n"


# ----------------------------------------------------------------------------- -o


def test_output_written_and_no_temp_left(tmp_path):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    out = tmp_path / "out.pto"
    r = run("solve", src, "-o", out)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert out.read_text() == _solved(GOOD)
    assert src.read_text() == GOOD
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("bad", [BAD, UNDEFINED, "\x00binary", ""])
def test_bad_input_leaves_input_and_previous_output_untouched(tmp_path, bad):
    src = tmp_path / "in.pto"
    src.write_text(bad)
    out = tmp_path / "out.pto"
    out.write_text(OLD)
    before = out.stat()
    r = run("solve", src, "-o", out)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"{src}:") and "Traceback" not in r.stderr
    assert out.read_text() == OLD and out.stat().st_ino == before.st_ino
    assert src.read_text() == bad
    assert _leftovers(tmp_path) == []


def test_output_replaces_by_rename_and_keeps_permissions(tmp_path):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    out = tmp_path / "out.pto"
    out.write_text(OLD)
    os.chmod(out, 0o640)
    ino = out.stat().st_ino
    r = run("solve", src, "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == _solved(GOOD)
    assert out.stat().st_ino != ino, "written in place instead of renamed over"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_output_onto_the_input_itself(tmp_path):
    src = tmp_path / "k.pto"
    src.write_text(GOOD)
    r = run("solve", src, "-o", src)
    assert r.returncode == 0, r.stderr
    assert src.read_text() == _solved(GOOD)


@pytest.mark.parametrize("command", [["fmt"], ["facts"], ["solve", "--json"], ["solve", "--diff"]])
def test_other_commands_write_atomically_too(tmp_path, command):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    out = tmp_path / "out.txt"
    r = run(*command, src, "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_text().strip()
    out.write_text(OLD)
    src.write_text(BAD)
    r = run(*command, src, "-o", out)
    assert r.returncode == 2
    assert out.read_text() == OLD
    assert _leftovers(tmp_path) == []


# ----------------------------------------------------------------------------- unwritable destinations


def _unwritable_cases(tmp_path: Path):
    d = tmp_path / "adir"
    d.mkdir()
    return {
        "a directory": (d, "directory"),
        "missing parent": (tmp_path / "no" / "such" / "out.pto", "No such file or directory"),
        "parent is a file": (tmp_path / "in.pto" / "out.pto", "Not a directory"),
        "procfs": (Path("/proc/self/out.pto"), "cannot write"),
    }


@pytest.mark.parametrize("case", ["a directory", "missing parent", "parent is a file", "procfs"])
def test_unwritable_destination_is_a_one_line_error(tmp_path, case):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    dest, needle = _unwritable_cases(tmp_path)[case]
    r = run("solve", src, "-o", dest)
    assert r.returncode == 2, (r.returncode, r.stderr)
    _one_line_error(r.stderr, needle, str(dest))
    assert src.read_text() == GOOD


def _as_nobody() -> list[str] | None:
    """A command prefix that drops root (permissions are not enforced for root)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    probe = subprocess.run([setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups",
                            *tilemem_command(), "--version"], capture_output=True)
    return [setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups"] if probe.returncode == 0 else None


def test_read_only_directory_is_a_one_line_error():
    prefix = _as_nobody()
    if prefix is None:
        pytest.skip("running as root without a way to drop privileges")
    d = Path(tempfile.mkdtemp(prefix="tilemem-ro-"))
    try:
        os.chmod(d, 0o755)
        (d / "in.pto").write_text(GOOD)
        (d / "out.pto").write_text(OLD)
        os.chmod(d / "out.pto", 0o644)
        os.chmod(d, 0o555)
        results = [subprocess.run(prefix + tilemem_command() + args, capture_output=True, text=True)
                   for args in (["solve", str(d / "in.pto"), "-o", str(d / "new.pto")],
                                ["solve", str(d / "in.pto"), "-o", str(d / "out.pto")],
                                ["solve", "--in-place", str(d / "in.pto")])]
        for r in results:
            assert r.returncode == 2, r.stderr
            _one_line_error(r.stderr, "Permission denied")
        assert (d / "out.pto").read_text() == OLD
        assert (d / "in.pto").read_text() == GOOD
        assert not (d / "new.pto").exists()
    finally:
        os.chmod(d, 0o755)
        shutil.rmtree(d)


def test_full_standard_output_is_a_one_line_error(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    with open("/dev/full", "w") as full:
        r = subprocess.run(tilemem_command() + ["solve", str(src)], stdout=full,
                           stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2, r.stderr
    _one_line_error(r.stderr, "standard output")


# ----------------------------------------------------------------------------- fault injection


@pytest.fixture
def cli(capsys):
    from tilemem.cli import main

    def call(*args):
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return code, out, err
    return call


def test_temp_file_is_in_the_destination_directory(tmp_path, cli, monkeypatch):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    out = tmp_path / "sub" / "out.pto"
    out.parent.mkdir()
    seen = []
    real = os.replace

    def spy(a, b, *k, **kw):
        seen.append((os.fspath(a), os.fspath(b)))
        return real(a, b, *k, **kw)
    monkeypatch.setattr(os, "replace", spy)
    code, _, err = cli("solve", src, "-o", out)
    assert code == 0, err
    assert len(seen) == 1
    tmp, dst = seen[0]
    assert Path(dst).resolve() == out.resolve()
    assert Path(tmp).parent.resolve() == out.parent.resolve()
    assert Path(tmp).name.startswith(".tilemem-")
    # the name says whose it is: this host (as every version has named it: the first 8
    # hex digits of the SHA-1 of its name) and this process, then 12 random hex digits
    import hashlib
    import re
    import socket
    host = hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]
    assert re.fullmatch(rf"\.tilemem-{host}-{os.getpid()}-[0-9a-f]{{12}}\.tmp", Path(tmp).name)


def test_failed_rename_keeps_previous_output(tmp_path, cli, monkeypatch):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    out = tmp_path / "out.pto"
    out.write_text(OLD)

    def fail(a, b, *k, **kw):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", fail)
    code, _, err = cli("solve", src, "-o", out)
    assert code == 2
    _one_line_error(err, "No space left on device")
    assert out.read_text() == OLD
    assert _leftovers(tmp_path) == []


def test_internal_error_writes_nothing(tmp_path, cli, monkeypatch):
    import tilemem.pipeline
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    out = tmp_path / "out.pto"
    out.write_text(OLD)

    def boom(*a, **k):
        raise RuntimeError("injected failure")
    monkeypatch.setattr(tilemem.pipeline, "emit", boom)
    monkeypatch.delenv("TILEMEM_DEBUG", raising=False)
    code, stdout, err = cli("solve", src, "-o", out)
    assert code == 3
    assert "Traceback" not in err and "internal error" in err
    assert out.read_text() == OLD
    assert src.read_text() == GOOD
    assert _leftovers(tmp_path) == []
    code, stdout, err = cli("solve", "--in-place", src)
    assert code == 3
    assert src.read_text() == GOOD


def test_interrupt_during_write_keeps_previous_output(tmp_path, cli, monkeypatch):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    out = tmp_path / "out.pto"
    out.write_text(OLD)

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "replace", interrupted)
    code, _, err = cli("solve", src, "-o", out)
    assert code == 130
    assert out.read_text() == OLD
    assert _leftovers(tmp_path) == []


# ----------------------------------------------------------------------------- --in-place and batches


def test_in_place_rewrites_atomically_and_only_good_files(tmp_path):
    good, bad = tmp_path / "good.pto", tmp_path / "bad.pto"
    good.write_text(GOOD)
    bad.write_text(BAD)
    os.chmod(good, 0o600)
    ino = good.stat().st_ino
    r = run("solve", "--in-place", "-q", good, bad)
    assert r.returncode == 2, r.stderr
    assert good.read_text() == _solved(GOOD)
    assert good.stat().st_ino != ino
    assert stat.S_IMODE(good.stat().st_mode) == 0o600
    assert bad.read_text() == BAD
    assert r.stderr.startswith(f"{bad}:"), r.stderr
    assert _leftovers(tmp_path) == []


def test_out_dir_batch_leaves_failed_outputs_untouched(tmp_path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.pto").write_text(GOOD)
    (src / "sub" / "b.pto").write_text(UNDEFINED)
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "b.pto").write_text(OLD)
    r = run("solve", src, "--out-dir", out, "-q")
    assert r.returncode == 2, r.stderr
    assert (out / "a.pto").read_text() == _solved(GOOD)
    assert (out / "sub" / "b.pto").read_text() == OLD
    assert "Traceback" not in r.stderr
    assert (src / "sub" / "b.pto").read_text() == UNDEFINED
    for d in (out, out / "sub", src, src / "sub"):
        assert _leftovers(d) == []


def test_out_dir_that_is_a_file_is_a_clean_error(tmp_path):
    src = tmp_path / "a.pto"
    src.write_text(GOOD)
    blocker = tmp_path / "outfile"
    blocker.write_text(OLD)
    r = run("solve", src, "--out-dir", blocker, "-q")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert all("error" in line for line in r.stderr.strip().splitlines()), r.stderr
    assert blocker.read_text() == OLD


# ----------------------------------------------------------------------------- an interrupt at any step


def _sigint_at(step: int):
    """A trace function that sends this thread a real SIGINT at the ``step``-th event (a
    call or a line, in write_atomic or anything it calls in Python): Ctrl-C arriving
    then, handled wherever the signal machinery handles it (held signals wait)."""
    import signal
    state = {"events": 0, "sent": False}

    def trace(frame, event, arg):
        if event in ("call", "line"):
            state["events"] += 1
            if state["events"] == step:
                state["sent"] = True
                signal.raise_signal(signal.SIGINT)
        return trace
    return trace, state


@pytest.mark.parametrize("case", ["new", "existing", "hard-linked"])
def test_sigint_at_any_step_of_a_write_leaves_no_temp_file(tmp_path, case, monkeypatch):
    """A SIGINT in a `-j 1` batch left `out/.tilemem-<...>.tmp` behind: the signal came
    after tempfile.mkstemp had created the file but before its name reached
    write_atomic's cleanup.  Here Ctrl-C comes at every step of a write in turn: each
    time the write ends in KeyboardInterrupt and the directory holds the target only,
    old or new and never half of one (hard links agree), and no temp file."""
    import gc
    import signal
    import sys
    from tilemem.files import write_atomic
    monkeypatch.setattr(signal, "_saved_int", signal.signal(signal.SIGINT, signal.default_int_handler),
                        raising=False)
    steps = 0
    try:
        for step in range(1, 10_000):
            d = tmp_path / str(step)
            d.mkdir()
            target = d / "out.pto"
            if case != "new":
                target.write_text(OLD)
            if case == "hard-linked":
                os.link(target, d / "link.pto")
            trace, state = _sigint_at(step)
            # No garbage collection during the traced write: a gc callback (hypothesis
            # installs one) is Python code the trace would step into, and an exception
            # raised there is "ignored" by the interpreter -- the test, not the write,
            # would lose the signal.
            gc.disable()
            sys.settrace(trace)
            try:
                write_atomic(str(target), "new\n")
                interrupted = False
            except KeyboardInterrupt:
                interrupted = True
            finally:
                sys.settrace(None)
                gc.enable()
            assert interrupted == state["sent"], step       # a signal is never lost
            assert _leftovers(d) == [], (step, _leftovers(d))
            got = target.read_text() if target.exists() else None
            assert got in ({None, "new\n"} if case == "new" else {OLD, "new\n"}), (step, got)
            if case == "hard-linked":
                assert (d / "link.pto").read_text() == got, step
            shutil.rmtree(d)
            if not state["sent"]:
                steps = step
                break
    finally:
        signal.signal(signal.SIGINT, signal._saved_int)
    assert steps > 20, steps            # the trace did reach the write's steps
