"""Run the installed ``tilemem`` command in a subprocess (shared by the CLI tests)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
DATA = Path(__file__).resolve().parent / "data"


def tilemem_command() -> list[str]:
    """The installed console script of the interpreter running the tests, else the one on
    PATH, else ``python -m tilemem``."""
    sibling = Path(sys.executable).with_name("tilemem")
    if sibling.exists():
        return [str(sibling)]
    found = shutil.which("tilemem")
    if found:
        return [found]
    return [sys.executable, "-m", "tilemem"]


def run(*args, input=None, cwd=None, env=None, **kw) -> subprocess.CompletedProcess:
    """Run ``tilemem args...``; text mode, output captured."""
    e = dict(os.environ)
    e.pop("TILEMEM_DEBUG", None)
    if env:
        e.update(env)
    return subprocess.run(tilemem_command() + [str(a) for a in args], input=input,
                          capture_output=True, text=True, cwd=cwd, env=e, timeout=300, **kw)


def case(name: str) -> Path:
    return CORPUS / name


def run_in_process(capsys, *args, stdin: str | None = None, monkeypatch=None):
    """``tilemem.cli.main(args)`` in this process (rules stay cached: fast); returns
    ``(status, stdout, stderr)``.  Used for option combinations; every command also has
    subprocess tests of the installed script."""
    import io
    from tilemem.cli import main
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8"))))
    capsys.readouterr()
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err
