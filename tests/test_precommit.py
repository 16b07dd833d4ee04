"""The pre-commit hooks of ``.pre-commit-hooks.yaml``, run by pre-commit itself
(``pre-commit try-repo``, which installs this repository into a hook environment as a
user's ``.pre-commit-config.yaml`` would) on a scratch git repository."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import REPO

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


def _pre_commit() -> list[str]:
    if PRE_COMMIT.exists():
        return [str(PRE_COMMIT)]
    found = shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (pip install 'tilemem[test]')")
    return [found]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A git repository holding a solved program, an unsolved one, a DSL module, a Python
    module with no program and a DSL module that does not read; and where pre-commit
    keeps its hook environments (built once for the module's tests)."""
    import tilemem
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("precommit")
    repo = root / "repo"
    repo.mkdir()
    before = (REPO / "examples" / "matmul_bias_relu.pto").read_text()
    (repo / "solved.pto").write_text(tilemem.solve(before).text + "\n")
    (repo / "unsolved.pto").write_text(before)
    (repo / "kernels.py").write_text((REPO / "examples" / "kernels.py").read_text())
    (repo / "plain.py").write_text("print('no program here')\n")
    (repo / "broken.py").write_text("import pypto.language as pl\n\n@pl.program\nclass P:\n"
                                    "    @pl.function\n    def f(self, x: pl.Tensor[[4], pl.FP32]):\n"
                                    "        return undefined_name\n")
    env = {**os.environ, "PRE_COMMIT_HOME": str(root / "cache"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(cmd, cwd=repo, check=True, env=env)
    return repo, env


@pytest.fixture(scope="module")
def ran(scratch) -> tuple[str, dict[str, str]]:
    """Both hooks run once by ``pre-commit try-repo`` on every file of the scratch
    repository (try-repo builds the hooks' environment anew each time: ~1 minute):
    pre-commit's output, and each hook's part of it, by hook name."""
    repo, env = scratch
    files = ["solved.pto", "unsolved.pto", "kernels.py", "plain.py", "broken.py"]
    r = subprocess.run([*_pre_commit(), "try-repo", str(REPO), "--files", *files],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 1, r.stdout + r.stderr        # a hook failed (as it should)
    parts: dict[str, str] = {}
    current = None
    for line in r.stdout.splitlines():
        if line.startswith("tilemem verify") or line.startswith("tilemem fmt"):
            current = "tilemem-verify" if line.startswith("tilemem verify") else "tilemem-fmt-check"
            parts[current] = line + "\n"
        elif current is not None:
            parts[current] += line + "\n"
    return r.stdout, parts


def _reported(part: str) -> set[str]:
    """The files a hook's output names in a diagnostic (``file:line:...``)."""
    return {line.split(":", 1)[0] for line in part.splitlines()
            if ":" in line and line.split(":", 1)[0].endswith((".pto", ".py"))}


def test_verify_hook(ran):
    out, parts = ran
    verify = parts["tilemem-verify"]
    assert "Failed" in verify.splitlines()[0]
    # the unsolved program's violations, at their place; the solved program, the DSL
    # module (it solves, PyPTO's contract kept) and the module with no program pass
    assert "unsolved.pto:10:" in verify and "requires Left but is in" in verify
    assert _reported(verify) == {"unsolved.pto", "broken.py"}


def test_fmt_check_hook(ran):
    out, parts = ran
    fmt = parts["tilemem-fmt-check"]
    assert "Failed" in fmt.splitlines()[0]
    # canonical printed IR and modules that read pass; the module that does not read fails
    assert "broken.py:7:" in fmt and "error:" in fmt
    assert _reported(fmt) == {"broken.py"}
