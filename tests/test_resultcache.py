"""The result cache (tilemem.resultcache): answers identical with and without it, never
trusted when damaged, safe under concurrent writers, bounded, in a documented place.

The rest of the suite runs with the cache off (tests/conftest.py); these tests turn it on
with a directory of their own."""
from __future__ import annotations

import json
import multiprocessing as mp
import os

import pytest

from cli_helpers import CORPUS, DATA, REPO, run, run_in_process
from tilemem.resultcache import FORMAT, ResultCache, result_key

EXAMPLE = REPO / "examples" / "matmul_bias_relu.pto"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")


@pytest.fixture
def cache_on(monkeypatch, tmp_path):
    """The result cache on, in tmp_path/cache; returns that directory."""
    monkeypatch.delenv("TILEMEM_NO_RESULT_CACHE", raising=False)
    monkeypatch.delenv("TILEMEM_NO_CACHE", raising=False)
    d = tmp_path / "cache"
    monkeypatch.setenv("TILEMEM_RESULT_CACHE_DIR", str(d))
    return d


@pytest.fixture
def solves(monkeypatch):
    """Counts the programs actually solved (not answered from the cache)."""
    import tilemem.api as api
    count = [0]
    real_solve, real_program = api.solve, api.solve_program

    def solve(*a, **kw):
        count[0] += 1
        return real_solve(*a, **kw)

    def solve_program(*a, **kw):
        count[0] += 1
        return real_program(*a, **kw)

    monkeypatch.setattr(api, "solve", solve)
    monkeypatch.setattr(api, "solve_program", solve_program)
    return count


def _entries(d):
    return sorted(p for p in d.glob("*.json"))


# ----------------------------------------------------------------------------- answers


def _golden_cases():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "before.pto").is_file())


@needs_corpus
def test_golden_answers_are_byte_identical_with_and_without_the_cache(cache_on, capsys, solves):
    """Every golden kernel: the printed program and the residency report of a fresh solve
    (--no-cache), the JSON of the solve that stores the answer, and both again from the
    cache."""
    cases = _golden_cases()
    assert cases
    for case in cases:
        meta = json.loads((case / "meta.json").read_text()) if (case / "meta.json").is_file() else {}
        be = ["--backend", meta["backend"]] if meta.get("backend") else []
        src = case / "before.pto"
        fresh = run_in_process(capsys, "solve", src, "--report", "--no-cache", *be)
        stored = run_in_process(capsys, "solve", src, "--json", *be)
        n = solves[0]
        assert run_in_process(capsys, "solve", src, "--report", *be) == fresh, case.name
        assert run_in_process(capsys, "solve", src, "--json", *be) == stored, case.name
        assert solves[0] == n, f"{case.name}: not answered from the cache"
        assert fresh[0] == 0 and fresh[1] == (case / "after.pto").read_text(), case.name
    assert len(_entries(cache_on)) == len(cases)


def test_diff_check_and_strict_answers_from_the_cache(cache_on, capsys, solves):
    args = ("solve", EXAMPLE, "--backend", "910B")
    want = [run_in_process(capsys, *args, *extra, "--no-cache")
            for extra in (["--diff"], ["--check"], ["--strict"], ["--check", "--json"])]
    run_in_process(capsys, *args)
    n = solves[0]
    got = [run_in_process(capsys, *args, *extra)
           for extra in (["--diff"], ["--check"], ["--strict"], ["--check", "--json"])]
    assert got == want and solves[0] == n


def test_dsl_modules_with_several_programs_answer_from_the_cache(cache_on, capsys, solves):
    src = REPO / "examples" / "kernels.py"
    want = run_in_process(capsys, "solve", src, "--diff", "--no-cache")
    assert run_in_process(capsys, "solve", src, "--diff") == want
    n = solves[0]
    assert run_in_process(capsys, "solve", src, "--diff") == want and solves[0] == n
    # what cannot be done with a DSL file is refused from the cache as without it
    status, _, err = run_in_process(capsys, "solve", src, "--in-place")
    assert status == 2 and "hand-written DSL" in err


