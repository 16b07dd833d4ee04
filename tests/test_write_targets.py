"""Issue #33: every write ends old or new, goes where it was asked, and never over a newer edit.

* a target that is not a regular file (FIFO, character device, socket) is written into,
  never replaced;
* a hard-linked target rewritten in place stays whole when the disk fills (a fake full
  disk, ``ulimit -f``, and where mounting is allowed a real small tmpfs);
* ``--in-place`` does not write a file changed, moved or deleted since it was read
  (single file, ``fmt``, and a ``-j 2`` batch that reports each and goes on);
* closed standard streams: stdout gone is one line and exit 2, stderr gone changes
  nothing;
* a file name with a newline and an ESC byte reaches the terminal escaped;
* a nearer pyproject.toml that is a dangling link or a directory is an error naming it.

Nothing here needs root: a device node or a mount is made only where the test may, and
the test is skipped otherwise.
"""
from __future__ import annotations

import errno
import os
import resource
import socket
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from cli_helpers import run, run_in_process, tilemem_command

GOOD = (Path(__file__).resolve().parents[1] / "examples" / "matmul_bias_relu.pto").read_text()
BAD = GOOD.replace("pl.tile.relu(s_tile)", "pl.tile.relu(s_tile")          # unclosed bracket
OLD = "old content: must survive\n" * 40


def _solved(text: str) -> str:
    import tilemem
    out = tilemem.solve(text).text
    return out if out.endswith("\n") else out + "\n"


def _one_line(err: str, *needles: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def _leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith(".tilemem-"))


# ----------------------------------------------------------------------------- streams


def _read_fifo(path: Path, into: list) -> threading.Thread:
    def reader():
        with open(path, "rb") as f:           # waits for the writer, as `cat fifo` does
            into.append(f.read())
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("command", ["solve", "fmt"])
def test_output_into_a_fifo_reaches_its_reader(tmp_path, command):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list = []
    t = _read_fifo(fifo, got)
    r = run(command, src, "-o", fifo)
    t.join(30)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)            # still the FIFO
    want = _solved(GOOD) if command == "solve" else run("fmt", src).stdout
    assert got == [want.encode()]
    assert _leftovers(tmp_path) == []


def test_batch_out_dir_writes_into_a_fifo_target(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.pto").write_text(GOOD)
    (src / "b.pto").write_text(GOOD)
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "a.pto")
    got: list = []
    t = _read_fifo(out / "a.pto", got)
    r = run("solve", "-q", "-j", "2", src, "--out-dir", out)
    t.join(30)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(out / "a.pto").st_mode)
    assert got == [_solved(GOOD).encode()]
    assert (out / "b.pto").read_text() == _solved(GOOD)


def test_output_into_a_socket(tmp_path):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    path = tmp_path / "out.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
    except OSError as e:                  # a path too long for AF_UNIX
        pytest.skip(f"cannot bind a unix socket here: {e}")
    server.listen(1)
    got: list = []

    def accept():
        conn, _ = server.accept()
        with conn:
            chunks = []
            while True:
                b = conn.recv(1 << 16)
                if not b:
                    break
                chunks.append(b)
            got.append(b"".join(chunks))
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        r = run("solve", src, "-o", path)
        t.join(30)
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    assert got == [_solved(GOOD).encode()]


def test_output_into_a_character_device(tmp_path):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))     # a /dev/null of our own
    except (PermissionError, OSError) as e:
        pytest.skip(f"cannot make a device node here: {e}")
    r = run("solve", src, "-o", dev)
    assert r.returncode == 0, r.stderr
    st = os.lstat(dev)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert _leftovers(tmp_path) == []


def test_a_fifo_whose_reader_leaves_is_a_one_line_error(tmp_path):
    """EPIPE from a stream target is the target's error, not a quiet broken pipe."""
    from tilemem.errors import UsageError
    from tilemem.files import write_atomic
    fifo = tmp_path / "f"
    os.mkfifo(fifo)

    def reader():
        with open(fifo, "rb") as f:
            f.read(1)
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    with pytest.raises(UsageError, match="Broken pipe"):
        write_atomic(str(fifo), b"x" * (8 << 20))
    t.join(30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# ----------------------------------------------------------------------------- hard links, full disks


def _hard_linked(tmp_path: Path, content: str = OLD) -> tuple[Path, Path]:
    target = tmp_path / "k.pto"
    target.write_text(content)
    twin = tmp_path / "twin.pto"
    os.link(target, twin)
    return target, twin


def _disk_with_room(monkeypatch, room: int):
    """A fake full disk: os.pwrite may fill what a file held already, and ``room`` bytes
    more past its old end; a write beyond is cut short, then fails (ENOSPC)."""
    real = os.pwrite
    ends: dict = {}

    def pwrite(fd, data, offset):
        end = ends.setdefault(os.fstat(fd).st_ino, os.fstat(fd).st_size + room)
        n = min(len(data), end - offset)
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, bytes(data[:n]), offset)
    monkeypatch.setattr(os, "pwrite", pwrite)


