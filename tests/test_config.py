"""Settings: [tool.tilemem] in pyproject.toml, TILEMEM_* variables, the command line,
and `tilemem config` showing each value with its origin."""
from __future__ import annotations

import json
import shutil

import pytest

from cli_helpers import CORPUS, REPO, run, run_in_process
from tilemem.config import ConfigError, find_config, load_settings

EXAMPLE = REPO / "examples" / "matmul_bias_relu.pto"
BRIDGED = CORPUS / "test_following_helper_call_keeps_residency_chain_inside_loop_1" / "before.pto"
NO_ENV = {"TILEMEM_BACKEND": "", "TILEMEM_ENGINE": "", "TILEMEM_OUTPUT_FORMAT": ""}


@pytest.fixture
def project(tmp_path):
    """A directory with `[tool.tilemem] backend = "910B"` and a kernel below it."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "k"\n\n[tool.tilemem]\nbackend = "910B"\n')
    (tmp_path / "src").mkdir()
    shutil.copy(EXAMPLE, tmp_path / "src" / "k.pto")
    return tmp_path


def _backend_of(result) -> str:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["backend"]


def test_pyproject_backend_is_used_shown_and_overridden(project):
    """The issue's "done when": the file's 910B is used by solve, shown by config, and
    --backend none wins over it."""
    assert _backend_of(run("solve", "k.pto", "--json", cwd=project / "src", env=NO_ENV)) == "Ascend910B"
    assert _backend_of(run("solve", "src/k.pto", "--json", cwd=project, env=NO_ENV)) == "Ascend910B"
    assert _backend_of(run("solve", "k.pto", "--json", "--backend", "none", cwd=project / "src",
                           env=NO_ENV)) is None
    shown = run("config", cwd=project / "src", env=NO_ENV)
    assert shown.returncode == 0
    assert f"config file: {project / 'pyproject.toml'}" in shown.stdout
    line = next(l for l in shown.stdout.splitlines() if l.startswith("backend"))
    assert '"910B"' in line and "Ascend910B" in line and f"{project / 'pyproject.toml'} [tool.tilemem]" in line
    over = run("config", "--backend", "none", "--json", cwd=project, env=NO_ENV)
    b = json.loads(over.stdout)["settings"]["backend"]
    assert (b["value"], b["origin"], b["canonical"]) == ("none", "command line", None)


def test_command_line_over_environment_over_file(project):
    s = load_settings({"backend": None}, [str(project / "src" / "k.pto")],
                      env={"TILEMEM_BACKEND": "950"}, keys=["backend"])
    assert (s["backend"], s.values["backend"].origin) == ("950", "environment")
    s = load_settings({"backend": "none"}, [str(project / "src" / "k.pto")],
                      env={"TILEMEM_BACKEND": "950"}, keys=["backend"])
    assert (s["backend"], s.values["backend"].origin) == ("none", "command line")
    s = load_settings({}, [str(project / "src" / "k.pto")], env={}, keys=["backend", "engine"])
    assert (s["backend"], s.values["backend"].origin) == ("910B", "file")
    assert (s["engine"], s.values["engine"].origin) == (None, "default")
    r = run("config", "--json", cwd=project, env={**NO_ENV, "TILEMEM_ENGINE": "clingo"})
    e = json.loads(r.stdout)["settings"]["engine"]
    assert (e["value"], e["origin"], e["detail"]) == ("clingo", "environment", "TILEMEM_ENGINE")


def test_isolated_and_explicit_config(project, tmp_path_factory):
    s = load_settings({}, [str(project / "src" / "k.pto")], env={}, isolated=True, keys=["backend"])
    assert s["backend"] is None and s.config_file is None
    other = tmp_path_factory.mktemp("other")
    (other / "pyproject.toml").write_text('[tool.tilemem]\nbackend = "950"\n')
    s = load_settings({}, [str(project / "src" / "k.pto")], env={},
                      config=str(other / "pyproject.toml"), keys=["backend"])
    assert s["backend"] == "950"


def test_a_pyproject_without_the_table_is_passed_over(project):
    inner = project / "src" / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    assert find_config(inner) == project / "pyproject.toml"


def test_rules_paths_are_relative_to_the_pyproject(project):
    (project / "pyproject.toml").write_text('[tool.tilemem]\nrules = ["ops/my.dl"]\n'
                                            'exclude = ["build"]\n')
    s = load_settings({}, [str(project)], env={}, keys=["rules", "exclude", "include"])
    assert s["rules"] == (str(project / "ops" / "my.dl"),)
    assert s["exclude"] == ("build",) and s["include"] == ("*.pto",)


@pytest.mark.parametrize("body, message", [
    ('backnd = "910B"', "unknown key 'backnd' (did you mean 'backend'?)"),
    ('backend = "911"', "[tool.tilemem] backend: unknown backend '911'"),
    ('engine = "clingoo"', "unknown engine 'clingoo' (did you mean 'clingo'?)"),
    ("rules = 3", "rules must be a list of strings"),
    ("backend = [", "invalid TOML"),
])
def test_bad_configuration_is_a_one_line_usage_error(tmp_path, body, message):
    (tmp_path / "pyproject.toml").write_text(f"[tool.tilemem]\n{body}\n")
    shutil.copy(EXAMPLE, tmp_path / "k.pto")
    r = run("solve", "k.pto", cwd=tmp_path, env=NO_ENV)
    assert r.returncode == 2 and r.stdout == ""
    assert message in r.stderr and str(tmp_path / "pyproject.toml") in r.stderr
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
    with pytest.raises(ConfigError):
        load_settings({}, [str(tmp_path)], env={}, keys=["backend"])


def test_bad_environment_value_names_the_variable(tmp_path):
    r = run("config", cwd=tmp_path, env={**NO_ENV, "TILEMEM_BACKEND": "nope"})
    assert r.returncode == 2 and r.stderr.startswith("tilemem: error: $TILEMEM_BACKEND: unknown backend")


def test_verbose_says_which_configuration_is_used(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.delenv("TILEMEM_BACKEND", raising=False)
    status, _, err = run_in_process(capsys, "solve", "src/k.pto", "-v")
    assert status == 0
    assert f"tilemem: config: {project / 'pyproject.toml'}; backend=910B" in err


@pytest.mark.skipif(not BRIDGED.is_file(), reason="../shared/corpus not present")
def test_bridge_marks_without_a_backend_warn(tmp_path, capsys):
    status, out, err = run_in_process(capsys, "solve", BRIDGED, "--isolated")
    assert status == 0 and out
    assert f"{BRIDGED}:13:13: warning: 2 loads carry the compiler's Mat-bridge mark" in err
    assert "--backend" in err and "[tool.tilemem] backend" in err
    status, _, err = run_in_process(capsys, "solve", BRIDGED, "--backend", "910B")
    assert status == 0 and "warning" not in err
    status, _, err = run_in_process(capsys, "solve", EXAMPLE, "--isolated")
    assert "warning" not in err                               # no marks: nothing to say
    # the warning is part of a check's diagnostics (stdout), not a failure
    status, out, _ = run_in_process(capsys, "solve", BRIDGED, "--check", "--isolated",
                                    "--output-format", "github")
    assert "::warning file=" in out and "bridge-without-backend" in out
