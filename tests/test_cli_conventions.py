"""Conventions every command shares (issue #18's rough edges): inputs, -q/-v, --json
errors, colour, "did you mean", and the message fixes."""
from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from cli_helpers import DATA, REPO, run, run_in_process
from tilemem.commands import COMMANDS

EXAMPLE = REPO / "examples" / "matmul_bias_relu.pto"
LOOP = REPO / "examples" / "accumulate_loop.pto"
VDATA = DATA / "verify"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
BROKEN = "import pypto.language as pl\n@pl.program\nclass P:\n    def f(:\n"


def _messy(path):
    path.write_text(EXAMPLE.read_text().replace("pl.tile.add(c_tile, bias_tile)",
                                                "pl.tile.add( c_tile,bias_tile )"))
    return path


# --------------------------------------------------------------------------- parsing


def test_mistyped_command_suggests_the_right_one(capsys):
    status, out, err = run_in_process(capsys, "solv", EXAMPLE)
    assert status == 2 and out == ""
    assert "tilemem: error: unknown command 'solv' (did you mean 'solve'?)" in err


def test_mistyped_option_shows_the_commands_usage_and_a_suggestion(capsys):
    status, _, err = run_in_process(capsys, "solve", EXAMPLE, "--backnd", "910B")
    assert status == 2
    assert err.startswith("usage: tilemem solve ")              # not the top-level usage
    assert "did you mean '--backend'" in err
    status, _, err = run_in_process(capsys, "graph", EXAMPLE, "--layout", "dott")
    assert "unknown value for --layout 'dott' (did you mean 'dot'?)" in err


@pytest.mark.parametrize("name", [c for c in COMMANDS])
def test_every_command_has_a_description_and_the_common_options(name, capsys):
    from tilemem.cli import build_parser
    sp = build_parser().subcommands[name]
    assert sp.description, f"`tilemem {name} --help` has no description"
    opts = {o for a in sp._actions for o in a.option_strings}
    assert {"-q", "-v", "--color", "--config", "--isolated"} <= opts


def test_fmt_help_has_a_description(capsys):
    with pytest.raises(SystemExit):
        run_in_process(capsys, "fmt", "--help")
    assert "canonical form" in " ".join(capsys.readouterr().out.split())


def test_doubled_error_prefix_is_gone(capsys):
    status, _, err = run_in_process(capsys, "why", EXAMPLE, "space(V, ")
    assert status == 2
    assert err.startswith("<query>:1:9: error: syntax error")
    assert "tilemem: error: <query>" not in err


# --------------------------------------------------------------------------- inputs


def test_verify_takes_several_files_and_directories(tmp_path, capsys):
    d = tmp_path / "d"
    (d / "x").mkdir(parents=True)
    shutil.copy(VDATA / "left_operand_in_vec.pto", d / "x" / "bad.pto")
    shutil.copy(VDATA / "ok_matmul_add.pto", d / "ok.pto")
    status, out, _ = run_in_process(capsys, "verify", d, VDATA / "ok_matmul_add.pto")
    assert status == 1
    assert f"{d / 'x' / 'bad.pto'}:12:74: error:" in out
    assert out.rstrip().endswith("in 1 file (checked 3 files)")
    status, out, _ = run_in_process(capsys, "verify", d, "--exclude", "x")
    assert (status, out) == (0, "")                            # one clean file: silent
    status, out, _ = run_in_process(capsys, "verify", d, VDATA / "ok_matmul_add.pto", "--exclude", "x")
    assert (status, out.strip()) == (0, "No violations of TileMemoryInferred (checked 2 files)")


def test_fmt_several_files_diff_and_in_place(tmp_path, capsys):
    a = _messy(tmp_path / "a.pto")
    b = tmp_path / "b.pto"
    shutil.copy(EXAMPLE, b)
    status, _, err = run_in_process(capsys, "fmt", a, b)
    assert status == 2 and "say what to do with them" in err
    status, out, _ = run_in_process(capsys, "fmt", tmp_path, "--diff")
    assert status == 0 and out.startswith(f"--- {a}\n+++ {a}\n")
    assert "-        s_tile" in out and f"--- {b}" not in out
    assert a.read_text() != EXAMPLE.read_text()                # --diff writes nothing
    status, _, err = run_in_process(capsys, "fmt", tmp_path, "-i")
    assert status == 0 and a.read_text() == EXAMPLE.read_text()
    assert "2 files, 1 reformatted" in err
    assert run_in_process(capsys, "fmt", tmp_path, "--check")[0] == 0