@pytest.mark.parametrize("room", [0, 1, 4096, 5000])
def test_hard_linked_write_that_fills_the_disk_keeps_the_old_file(tmp_path, monkeypatch, room):
    """The copy in place runs out of room ``room`` bytes past the old end (a file system
    that could not reserve): the old bytes are put back, both links agree."""
    from tilemem.errors import UsageError
    from tilemem.files import write_atomic
    target, twin = _hard_linked(tmp_path)
    ino = target.stat().st_ino
    monkeypatch.setattr(os, "posix_fallocate",
                        lambda fd, off, n: (_ for _ in ()).throw(OSError(errno.EOPNOTSUPP, "no")))
    _disk_with_room(monkeypatch, room)
    new = "new content\n" * 1000
    with pytest.raises(UsageError, match="No space left on device"):
        write_atomic(str(target), new)
    monkeypatch.undo()
    assert target.read_text() == OLD and twin.read_text() == OLD
    assert target.stat().st_ino == ino and target.stat().st_nlink == 2
    assert _leftovers(tmp_path) == []


def test_hard_linked_write_reserves_room_before_touching_a_byte(tmp_path, monkeypatch):
    """No room to reserve: nothing of the old file is written over."""
    from tilemem.errors import UsageError
    from tilemem.files import write_atomic
    target, twin = _hard_linked(tmp_path)
    writes = []
    real = os.pwrite
    monkeypatch.setattr(os, "pwrite", lambda fd, d, off: writes.append(off) or real(fd, d, off))

    def full(fd, offset, length):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "posix_fallocate", full)
    with pytest.raises(UsageError, match="No space left on device"):
        write_atomic(str(target), "new\n" * 10_000)
    monkeypatch.undo()
    assert writes == []
    assert target.read_text() == OLD == twin.read_text()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_in_place_on_a_full_disk_keeps_hard_linked_inputs(tmp_path, capsys, monkeypatch, jobs):
    """`solve --in-place` (one file, and a batch) on a disk that is full: exit 2, one line
    per file, every input whole."""
    a, a_twin = _hard_linked(tmp_path, GOOD)
    b = tmp_path / "b.pto"
    b.write_text(GOOD)
    files = [a] if jobs == "1" else [a, b]
    _disk_with_room(monkeypatch, 100)
    monkeypatch.setattr(os, "posix_fallocate",
                        lambda fd, off, n: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device")))
    real_open = os.open

    def no_temp(path, flags, *a, **k):       # the temp file of a lone link cannot be written
        if os.path.basename(os.fspath(path)).startswith(".tilemem-"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, flags, *a, **k)
    monkeypatch.setattr(os, "open", no_temp)
    status, _, err = run_in_process(capsys, "solve", "-q", "-j", jobs, "--in-place", *files)
    monkeypatch.undo()
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == len(files) and all("No space left on device" in x for x in lines), err
    assert a.read_text() == GOOD == a_twin.read_text() and b.read_text() == GOOD


def _run_limited(args, fsize: int, cwd=None):
    """The installed command with RLIMIT_FSIZE (`ulimit -f`) set to ``fsize`` bytes."""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    env = dict(os.environ)
    env.pop("TILEMEM_DEBUG", None)
    env["TILEMEM_NO_CACHE"] = "1"            # the rule cache is a file too
    return subprocess.run(tilemem_command() + [str(a) for a in args], capture_output=True,
                          text=True, preexec_fn=limit, env=env, cwd=cwd, timeout=300)


@pytest.mark.parametrize("linked", [False, True])
def test_file_size_limit_keeps_the_old_file(tmp_path, linked):
    """`ulimit -f` below the solved size: exit 2, one line, the input whole (hard-linked
    or not) and no temp file."""
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    if linked:
        os.link(src, tmp_path / "twin.pto")
    limit = len(GOOD.encode()) + 10                # the input fits, the solution does not
    assert len(_solved(GOOD).encode()) > limit
    r = _run_limited(["solve", "--in-place", src], limit)
    assert r.returncode == 2, r.stderr
    _one_line(r.stderr, "File too large", str(src))
    assert src.read_text() == GOOD
    if linked:
        assert (tmp_path / "twin.pto").read_text() == GOOD
    assert _leftovers(tmp_path) == []


def _mount_tmpfs(where: Path, size: str) -> bool:
    where.mkdir(exist_ok=True)
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                           capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def test_hard_linked_rewrite_on_a_real_small_disk(tmp_path):
    """A real tmpfs with from no room to more than enough room left (4 kB steps): the
    hard-linked file is always exactly the old or exactly the new content."""
    from tilemem.errors import UsageError
    from tilemem.files import write_atomic
    mnt = tmp_path / "mnt"
    if not _mount_tmpfs(mnt, "256k"):
        pytest.skip("mounting a tmpfs is not permitted here")
    old = b"old content\n" * 1000                  # 12,000 bytes: 3 pages
    new = b"NEW content\n" * 2000                  # 24,000 bytes: 6 pages
    seen = set()
    try:
        for free_kb in range(0, 33, 4):
            for p in mnt.iterdir():
                p.unlink()
            (mnt / "k").write_bytes(old)
            os.link(mnt / "k", mnt / "k2")
            st = os.statvfs(mnt)
            (mnt / "filler").write_bytes(b"\0" * (st.f_bavail * st.f_frsize - free_kb * 1024))
            try:
                write_atomic(str(mnt / "k"), new)
                wrote = True
            except UsageError as e:
                assert "No space left on device" in str(e)
                wrote = False
            got = (mnt / "k").read_bytes()
            assert got == (new if wrote else old), (free_kb, wrote, len(got))
            assert (mnt / "k2").read_bytes() == got
            seen.add("new" if wrote else "old")
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True, timeout=30)
    assert seen == {"old", "new"}                  # both ends of the range were reached


