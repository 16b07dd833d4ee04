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


def _try(scratch, hook: str, *files: str) -> subprocess.CompletedProcess:
    repo, env = scratch
    return subprocess.run([*_pre_commit(), "try-repo", str(REPO), hook, "--files", *files],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=1800)


def test_verify_hook_passes_solved_programs_and_skips_other_python(scratch):
    r = _try(scratch, "tilemem-verify", "solved.pto", "kernels.py", "plain.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout


def test_verify_hook_fails_on_a_violation_with_its_place(scratch):
    r = _try(scratch, "tilemem-verify", "solved.pto", "unsolved.pto")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Failed" in r.stdout
    assert "unsolved.pto:" in r.stdout and "requires Left but is in" in r.stdout
    assert "solved.pto:" not in r.stdout.replace("unsolved.pto:", "")


def test_fmt_check_hook(scratch):
    ok = _try(scratch, "tilemem-fmt-check", "solved.pto", "kernels.py", "plain.py")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = _try(scratch, "tilemem-fmt-check", "broken.py")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "broken.py:7:" in bad.stdout and "error:" in bad.stdout