def test_stdin_filename_names_standard_input(capsys, monkeypatch):
    status, out, _ = run_in_process(capsys, "fmt", "-", "--check", "--stdin-filename", "lib/k.pto",
                                    stdin=_messy_text(), monkeypatch=monkeypatch)
    assert status == 1 and out.startswith("lib/k.pto:12:")


def _messy_text():
    return EXAMPLE.read_text().replace("pl.tile.add(c_tile, bias_tile)", "pl.tile.add( c_tile,bias_tile )")


def test_one_program_commands_say_a_directory_is_not_one(tmp_path, capsys):
    status, _, err = run_in_process(capsys, "graph", tmp_path)
    assert status == 2 and "is a directory: `tilemem graph` reads one program" in err


@pytest.mark.parametrize("args", [("solve", EXAMPLE), ("verify", EXAMPLE), ("fmt", EXAMPLE),
                                  ("facts", EXAMPLE), ("graph", EXAMPLE), ("why", EXAMPLE, "c_tile"),
                                  ("config",), ("completion", "fish")])
def test_quiet_and_verbose_everywhere(args, capsys):
    for flag in ("-q", "-v"):
        status, _, _ = run_in_process(capsys, *args, flag)
        assert status in (0, 1), (args, flag)


# --------------------------------------------------------------------------- JSON


def test_json_always_yields_json_even_for_errors(tmp_path, capsys):
    bad = tmp_path / "bad.pto"
    bad.write_text(BROKEN)
    for args in (("solve", bad, "--json"), ("solve", tmp_path / "missing.pto", "--json"),
                 ("solve", EXAMPLE, "--json", "--backend", "nope"), ("why", bad, "x", "--json"),
                 ("solve", EXAMPLE, "--json", "--bogus")):
        status, out, err = run_in_process(capsys, *args)
        assert status == 2, args
        doc = json.loads(out)
        assert doc["schema"] == "tilemem-error/1" and doc["error"], args
        assert err.strip(), args                                  # and said on stderr too
    status, out, _ = run_in_process(capsys, "solve", bad, "--json")
    assert (json.loads(out)["line"], json.loads(out)["path"]) == (4, str(bad))


def test_json_with_diff_includes_the_diff(capsys, tmp_path):
    status, out, _ = run_in_process(capsys, "solve", LOOP, "--json", "--diff")
    assert status == 0
    doc = json.loads(out)
    assert doc["changed"] and doc["diff"].startswith(f"--- {LOOP}\n+++ {LOOP}\n")
    d = tmp_path / "d"
    d.mkdir()
    shutil.copy(LOOP, d / "l.pto")
    shutil.copy(VDATA / "ok_matmul_add.pto", d / "ok.pto")
    status, out, _ = run_in_process(capsys, "solve", d, "--json", "--diff", "-q")
    files = json.loads(out)["files"]
    assert [bool(f["diff"]) for f in files] == [f["changed"] for f in files] == [True, False]


# --------------------------------------------------------------------------- batches


def test_progress_bar_is_cleared_before_interrupted(tmp_path, capsys, monkeypatch):
    import io
    import tilemem.tools.batch as batch
    for i in range(3):
        shutil.copy(EXAMPLE, tmp_path / f"k{i}.pto")
    real = batch.run_batch

    def interrupted(*a, **kw):
        gen = real(*a, **kw)
        yield next(gen)
        raise KeyboardInterrupt

    class Tty(io.StringIO):
        def isatty(self):
            return True
    tty = Tty()
    monkeypatch.setattr(batch, "run_batch", interrupted)
    monkeypatch.setattr("sys.stderr", tty)
    from tilemem.cli import main
    assert main(["solve", str(tmp_path), "--check"]) == 130
    shown = tty.getvalue()
    assert "[" in shown and "1/3" in shown                       # the bar was drawn
    before, _, _ = shown.partition("tilemem: interrupted")
    assert before.endswith("\r\x1b[K")                           # and cleared first