def test_a_batch_twice_writes_the_same_files(cache_on, tmp_path, solves, capsys):
    inp = tmp_path / "in"
    inp.mkdir()
    for name in ("matmul_bias_relu.pto", "accumulate_loop.pto"):
        (inp / name).write_text((REPO / "examples" / name).read_text())
    outs = []
    for i, extra in enumerate((["--no-cache"], [], [])):
        out = tmp_path / f"out{i}"
        status, _, _ = run_in_process(capsys, "solve", inp, "--out-dir", out, "--backend", "910B",
                                      "-q", *extra)
        assert status == 0
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
        if i == 1:
            n = solves[0]
    assert outs[0] == outs[1] == outs[2] and solves[0] == n


def test_verify_and_why_answer_from_the_cache(cache_on, capsys, monkeypatch):
    bad = DATA / "verify" / "unannotated_tile.pto"
    want_v = run_in_process(capsys, "verify", bad, "--no-cache")
    want_w = run_in_process(capsys, "why", EXAMPLE, "c_tile", "--backend", "910B", "--no-cache")
    assert run_in_process(capsys, "verify", bad) == want_v
    assert run_in_process(capsys, "why", EXAMPLE, "c_tile", "--backend", "910B") == want_w
    import tilemem.explain as explain
    import tilemem.tools.verify as verify

    def no(*a, **kw):
        raise AssertionError("solved again")
    monkeypatch.setattr(verify, "verify", no)
    monkeypatch.setattr(explain.Session, "from_text", no)
    assert run_in_process(capsys, "verify", bad) == want_v
    assert run_in_process(capsys, "why", EXAMPLE, "c_tile", "--backend", "910B") == want_w


def test_what_the_answer_depends_on_is_in_the_key(cache_on, tmp_path, capsys, solves):
    src = tmp_path / "k.pto"
    src.write_text(EXAMPLE.read_text())
    rules = tmp_path / "my.dl"
    rules.write_text("// nothing yet\n")
    base = ("solve", src, "--rules", rules)
    run_in_process(capsys, *base)
    for change in (lambda: src.write_text(EXAMPLE.read_text() + "\n# edited\n"),
                   lambda: rules.write_text("// still nothing\n")):
        n = solves[0]
        change()
        run_in_process(capsys, *base)
        assert solves[0] == n + 1
    n = solves[0]
    run_in_process(capsys, *base, "--backend", "910B")
    run_in_process(capsys, *base, "--max-input-size", "10M")
    assert solves[0] == n + 2
    run_in_process(capsys, *base, "--backend", "910B")
    assert solves[0] == n + 2


def test_no_cache_reads_and_writes_nothing(cache_on, capsys, solves):
    run_in_process(capsys, "solve", EXAMPLE, "--no-cache")
    run_in_process(capsys, "solve", EXAMPLE, "--no-cache")
    assert solves[0] == 2 and not cache_on.exists()


# ----------------------------------------------------------------------------- where


