"""Diagnostics for machines: --output-format text|json|github|sarif on verify,
solve --check and fmt --check; SARIF validated against the SARIF 2.1.0 JSON schema."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from cli_helpers import DATA, REPO, run, run_in_process

VDATA = DATA / "verify"
EXAMPLE = REPO / "examples" / "matmul_bias_relu.pto"
SCHEMA = DATA / "sarif" / "sarif-2.1.0.json"
GH = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=[^:]+::(.+)$")


@pytest.fixture
def kernels(tmp_path):
    """kernels/ with two files violating TileMemoryInferred, one clean, one unparsable."""
    k = tmp_path / "kernels"
    (k / "sub").mkdir(parents=True)
    shutil.copy(VDATA / "left_operand_in_vec.pto", k / "a.pto")
    shutil.copy(VDATA / "loop_body_violations.pto", k / "sub" / "b.pto")
    shutil.copy(VDATA / "ok_matmul_add.pto", k / "ok.pto")
    return k


def _validate_sarif(doc):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert errors == [], "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_verify_directory_sarif_validates_against_the_schema(kernels):
    r = run("verify", "kernels/", "--output-format", "sarif", cwd=kernels.parent)
    assert r.returncode == 1 and r.stderr == ""
    doc = json.loads(r.stdout)
    _validate_sarif(doc)
    (run_,) = doc["runs"]
    assert run_["tool"]["driver"]["name"] == "tilemem"
    results = run_["results"]
    uris = {res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for res in results}
    assert uris == {"kernels/a.pto", "kernels/sub/b.pto"}
    first = next(res for res in results if res["locations"][0]["physicalLocation"]["artifactLocation"]
                 ["uri"] == "kernels/a.pto")
    assert first["ruleId"] == "operand-space" and first["level"] == "error"
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 12, "startColumn": 74, "snippet": first["locations"][0]["physicalLocation"]
        ["region"]["snippet"]}
    assert "requires Left but is in Vec" in first["message"]["text"]
    ids = [r_["id"] for r_ in run_["tool"]["driver"]["rules"]]
    assert all(ids[res["ruleIndex"]] == res["ruleId"] for res in results)


def test_sarif_of_input_errors_and_of_a_clean_run_validate(kernels):
    (kernels / "broken.pto").write_text("import pypto.language as pl\n@pl.program\nclass P:\n    def f(:\n")
    r = run("verify", kernels, "--output-format", "sarif")
    assert r.returncode == 2
    doc = json.loads(r.stdout)
    _validate_sarif(doc)
    assert "input-error" in {res["ruleId"] for res in doc["runs"][0]["results"]}
    clean = run("verify", VDATA / "ok_matmul_add.pto", "--output-format", "sarif")
    assert clean.returncode == 0
    doc = json.loads(clean.stdout)
    _validate_sarif(doc)
    assert doc["runs"][0]["results"] == []


def test_github_annotations(kernels):
    r = run("verify", kernels, "--output-format", "github")
    assert r.returncode == 1 and r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines and all(GH.match(l) for l in lines), lines
    m = GH.match(lines[0])
    assert (m.group(1), m.group(2), m.group(3), m.group(4)) == ("error", str(kernels / "a.pto"), "12", "74")
    assert "requires Left but is in Vec" in m.group(5)


def test_github_escapes_properties_and_data():
    from tilemem.tools.diagnostics import Diagnostic, render_github
    d = Diagnostic("dir,1/a:b.pto", 3, 4, "50% off\nsecond line", "input-error")
    assert render_github(d) == ("::error file=dir%2C1/a%3Ab.pto,line=3,col=4,"
                                "title=tilemem (input-error)::50%25 off%0Asecond line")


def test_json_output_and_verify_json(kernels, capsys):
    status, out, err = run_in_process(capsys, "verify", kernels, "--json")
    assert status == 1 and err == ""
    doc = json.loads(out)
    assert doc["schema"] == "tilemem-diagnostics/1"
    assert doc["summary"] == {"files": 3, "violations": len(doc["diagnostics"]), "failed": 0}
    d = doc["diagnostics"][0]
    assert d == {"path": str(kernels / "a.pto"), "line": 12, "column": 74, "severity": "error",
                 "code": "operand-space",
                 "message": "tile.matmul input 0 (x_left) requires Left but is in Vec"}
    assert run_in_process(capsys, "verify", kernels, "--output-format", "json")[1] == out


def test_solve_check_formats(tmp_path, capsys):
    k = tmp_path / "k.pto"
    shutil.copy(EXAMPLE, k)
    status, out, _ = run_in_process(capsys, "solve", k, "--check", "--output-format", "github")
    assert status == 1 and "--- " not in out                # annotations only, no diff
    (line,) = out.splitlines()
    m = GH.match(line)
    assert m and m.group(2) == str(k) and m.group(5) == "solving would change this file"
    import tilemem
    solved = tilemem.solve(k).text.splitlines()
    first = next(i for i, (a, b) in enumerate(zip(k.read_text().splitlines(), solved), 1) if a != b)
    assert int(m.group(3)) == first                          # the first line that changes
    status, out, _ = run_in_process(capsys, "solve", k, "--check", "--output-format", "sarif")
    assert status == 1
    _validate_sarif(json.loads(out))
    assert json.loads(out)["runs"][0]["results"][0]["ruleId"] == "not-solved"
    # an input that cannot be solved is a diagnostic of the check too
    bad = tmp_path / "bad.pto"
    bad.write_text("import pypto.language as pl\n@pl.program\nclass P:\n    def f(:\n")
    status, out, _ = run_in_process(capsys, "solve", bad, "--check", "--output-format", "json")
    assert status == 2
    (d,) = json.loads(out)["diagnostics"]
    assert (d["code"], d["line"]) == ("input-error", 4)


def test_fmt_check_formats(tmp_path, capsys):
    messy = tmp_path / "m.pto"
    messy.write_text(EXAMPLE.read_text().replace("pl.tile.add(c_tile, bias_tile)", "pl.tile.add( c_tile,bias_tile )"))
    status, out, err = run_in_process(capsys, "fmt", messy, "--check")
    assert status == 1 and err == ""
    assert re.match(rf"^{re.escape(str(messy))}:12:\d+: error: not in canonical form", out)
    status, out, _ = run_in_process(capsys, "fmt", messy, "--check", "--output-format", "sarif")
    assert status == 1
    doc = json.loads(out)
    _validate_sarif(doc)
    assert doc["runs"][0]["results"][0]["ruleId"] == "not-formatted"
    status, out, _ = run_in_process(capsys, "fmt", EXAMPLE, "--check", "--output-format", "github")
    assert (status, out) == (0, "")


def test_output_format_from_the_environment(kernels):
    r = run("verify", kernels, env={"TILEMEM_OUTPUT_FORMAT": "github"})
    assert r.returncode == 1 and all(GH.match(l) for l in r.stdout.splitlines())


def test_output_format_without_check_is_a_usage_error(capsys):
    status, _, err = run_in_process(capsys, "solve", EXAMPLE, "--output-format", "sarif")
    assert status == 2 and "--output-format formats the diagnostics of --check" in err