# --------------------------------------------------------------------------- colour


def test_colour_follows_color_no_color_and_force_color(tmp_path):
    bad = VDATA / "left_operand_in_vec.pto"
    assert not ANSI.search(run("verify", bad).stdout)                     # not a terminal
    always = run("verify", bad, "--color", "always").stdout
    assert "\x1b[1;31merror\x1b[0m" in always or "\x1b[31;1merror" in always
    assert ANSI.sub("", always) == run("verify", bad).stdout              # colour adds nothing else
    assert not ANSI.search(run("verify", bad, env={"NO_COLOR": "1", "FORCE_COLOR": "1"}).stdout)
    assert ANSI.search(run("verify", bad, env={"FORCE_COLOR": "1"}).stdout)
    assert ANSI.search(run("verify", bad, "--color", "always", env={"NO_COLOR": "1"}).stdout)
    assert not ANSI.search(run("verify", bad, "--color", "never", env={"FORCE_COLOR": "1"}).stdout)


def test_memory_spaces_share_one_palette_on_terminals_and_pictures():
    from tilemem.tools.colors import SPACE_COLORS, Style, _xterm256
    st = Style(True)
    text = "x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)"
    coloured = st.program(text)
    assert f"\x1b[30;48;5;{_xterm256(SPACE_COLORS['Vec'])}mpl.Mem.Vec\x1b[0m" in coloured
    assert ANSI.sub("", coloured) == text
    r = run("solve", EXAMPLE, "--backend", "910B", "--color", "always")
    left = f"48;5;{_xterm256(SPACE_COLORS['Left'])}m"
    assert left in r.stdout
    from tilemem.tools.graph import space_color
    assert space_color("Left") == SPACE_COLORS["Left"]


def test_space_names_in_diagnostics_take_the_palette_colour():
    from tilemem.tools.colors import SPACE_COLORS, _xterm256
    out = run("verify", VDATA / "left_operand_in_vec.pto", "--color", "always").stdout
    first = out.splitlines()[0]
    for space in ("Left", "Vec"):
        assert f"48;5;{_xterm256(SPACE_COLORS[space])}m{space}\x1b[0m" in first


def test_exclude_from_the_command_line_and_from_pyproject(tmp_path, capsys, monkeypatch):
    d = tmp_path / "k"
    (d / "gen").mkdir(parents=True)
    shutil.copy(LOOP, d / "l.pto")                          # solving changes it
    shutil.copy(LOOP, d / "gen" / "g.pto")
    status, out, err = run_in_process(capsys, "solve", d, "--check", "--exclude", "gen", "-v")
    assert status == 1 and str(d / "gen") not in out
    assert f"tilemem: {d / 'l.pto'}: would change (" in err    # -v: one line per file
    assert "1 file, 1 would change" in err
    (tmp_path / "pyproject.toml").write_text('[tool.tilemem]\nexclude = ["l.pto"]\n')
    monkeypatch.chdir(tmp_path)
    status, out, err = run_in_process(capsys, "solve", "k", "--check", "-q")
    heads = [l for l in out.splitlines() if l.startswith("--- ")]
    assert heads == [f"--- {os.path.join('k', 'gen', 'g.pto')}"]
    status, out, err = run_in_process(capsys, "solve", "k", "--check", "-q", "--isolated")
    assert len([l for l in out.splitlines() if l.startswith("--- ")]) == 2


def test_force_color_never_changes_a_redirected_program_or_diff():
    """FORCE_COLOR colours diagnostics, but `solve k.pto > out.pto` must stay a program."""
    plain = run("solve", EXAMPLE, "--backend", "910B").stdout
    assert run("solve", EXAMPLE, "--backend", "910B", env={"FORCE_COLOR": "1"}).stdout == plain
    assert not ANSI.search(run("solve", LOOP, "--diff", env={"FORCE_COLOR": "1"}).stdout)
    assert not ANSI.search(run("fmt", EXAMPLE, env={"FORCE_COLOR": "1"}).stdout)
    assert ANSI.search(run("solve", EXAMPLE, "--color", "always").stdout)