def test_default_place_is_the_project_and_git_ignores_it(monkeypatch, tmp_path):
    monkeypatch.delenv("TILEMEM_NO_RESULT_CACHE", raising=False)
    monkeypatch.delenv("TILEMEM_NO_CACHE", raising=False)
    monkeypatch.delenv("TILEMEM_RESULT_CACHE_DIR", raising=False)
    env = {"TILEMEM_NO_RESULT_CACHE": "", "TILEMEM_NO_CACHE": ""}
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.tilemem]\nbackend = \"910B\"\n")
    (project / "src" / "k.pto").write_text(EXAMPLE.read_text())
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    r = run("solve", project / "src" / "k.pto", cwd=elsewhere, env=env)
    assert r.returncode == 0
    d = project / ".tilemem_cache"
    assert len(_entries(d)) == 1 and not (elsewhere / ".tilemem_cache").exists()
    assert (d / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (d / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    # [tool.tilemem] cache-dir, relative to the pyproject.toml
    (project / "pyproject.toml").write_text("[tool.tilemem]\ncache-dir = \"build/c\"\n")
    assert run("solve", project / "src" / "k.pto", cwd=elsewhere, env=env).returncode == 0
    assert len(_entries(project / "build" / "c")) == 1
    # --cache-dir over the file; no project: the current directory
    (project / "pyproject.toml").unlink()
    assert run("solve", project / "src" / "k.pto", "--cache-dir", tmp_path / "x", cwd=elsewhere,
               env=env).returncode == 0
    assert len(_entries(tmp_path / "x")) == 1
    assert run("solve", project / "src" / "k.pto", cwd=elsewhere, env=env).returncode == 0
    assert len(_entries(elsewhere / ".tilemem_cache")) == 1


# ----------------------------------------------------------------------------- damage


@pytest.mark.parametrize("damage", ["truncated", "garbage", "foreign key", "other format",
                                    "not an answer", "empty", "directory"])
def test_a_damaged_entry_is_ignored_and_replaced(cache_on, capsys, solves, damage):
    want = run_in_process(capsys, "solve", EXAMPLE, "--backend", "910B", "--json")
    [entry] = _entries(cache_on)
    good = entry.read_bytes()
    doc = json.loads(good)
    if damage == "truncated":
        bad = good[:len(good) // 2]
    elif damage == "garbage":
        bad = b"\x00\xff not json"
    elif damage == "foreign key":
        bad = json.dumps(dict(doc, key="0" * 64)).encode()
    elif damage == "other format":
        bad = json.dumps(dict(doc, format="tilemem-result/0")).encode()
    elif damage == "not an answer":
        bad = json.dumps(dict(doc, answer=[{"text": 3}])).encode()
    else:
        bad = b""
    if damage == "directory":
        entry.unlink()
        entry.mkdir()
    else:
        entry.write_bytes(bad)
    n = solves[0]
    assert run_in_process(capsys, "solve", EXAMPLE, "--backend", "910B", "--json") == want
    assert solves[0] == n + 1
    if damage != "directory":
        assert entry.read_bytes() == good          # replaced by the new answer
        assert run_in_process(capsys, "solve", EXAMPLE, "--backend", "910B", "--json") == want
        assert solves[0] == n + 1


def test_an_unwritable_cache_never_fails_a_command(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("TILEMEM_NO_RESULT_CACHE", raising=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    want = run_in_process(capsys, "solve", EXAMPLE, "--no-cache")
    assert run_in_process(capsys, "solve", EXAMPLE, "--cache-dir", blocker / "c") == want


# ----------------------------------------------------------------------------- concurrency


def _writer(directory: str, key: str, tag: int, n: int) -> None:
    c = ResultCache(directory)
    for i in range(n):
        c.put(key, {"tag": tag, "payload": [tag] * 20000})


def _reader(directory: str, key: str, n: int, q) -> None:
    c = ResultCache(directory)
    seen = set()
    for _ in range(n):
        got = c.get(key)
        if got is not None:
            if got["payload"] != [got["tag"]] * 20000:
                q.put("torn")
                return
            seen.add(got["tag"])
    q.put(sorted(seen))


def test_concurrent_writers_never_leave_a_torn_entry(tmp_path):
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    d = str(tmp_path / "c")
    key = "a" * 64
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(d, key, t, 40)) for t in range(3)]
    procs.append(ctx.Process(target=_reader, args=(d, key, 300, q)))
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    seen = q.get(timeout=10)
    assert seen != "torn"
    assert ResultCache(d).get(key)["tag"] in (0, 1, 2)
    assert not [n for n in os.listdir(d) if n.startswith(".tmp-")]


# ----------------------------------------------------------------------------- bound


def test_the_directory_is_kept_under_its_bound_least_recently_used_first(tmp_path):
    c = ResultCache(tmp_path / "c", max_bytes=20_000)
    keys = [f"{i:064x}" for i in range(60)]
    keep = keys[0]
    for i, k in enumerate(keys):
        c.put(k, "x" * 1000)
        os.utime(c._path(k), (1_000_000 + i, 1_000_000 + i))     # distinct ages, in order
        if i >= 1:
            os.utime(c._path(keep), None)                          # read now: most recent
        c.prune()
    total = sum(size for _, size, _ in c.entries())
    assert total <= 20_000
    assert c.get(keep) == "x" * 1000
    assert c.get(keys[-1]) == "x" * 1000
    assert c.get(keys[1]) is None


def test_the_key_covers_the_command_options_and_text():
    k = result_key("solve", "text", "a.pto", backend="910B")
    assert k == result_key("solve", "text", "a.pto", backend="910B")
    assert len({k, result_key("verify", "text", "a.pto", backend="910B"),
                result_key("solve", "text2", "a.pto", backend="910B"),
                result_key("solve", "text", "b.pto", backend="910B"),
                result_key("solve", "text", "a.pto", backend="950")}) == 5
    assert FORMAT.startswith("tilemem-result/")
