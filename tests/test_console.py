"""``tilemem query``: the console, with -e, from a pipe, and in a real terminal (a pty)."""
import fcntl
import io
import os
import select
import signal
import subprocess
import sys
import termios
import time

import pytest

import tilemem
from tilemem.tools.console import Console, history_file

from cli_helpers import run, tilemem_command
from test_explain import MATMUL_ADD, RESIDENT, program


@pytest.fixture()
def kernel(tmp_path):
    f = tmp_path / "k.pto"
    f.write_text(program(MATMUL_ADD))
    return f


def console_for(text, backend=None):
    sol = tilemem.solve(text, backend=backend)
    out = io.StringIO()
    return Console(sol.session(), out), out


# ------------------------------------------------------------------ the Console object


def test_pattern_prints_a_table_with_source_lines():
    c, out = console_for(program(MATMUL_ADD))
    c.run_line("move_at(P, V, T)")
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["P", "V", "T", "line(P)"]
    line = next(i for i, l in enumerate(program(MATMUL_ADD).splitlines(), 1) if "pl.tile.matmul" in l)
    assert lines[2].split() == ["2", '"k:a"', '"Left"', str(line)]
    assert lines[-1] == "(3 rows)"
    assert c.errors == 0


def test_space_names_are_constants_and_conjunctions_work():
    c, out = console_for(program(MATMUL_ADD))
    c.run_line("space(V, Acc)")
    lines = out.getvalue().splitlines()
    assert lines[0] == 'note: Acc read as the constant "Acc" (quote it to be explicit)'
    assert lines[1:] == ["V", "-----", '"k:c"', "(1 row)"]          # the Acc rows, not every row
    out.truncate(0), out.seek(0)
    c.run_line('space(V, S), S = "Acc"')
    assert out.getvalue().splitlines()[2:] == ['"k:c"  "Acc"', "(1 row)"]
    out.truncate(0), out.seek(0)
    c.run_line('space(V, S), S != "Acc", !move_at(_, V, _)')
    rows = out.getvalue().splitlines()[2:-1]
    got = {tuple(r.split()) for r in rows}
    want = {(f'"{v}"', f'"{sp}"') for v, sp in c.session.query("space(V, S)").rows
            if sp != "Acc" and not c.session.query(f'move_at(P, "{v}", T)').rows}
    assert got == want and want
    out.truncate(0), out.seek(0)
    c.run_line("move_at(P, V, T), space(V, S), S < T")           # comparisons of strings
    header = out.getvalue().splitlines()[0].split()
    assert header == ["P", "V", "T", "S", "line(P)"] and c.errors == 0
    c.run_line("space(V, S), hoist(P, L)")
    assert c.errors == 1 and "backend" in out.getvalue()
    c4, out4 = console_for(RESIDENT, backend="910B")
    c4.run_line("space(V, S), hoist(P, L)")                      # two databases: say so
    assert c4.errors == 1 and ":db 1 or :db 4" in out4.getvalue()
    c4.run_line(":db 4")
    c4.run_line("hoist(P, L), considered(P, V, L)")
    assert c4.errors == 1 and "(2 rows)" in out4.getvalue()


