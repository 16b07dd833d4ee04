"""The ``tilemem`` command as a whole: ``python -m tilemem``, help and exit codes, completion."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from cli_helpers import REPO, run, run_in_process
from tilemem.commands import COMMANDS

EXAMPLE = REPO / "examples" / "matmul_bias_relu.pto"


def test_python_dash_m_works_like_the_script():
    script = run("solve", EXAMPLE, "--backend", "910B")
    module = subprocess.run([sys.executable, "-m", "tilemem", "solve", str(EXAMPLE), "--backend", "910B"],
                            capture_output=True, text=True, timeout=300)
    assert script.returncode == module.returncode == 0
    assert script.stdout == module.stdout and "a_tile_Left" in module.stdout
    usage = subprocess.run([sys.executable, "-m", "tilemem", "solve", "--backend", "nope", str(EXAMPLE)],
                           capture_output=True, text=True, timeout=300)
    assert (usage.returncode, usage.stdout) == (2, "")
    assert usage.stderr.startswith("tilemem: error: unknown backend 'nope'")


def test_help_lists_commands_and_exit_codes():
    r = run("--help")
    assert r.returncode == 0
    for name in COMMANDS:
        assert name in r.stdout
    assert "exit status:" in r.stdout
    for code in ("0  success", "1  a check failed", "2  usage or input error", "3  internal error"):
        assert code in r.stdout


@pytest.mark.parametrize("name", ["solve", "verify", "graph", "completion"])
def test_each_command_documents_exit_codes(name, capsys):
    with pytest.raises(SystemExit) as e:
        run_in_process(capsys, name, "--help")
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "exit status:" in out and "3  internal error" in out


def test_no_command_is_a_usage_error(capsys):
    status, _, err = run_in_process(capsys)
    assert status == 2 and "usage: tilemem" in err


# --------------------------------------------------------------------------- completion

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")


def _complete(script_path, words, cwd):
    """COMPREPLY of the generated completion for a command line (the last word is completed)."""
    line = " ".join(f"'{w}'" for w in words)
    prog = f"""
source '{script_path}'
COMP_WORDS=({line})
COMP_CWORD={len(words) - 1}
_tilemem
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True, text=True,
                       cwd=cwd, timeout=60)
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.splitlines() if w]


@needs_bash
def test_bash_completion_script(tmp_path):
    r = run("completion", "bash")
    assert r.returncode == 0 and r.stdout.startswith("# bash completion for tilemem")
    script = tmp_path / "tilemem.bash"
    script.write_text(r.stdout)
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    (tmp_path / "kernel.pto").write_text("")
    (tmp_path / "outdir").mkdir()
    assert _complete(script, ["tilemem", ""], tmp_path)[:len(COMMANDS)] == list(COMMANDS)
    assert _complete(script, ["tilemem", "ver"], tmp_path) == ["verify"]
    assert set(_complete(script, ["tilemem", "solve", "--ch"], tmp_path)) == {"--check"}
    assert _complete(script, ["tilemem", "solve", "--backend", "9"], tmp_path) == ["910B", "950"]
    assert _complete(script, ["tilemem", "graph", "x.pto", "--layout", ""], tmp_path) == ["auto", "dot", "builtin"]
    assert _complete(script, ["tilemem", "graph", "-T", "p"], tmp_path) == ["png"]
    assert _complete(script, ["tilemem", "verify", "ker"], tmp_path) == ["kernel.pto"]
    assert _complete(script, ["tilemem", "solve", "k.pto", "--out-dir", "o"], tmp_path) == ["outdir"]
    assert _complete(script, ["tilemem", "completion", ""], tmp_path) == ["bash", "zsh", "fish"]