# ----------------------------------------------------------------------------- a file changed since it was read


def _edit_same_size_and_time(path: Path) -> None:
    """Another program's edit that keeps size and modification time: only the content
    fingerprint can see it."""
    st = path.stat()
    text = path.read_text()
    path.write_text(text.replace("pl.", "pL.", 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


_CHANGES = {
    "edited": lambda p: p.write_text(p.read_text() + "# the user's edit\n"),
    "edited, same size and time": _edit_same_size_and_time,
    "moved": lambda p: p.rename(p.with_name(p.name + ".moved")),
    "deleted": lambda p: p.unlink(),
}


@pytest.mark.parametrize("change", list(_CHANGES))
@pytest.mark.parametrize("command", ["solve", "fmt"])
def test_in_place_does_not_write_over_a_change(tmp_path, capsys, monkeypatch, change, command):
    import tilemem.commands.common as common
    src = tmp_path / "in.pto"
    # fmt rewrites a file that is not canonical: spaces inside a call's brackets
    src.write_text(GOOD if command == "solve" else GOOD.replace("relu(s_tile)", "relu( s_tile )"))
    real = common.read_input_identity

    def read_then_change(path, *a, **k):
        got = real(path, *a, **k)
        _CHANGES[change](Path(path))
        return got
    monkeypatch.setattr(common, "read_input_identity", read_then_change)
    status, out, err = run_in_process(capsys, command, "--in-place", src)
    assert status == 2, err
    line = _one_line(err, "not written", str(src))
    assert ("moved or deleted" in line) == (change in ("moved", "deleted"))
    if change in ("moved", "deleted"):
        assert not src.exists()
    else:
        assert src.read_text() != _solved(GOOD)           # the user's edit stays
        assert "user's edit" in src.read_text() or "pL." in src.read_text()
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_in_place_reports_each_changed_file_and_goes_on(tmp_path, capsys, monkeypatch, jobs):
    import tilemem.tools.batch as batch
    names = ["a_edited.pto", "b_same.pto", "c_moved.pto", "d_deleted.pto", "e_kept.pto"]
    for n in names:
        (tmp_path / n).write_text(GOOD)
    change = {"a_edited.pto": "edited", "b_same.pto": "edited, same size and time",
              "c_moved.pto": "moved", "d_deleted.pto": "deleted"}
    real = batch.run_batch

    def changed_after_reading(paths, *a, **k):
        for res in real(paths, *a, **k):       # the worker has read and solved the file
            name = os.path.basename(res.path)
            if name in change:
                _CHANGES[change[name]](tmp_path / name)
            yield res
    monkeypatch.setattr(batch, "run_batch", changed_after_reading)
    status, _, err = run_in_process(capsys, "solve", "-q", "-j", jobs, "--in-place",
                                    *(tmp_path / n for n in names))
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 4, err
    for n, line in zip(sorted(change), lines):
        assert n in line and "not written" in line, (n, line)
    assert (tmp_path / "e_kept.pto").read_text() == _solved(GOOD)     # the batch went on
    assert "user's edit" in (tmp_path / "a_edited.pto").read_text()
    assert "pL." in (tmp_path / "b_same.pto").read_text()
    assert not (tmp_path / "c_moved.pto").exists() and not (tmp_path / "d_deleted.pto").exists()
    assert (tmp_path / "c_moved.pto.moved").read_text() == GOOD


def test_unchanged_file_is_rewritten_in_place(tmp_path, capsys):
    """The check passes for a file nobody touched (plain and hard-linked)."""
    a = tmp_path / "a.pto"
    a.write_text(GOOD)
    b, twin = _hard_linked(tmp_path, GOOD)
    for f in (a, b):
        status, _, err = run_in_process(capsys, "solve", "--in-place", f)
        assert status == 0, err
        assert f.read_text() == _solved(GOOD)
    assert twin.read_text() == _solved(GOOD)


def test_file_identity_survives_pickling():
    """A batch worker reads, the parent writes: the identity crosses processes."""
    import pickle
    from tilemem.files import FileIdentity
    ident = FileIdentity.of(os.stat(__file__), b"abc")
    again = pickle.loads(pickle.dumps(ident))
    assert again == ident and again.digest == ident.digest
    assert ident != FileIdentity.of(os.stat(__file__), b"abd")


# ----------------------------------------------------------------------------- standard streams


def _run_closed(args, close: tuple[int, ...], cwd=None):
    def closer():
        for fd in close:
            os.close(fd)
    env = dict(os.environ)
    env.pop("TILEMEM_DEBUG", None)
    return subprocess.run(tilemem_command() + [str(a) for a in args], preexec_fn=closer,
                          stdout=subprocess.PIPE if 1 not in close else None,
                          stderr=subprocess.PIPE if 2 not in close else None,
                          text=True, env=env, cwd=cwd, timeout=300)


@pytest.mark.parametrize("batch", [False, True])
def test_closed_stdout_is_one_line_and_exit_2(tmp_path, batch):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    args = ["solve", src] if not batch else ["solve", "--diff", "-q", "-j", "2", src, src.parent]
    r = _run_closed(args, (1,))
    assert r.returncode == 2, r.stderr
    _one_line(r.stderr, "standard output", "closed")


def test_closed_stdout_does_not_matter_when_nothing_goes_there(tmp_path):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    r = _run_closed(["solve", src, "-o", tmp_path / "out.pto"], (1,))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.pto").read_text() == _solved(GOOD)


@pytest.mark.parametrize("args", [["solve", "{src}"], ["solve", "-j", "2", "--diff", "{src}", "{dir}"],
                                  ["fmt", "{src}"]])
def test_closed_stderr_changes_nothing(tmp_path, args):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    args = [a.format(src=src, dir=tmp_path) for a in args]
    want = run(*args)
    r = _run_closed(args, (2,))
    assert r.returncode == want.returncode == 0
    assert r.stdout == want.stdout


def test_closed_stderr_keeps_the_exit_status_of_an_error(tmp_path):
    src = tmp_path / "in.pto"
    src.write_text(BAD)
    r = _run_closed(["solve", src, "-o", tmp_path / "out.pto"], (2,))
    assert r.returncode == 2
    assert not (tmp_path / "out.pto").exists()


def test_stderr_into_a_pipe_nobody_reads_keeps_the_exit_status(tmp_path):
    """stderr a pipe whose reader is gone (``2>&1 | true``): the error cannot be said,
    the status still says it (it was 1: a traceback about the pipe)."""
    src = tmp_path / "in.pto"
    src.write_text(BAD)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        r = subprocess.run(tilemem_command() + ["solve", str(src)], stdout=subprocess.PIPE,
                           stderr=write_end, timeout=300)
    finally:
        os.close(write_end)
    assert r.returncode == 2


def _run_into_dead_pipe(args, fd: int):
    """Run tilemem with stdout (fd 1) or stderr (fd 2) a pipe whose reader is gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = dict(os.environ)
    env.pop("TILEMEM_DEBUG", None)
    streams = {"stdout": write_end, "stderr": subprocess.PIPE} if fd == 1 else \
        {"stdout": subprocess.PIPE, "stderr": write_end}
    try:
        return subprocess.run(tilemem_command() + [str(a) for a in args], text=True, env=env,
                              timeout=300, **streams)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["solve", "--help"]])
def test_help_and_version_on_a_closed_stdout_fail(args):
    """argparse drops a failed write and exits 0: the help nobody saw was a success."""
    r = _run_closed(args, (1,))
    assert r.returncode == 2, r.stderr
    _one_line(r.stderr, "standard output", "closed")


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["solve", "{src}"],
                                  ["solve", "-j", "2", "--diff", "{src}", "{dir}"]])
def test_stdout_into_a_pipe_nobody_reads_is_exit_2(tmp_path, args):
    """``tilemem ... | head -0``: the output did not arrive, so no success (it was 0)."""
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    r = _run_into_dead_pipe([a.format(src=src, dir=tmp_path) for a in args], 1)
    assert r.returncode == 2, r.stderr
    _one_line(r.stderr, "standard output", "Broken pipe")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_stderr_into_a_pipe_nobody_reads_keeps_a_batchs_status(tmp_path, jobs):
    """A batch whose errors cannot be shown (stderr a dead pipe) still fails, and the
    good files are still written (it was 0: the first error's print ended the batch)."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a_bad.pto").write_text(BAD)
    (src / "b_good.pto").write_text(GOOD)
    out = tmp_path / "out"
    r = _run_into_dead_pipe(["solve", "-j", jobs, src, "--out-dir", out], 2)
    assert r.returncode == 2
    assert (out / "b_good.pto").read_text() == _solved(GOOD)
    assert not (out / "a_bad.pto").exists()


def test_both_closed_is_exit_2_and_writes_nothing_stray(tmp_path):
    src = tmp_path / "in.pto"
    src.write_text(GOOD)
    r = _run_closed(["solve", src], (1, 2), cwd=tmp_path)
    assert r.returncode == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.pto"]


# ----------------------------------------------------------------------------- control characters in names

HOSTILE_NAME = "bad\nname\x1b[31m.pto"


def _no_raw_controls(text: str) -> None:
    assert "\x1b" not in text
    assert "\\x0a" in text and "\\x1b" in text


def test_file_name_with_control_characters_is_escaped(tmp_path):
    bad = tmp_path / HOSTILE_NAME
    bad.write_text(BAD)
    good = tmp_path / "good.pto"
    good.write_text(GOOD)
    r = run("solve", bad)                                      # a located error
    assert r.returncode == 2
    _no_raw_controls(r.stderr)
    assert r.stderr.splitlines()[0].startswith(str(tmp_path / "bad\\x0aname\\x1b[31m.pto:"))
    r = run("solve", "-j", "2", "--check", bad, good)          # a batch
    assert r.returncode == 2
    _no_raw_controls(r.stderr + r.stdout)
    r = run("solve", tmp_path / ("missing" + HOSTILE_NAME))   # unreadable
    assert r.returncode == 2
    _no_raw_controls(r.stderr)
    _one_line(r.stderr)
    r = run("solve", good, "-o", tmp_path / "no-dir" / HOSTILE_NAME)   # unwritable
    assert r.returncode == 2
    _no_raw_controls(r.stderr)
    _one_line(r.stderr, "cannot write")
    good_named = tmp_path / ("ok" + HOSTILE_NAME)
    good_named.write_text(GOOD)
    r = run("solve", "-v", "--out-dir", tmp_path / "out", good_named, good)   # verbose lines
    assert r.returncode == 0, r.stderr
    _no_raw_controls(r.stderr)


# ----------------------------------------------------------------------------- pyproject.toml


@pytest.mark.parametrize("kind", ["dangling link", "directory"])
def test_nearer_pyproject_that_is_not_a_file_is_an_error(tmp_path, kind):
    (tmp_path / "pyproject.toml").write_text('[tool.tilemem]\nbackend = "910B"\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    near = sub / "pyproject.toml"
    if kind == "dangling link":
        near.symlink_to(sub / "nowhere.toml")
    else:
        near.mkdir()
    src = sub / "in.pto"
    src.write_text(GOOD)
    r = run("solve", src)
    assert r.returncode == 2, r.stderr
    line = _one_line(r.stderr, str(near))
    assert ("does not exist" if kind == "dangling link" else "directory") in line
    assert run("solve", "--isolated", src).returncode == 0