def test_rows_export_as_csv_tsv_and_json(kernel):
    import csv
    import json
    r = run("query", kernel, "-e", "move_at(P, V, T)", "--format", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert rows[0] == ["P", "V", "T", "line(P)"] and ["2", "k:a", "Left"] == rows[1][:3]
    r = run("query", kernel, "-e", "move_at(P, V, T)", "--format", "tsv")
    assert r.stdout.splitlines()[1].split("\t")[:3] == ["2", "k:a", "Left"]
    r = run("query", kernel, "-e", 'space(V, S), S = "Acc"', "--format", "json")
    assert json.loads(r.stdout) == [{"V": "k:c", "S": "Acc"}]


def test_why_and_whynot_take_the_names_the_cli_takes():
    c, out = console_for(program(MATMUL_ADD))
    for line, start in [(":why c", "`c` is in Acc because of line"),
                        (":why k:c", "`c` is in Acc because of line"),
                        (":whynot c Vec", "`c` is not in Vec: `c` is in Acc"),
                        (":why c --not vec", "`c` is not in Vec"),
                        (":why a_Left", "`a_Left` is a tile.move of `a` to Left, inserted before line")]:
        out.truncate(0), out.seek(0)
        c.run_line(line)
        assert out.getvalue().startswith(start), line
    assert c.errors == 0


def test_ground_pattern_answers_yes_or_no():
    c, out = console_for(program(MATMUL_ADD))
    c.run_line('space("k:c", "Acc")')
    c.run_line('space("k:c", "Vec")')
    assert out.getvalue().splitlines() == ["yes", "no"]


def test_errors_are_reported_and_the_session_goes_on():
    c, out = console_for(program(MATMUL_ADD))
    for line in ["space(V", "nospace(V)", "space(V)", ":frobnicate", ":rules nope", ":why", ":depth x",
                 'space(V, "Acc")']:
        assert c.run_line(line) is True
    text = out.getvalue()
    assert c.errors == 7
    assert "error: syntax error: unexpected end of input" in text
    assert "error: unknown predicate 'nospace' (did you mean space" in text
    assert "error: predicate 'space' has arity 2 (space(var, space)), the query gives 1" in text
    assert "error: unknown command ':frobnicate'" in text
    assert text.rstrip().endswith("(1 row)")


def test_why_whynot_predicates_rules_depth_and_quit():
    c, out = console_for(program(MATMUL_ADD))
    c.run_line(':why space("k:c", "Acc")')
    assert out.getvalue().startswith('space("k:c", "Acc")    <- rules/p1_resolve.dl:')
    assert 'op_output_fixed("tile.matmul", "Acc")' in out.getvalue()
    out.truncate(0), out.seek(0)
    c.run_line(':why space("k:c", "Vec")')          # does not hold: the why-not
    assert out.getvalue().startswith('space("k:c", "Vec") does not hold.')
    out.truncate(0), out.seek(0)
    c.run_line(':whynot space("k:a", "Left")')
    assert 'what holds instead:' in out.getvalue()
    out.truncate(0), out.seek(0)
    c.run_line(":predicates move_")
    text = out.getvalue()
    assert "move_at(pos, var, target)" in text and "the move of V to T is inserted" in text
    assert "space(" not in text
    out.truncate(0), out.seek(0)
    c.run_line(":predicates")
    assert "arg(pos, index, var)" in out.getvalue() and "input" in out.getvalue()
    out.truncate(0), out.seek(0)
    c.run_line(":rules move_at")
    assert "move_at(P, V, T) :- needs(P, V, T), !move_visible(P, V, T), " in out.getvalue()
    out.truncate(0), out.seek(0)
    c.run_line(":depth 1")
    c.run_line(':why space("k:c", "Acc")')
    assert "  ..." in out.getvalue() and "op_output_fixed" not in out.getvalue()
    assert c.run_line(":help") is True and ":whynot NAME SPACE|FACT" in out.getvalue()
    assert c.run_line(":quit") is False and c.run_line(":q") is False
    assert c.errors == 0


def test_phase4_relations_need_a_backend_and_db_switch():
    c, out = console_for(RESIDENT, backend="910B")
    c.run_line("residency_hoisted(P, V, L)")
    assert '"kernel:rhs_mat"' in out.getvalue()
    out.truncate(0), out.seek(0)
    c.run_line(":db 4")
    c.run_line('assign(P, "kernel:rhs_mat_Right")')       # the rewritten program's facts
    assert "(1 row)" in out.getvalue()
    c2, out2 = console_for(RESIDENT)
    c2.run_line(':why hoist(P, L)')
    c2.run_line(':db 4')
    assert c2.errors == 2 and "backend" in out2.getvalue()


def test_completion_of_commands_and_predicates():
    c, _ = console_for(program(MATMUL_ADD))
    assert c.completions(":wh", ":wh") == [":why ", ":whynot "]
    assert "move_at(" in c.completions("move_a", "move_a")
    assert "move_at" in c.completions("move_a", ":rules move_a")
    assert c.completions("space_", ':why space_') == ["space_at(", "space_written("]


# ------------------------------------------------------------------ the command


def test_e_runs_lines_and_exits(kernel):
    r = run("query", kernel, "-e", 'space(V, "Acc")', "-e", ':why move_at(P, "k:a", T)')
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:3] == ["V", "-----", '"k:c"']
    assert 'move_at(2, "k:a", "Left")' in r.stdout and "constrained_use(" in r.stdout
    r = run("query", kernel, "-e", "space(V", "-e", 'space(V, "Acc")')
    assert r.returncode == 2 and "error: syntax error" in r.stdout and "(1 row)" in r.stdout


def test_lines_from_a_pipe(kernel):
    r = run("query", kernel, input='space(V, "Mat")\n// a comment\n:quit\nspace(V, S)\n')
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("rows)") == 1 and '"k:a"' in r.stdout and '"k:b"' in r.stdout
    assert "tilemem>" not in r.stdout               # no prompt, no banner


def test_bad_program_is_an_input_error(tmp_path):
    f = tmp_path / "bad.pto"
    f.write_text("def (")
    r = run("query", f, "-e", "space(V, S)")
    assert r.returncode == 2 and "error" in r.stderr