def test_completion_script_follows_the_parser(capsys, tmp_path):
    """Generated, not hand-written: every option of every command is offered."""
    from tilemem.cli import build_parser
    from tilemem.commands.completion import _subparsers
    status, out, _ = run_in_process(capsys, "completion", "bash", "-o", tmp_path / "c.bash")
    assert status == 0 and out == ""
    script = (tmp_path / "c.bash").read_text()
    for name, sp in _subparsers(build_parser()).items():
        assert f"        {name})" in script
        for a in sp._actions:
            for opt in a.option_strings:
                assert opt in script


needs_fish = pytest.mark.skipif(shutil.which("fish") is None, reason="fish not installed")
needs_zsh = pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh not installed")


@needs_fish
def test_fish_completion_script(tmp_path):
    r = run("completion", "fish")
    assert r.returncode == 0 and r.stdout.startswith("# fish completion for tilemem")
    script = tmp_path / "tilemem.fish"
    script.write_text(r.stdout)
    assert subprocess.run(["fish", "-n", str(script)]).returncode == 0

    def complete(line):
        out = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C {line!r}"],
                             capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return [l.split("\t")[0] for l in out.stdout.splitlines()]
    assert complete("tilemem ver") == ["verify"]
    assert set(complete("tilemem ")) >= set(COMMANDS)
    assert "--check" in complete("tilemem solve --ch")
    assert sorted(complete("tilemem solve --backend 9")) == ["910B", "950"]
    assert sorted(complete("tilemem verify --output-format ")) == ["github", "json", "sarif", "text"]
    assert sorted(complete("tilemem completion ")) == ["bash", "fish", "zsh"]


@needs_zsh
def test_zsh_completion_script(tmp_path):
    r = run("completion", "zsh")
    assert r.returncode == 0 and r.stdout.startswith("#compdef tilemem")
    script = tmp_path / "_tilemem"
    script.write_text(r.stdout)
    assert subprocess.run(["zsh", "-n", str(script)]).returncode == 0
    # loaded with eval after compinit, it registers itself for tilemem
    prog = (f"autoload -U compinit; compinit -u -d {tmp_path}/.zcompdump; "
            f'eval "$(cat {script})"; print -r -- ${{_comps[tilemem]}}')
    out = subprocess.run(["zsh", "-f", "-c", prog], capture_output=True, text=True, timeout=60,
                         env={"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")})
    assert out.returncode == 0 and out.stdout.strip() == "_tilemem", out.stderr
    for name in COMMANDS:
        assert f"        {name})" in r.stdout


def test_every_shell_script_offers_every_option(capsys):
    from tilemem.cli import build_parser
    from tilemem.commands.completion import SCRIPTS, _subparsers
    parser = build_parser()
    for shell, make in SCRIPTS.items():
        script = make(parser)
        for name, sp in _subparsers(parser).items():
            assert name in script
            for a in sp._actions:
                for opt in a.option_strings:
                    if opt in ("-h", "--help"):
                        continue
                    word = opt if shell != "fish" else (f"-l {opt[2:]}" if opt.startswith("--")
                                                         else f"-s {opt[1:]}")
                    assert word in script, (shell, name, opt)


def test_help_width_while_another_thread_builds_a_parser(monkeypatch):
    """build_parser fixes the help formatter's width while it runs (no terminal query at
    start-up); a parser used in another thread meanwhile still gets the terminal's width."""
    import importlib
    import threading

    from tilemem import cli

    monkeypatch.setenv("COLUMNS", "123")
    inside, release = threading.Event(), threading.Event()
    real_import = importlib.import_module

    def slow_import(name, package=None):
        inside.set()
        release.wait(10)
        return real_import(name, package)

    monkeypatch.setattr(cli.importlib, "import_module", slow_import)
    builder = threading.Thread(target=cli.build_parser, args=("solve",))
    builder.start()
    try:
        assert inside.wait(10)          # the other thread is inside build_parser now
        width = cli.Parser(prog="x")._get_formatter()._width
    finally:
        release.set()
        builder.join(10)
    assert width == 123 - 2             # argparse's HelpFormatter: COLUMNS minus 2
    assert cli.Parser(prog="x")._get_formatter()._width == 121