# ------------------------------------------------------------------ a real terminal


class Pty:
    """The console in a pseudo-terminal, driven like a user at a keyboard."""

    def __init__(self, args, env):
        self.master, slave = os.openpty()
        def controlling_terminal():           # in the child: Ctrl-C must reach it as SIGINT
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(tilemem_command() + [str(a) for a in args], stdin=slave,
                                     stdout=slave, stderr=slave, env=env, close_fds=True,
                                     preexec_fn=controlling_terminal)
        os.close(slave)
        self.buf = b""

    def expect(self, text: str, timeout: float = 60.0) -> str:
        end = time.monotonic() + timeout
        needle = text.encode()
        while needle not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {text!r}; got:\n{self.buf.decode(errors='replace')}")
            r, _, _ = select.select([self.master], [], [], left)
            if r:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"terminal closed waiting for {text!r}:\n{self.buf.decode(errors='replace')}")
                self.buf += chunk
        i = self.buf.index(needle) + len(needle)
        seen, self.buf = self.buf[:i], self.buf[i:]
        return seen.decode(errors="replace")

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait_reading(self, timeout: float = 60.0) -> None:
        """Wait until the console sleeps in readline's wait for a key. An echo is written
        while readline still handles the keys typed; a Ctrl-C that lands then only sets
        Python's signal flag, and readline's next wait for a key does not see it (a
        CPython/readline limitation: the line is dropped at the next key, not at once)."""
        wchan = f"/proc/{self.proc.pid}/wchan"
        if not os.path.exists(wchan):
            time.sleep(0.5)
            return
        end = time.monotonic() + timeout
        while not any(w in (where := open(wchan).read()) for w in ("poll", "select")):
            sleeping = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()[0] == "S"
            if sleeping and where in ("", "0"):      # the kernel hides where: give it time
                time.sleep(0.5)
                return
            if time.monotonic() > end:
                raise AssertionError("the console never waited for a key")
            time.sleep(0.01)

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_interactive_session_in_a_pty(kernel, tmp_path):
    hist = tmp_path / "history"
    env = dict(os.environ, TERM="xterm", TILEMEM_HISTFILE=str(hist), HOME=str(tmp_path))
    env.pop("TILEMEM_DEBUG", None)
    t = Pty(["query", kernel], env)
    try:
        t.expect("Type a pattern")
        t.expect("tilemem> ")
        t.send('space(V, "Acc")\r')
        assert "(1 row)" in t.expect("tilemem> ")
        # tab completion of a predicate name: "move_a" + TAB becomes "move_at("
        t.send("move_a\t")
        t.expect("move_at(")
        t.send("P, V, T)\r")
        assert "(3 rows)" in t.expect("tilemem> ")
        # history: the up arrow brings the last line back
        t.send("\x1b[A\r")
        assert "(3 rows)" in t.expect("tilemem> ")
        # an error does not end the session
        t.send("bogus(\r")
        assert "error: syntax error" in t.expect("tilemem> ")
        t.send(':why space("k:c", "Acc")\r')
        assert 'op_output_fixed("tile.matmul", "Acc")' in t.expect("tilemem> ")
        t.send(":quit\r")
        assert t.close() == 0
    finally:
        if t.proc.poll() is None:
            os.killpg(t.proc.pid, signal.SIGKILL)
    saved = hist.read_text()
    assert 'space(V, "Acc")' in saved and "move_at(P, V, T)" in saved


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_ctrl_c_and_ctrl_d_in_a_pty(kernel, tmp_path):
    env = dict(os.environ, TERM="xterm", TILEMEM_HISTFILE="", HOME=str(tmp_path))
    t = Pty(["query", kernel], env)
    try:
        t.expect("tilemem> ")
        t.send("space(V")
        t.expect("space(V")                          # echoed
        t.wait_reading()                             # and readline waits for the next key
        t.send("\x03")                               # Ctrl-C drops the line, the console stays
        t.expect("tilemem> ")
        t.send('space(V, "Mat")\r')
        assert "(2 rows)" in t.expect("tilemem> ")
        t.send("\x04")                              # Ctrl-D on an empty line leaves
        assert t.close() == 0
    finally:
        if t.proc.poll() is None:
            os.killpg(t.proc.pid, signal.SIGKILL)
    assert not (tmp_path / ".tilemem_history").exists()


def test_history_file_location(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEMEM_HISTFILE", str(tmp_path / "h"))
    assert history_file() == str(tmp_path / "h")
    monkeypatch.setenv("TILEMEM_HISTFILE", "")
    assert history_file() is None
    monkeypatch.delenv("TILEMEM_HISTFILE")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert history_file() == str(tmp_path / ".tilemem_history")
