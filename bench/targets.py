"""The speed goals of issue #29, measured as whole processes.

    python bench/targets.py                  # every row, with the tilemem of this Python
    python bench/targets.py --install        # ... of a fresh `pip install .` (the default install)
    python bench/targets.py --rows golden,v32 --repeat 5

Each row runs ``tilemem solve`` (the console script next to the Python used) as a child
process and reads what ``/usr/bin/time -v`` would report from ``wait4``: wall time, CPU
time (user + system) and peak resident memory.  Before every run of a row, ``python -c
pass`` runs once, so each row also gives its time as a multiple of Python's own start-up
measured in the same minutes: on a shared machine the ratio is the figure that holds,
and the goals are ratios (issue #29: "each as a ratio to ``python -c pass`` measured in the
same run"), with a peak-memory bound on the two largest inputs.
Rows (inputs from ``../shared``; a row whose inputs are absent is skipped):

* ``golden``  every golden corpus kernel (``corpus/*/before.pto`` with its backend), one
  run each per repeat; the median over the kernels of each kernel's median
* ``v32``     the 724-line DeepSeek v3.2 decode front (910B)
* ``dspark``  the 1,746-line DeepSeek dspark decode (910B)
* ``mtp``     the 21,032-line DeepSeek MTP decode (950)
* ``batch``   all real kernels: ``tilemem solve DIR --out-dir D -j 2``, one directory per
  backend (``--backend`` is per invocation), the two invocations' wall times added
* ``warm``    every golden kernel solved again, unchanged, answered from the result cache
  (filled by an untimed run); target: ≤ 2x Python's start-up
* ``batch2``  the ``batch`` row a second time, the result cache filled by the first
  (untimed) run; target ≤ 3 s wall
* ``edit``    one InCore function of the MTP kernel edited (a comment on its first body
  line) and solved again: in process by ``tilemem.Workspace`` against a cold in-process
  solve, CPU time (target ≤ 15%; the median of three edits, on functions a quarter, a
  half and three quarters into the file), and as a whole process (``tilemem solve`` of
  the edited file, the cache filled by the original: a miss)
* ``growth``  generated programs (``bench/gen.py``) of 1,000 and 50,000 statements,
  whole process (the larger: a median of 3); the growth exponent is the log-log slope of
  the CPU time (Python's start-up, the same at both sizes, subtracted first)

The cold rows run with ``--no-cache`` (the result cache would answer them after the
warm-up run).  Child processes write bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped from their
environment: ``pip install`` compiles them at install time), and one untimed run warms
the caches (bytecode, parser tables, rule program) before a row is timed.  Nothing here
asserts a time: it prints a table (Markdown, ready for ``bench/RESULTS.md``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = Path(os.environ.get("TILEMEM_SHARED") or ROOT.parent / "shared")     # (a worktree's
# ../shared may be elsewhere: TILEMEM_SHARED names it)
MODELS = SHARED / "corpus-models"
sys.path.insert(0, str(HERE))

# (row, input, goal: wall as a multiple of `python -c pass`, goal peak MB or None)
KERNELS = {
    "v32": ("pypto_lib_models_deepseek_v3_2_decode_front_910B_001", 8, None),
    "dspark": ("pypto_lib_models_deepseek_v4_flash_dspark_decode_swa_910B_002", 15, None),
    "mtp": ("pypto_lib_models_deepseek_v4_flash_mtp_decode_fwd_mtp_950_001", 150, 200),
}
GOLDEN_RATIO = 4          # a golden kernel
BATCH_RATIO = 1200        # the 352 real kernels, -j 2
GROWTH = (450, 600)       # 50,000 generated statements: ratio, peak MB
ROWS = ("golden", "v32", "dspark", "mtp", "batch", "growth", "warm", "batch2", "edit")


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: float


def run(cmd: list[str], env: dict, cwd=None) -> Sample:
    """Run one child to completion; its wall, CPU and peak RSS (like /usr/bin/time -v)."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, env=env, cwd=cwd)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: "
                               f"{err.read().decode(errors='replace')[-800:]}")
    return Sample(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024)


class Bench:
    def __init__(self, python: str, repeat: int):
        self.python = python
        script = Path(python).parent / "tilemem"
        self.tilemem = [str(script)] if script.is_file() else [python, "-m", "tilemem"]
        self.repeat = repeat
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PYTHONDONTWRITEBYTECODE", "TILEMEM_ENGINE", "TILEMEM_BACKEND")}
        self.base: list[Sample] = []        # python -c pass, one before every timed run

    def timed(self, cmd: list[str], cwd=None) -> Sample:
        self.base.append(run([self.python, "-c", "pass"], self.env))
        return run(cmd, self.env, cwd)

    def solve(self, path: Path, backend, cache_dir=None) -> list[str]:
        """``tilemem solve``: cold (no result cache) unless ``cache_dir`` is given."""
        cache = ["--cache-dir", str(cache_dir)] if cache_dir else ["--no-cache"]
        return self.tilemem + ["solve", str(path)] + (["--backend", backend] if backend else []) \
            + cache

    def python_start(self) -> float:
        if not self.base:
            self.base.append(run([self.python, "-c", "pass"], self.env))
        return statistics.median(s.wall for s in self.base)


def _backend(case: Path):
    meta = case / "meta.json"
    return json.loads(meta.read_text()).get("backend") if meta.is_file() else None


def _summary(samples: list[Sample]) -> Sample:
    return Sample(statistics.median(s.wall for s in samples),
                  statistics.median(s.cpu for s in samples), max(s.rss_mb for s in samples))


def row_golden(b: Bench, notes: list[str]):
    cases = sorted(p for p in (SHARED / "corpus").glob("*") if (p / "before.pto").is_file())
    if not cases:
        return None
    b.timed(b.solve(cases[0] / "before.pto", _backend(cases[0])))          # warm-up
    per: dict[str, list[Sample]] = {c.name: [] for c in cases}
    for _ in range(b.repeat):
        for c in cases:
            per[c.name].append(b.timed(b.solve(c / "before.pto", _backend(c))))
    meds = {name: _summary(s) for name, s in per.items()}
    slow = max(meds, key=lambda n: meds[n].wall)
    notes.append(f"golden: slowest kernel {slow} {meds[slow].wall:.3f} s wall, "
                 f"{meds[slow].cpu:.3f} s CPU")
    return (f"a golden corpus kernel ({len(cases)} kernels; median of per-kernel medians)",
            _summary(list(meds.values())), GOLDEN_RATIO, None, b.repeat, True)


def row_kernel(b: Bench, key: str, notes: list[str]):
    name, target, target_mb = KERNELS[key]
    case = MODELS / name
    if not (case / "before.pto").is_file():
        return None
    lines = (case / "before.pto").read_text().count("\n")
    cmd = b.solve(case / "before.pto", _backend(case))
    b.timed(cmd)                                                           # warm-up
    samples = [b.timed(cmd) for _ in range(b.repeat)]
    return (f"{name} ({lines} lines)", _summary(samples), target, target_mb, b.repeat, True)


def row_warm(b: Bench, notes: list[str]):
    """Every golden kernel solved again, unchanged: answered from the result cache."""
    cases = sorted(p for p in (SHARED / "corpus").glob("*") if (p / "before.pto").is_file())
    if not cases:
        return None
    with tempfile.TemporaryDirectory(prefix="tilemem-bench-") as cache:
        for c in cases:                                                    # fills the cache
            run(b.solve(c / "before.pto", _backend(c), cache), b.env)
        per: dict[str, list[Sample]] = {c.name: [] for c in cases}
        for _ in range(b.repeat):
            for c in cases:
                per[c.name].append(b.timed(b.solve(c / "before.pto", _backend(c), cache)))
    s = _summary([_summary(v) for v in per.values()])
    return (f"a golden kernel again, unchanged: from the result cache ({len(cases)} kernels)",
            s, "≤ 2× python start", None, b.repeat, s.wall <= 2 * b.python_start())


#: runs of ``python -c pass`` just before and just after the batch (row_batch)
AROUND = 15


def row_batch(b: Bench, notes: list[str], jobs: int = 2, again: bool = False):
    """The real kernels as a batch; ``again``: a second time, the result cache filled by
    the first (the first untimed)."""
    cases = sorted(p for p in MODELS.glob("*") if (p / "before.pto").is_file())
    if not cases:
        return None
    with tempfile.TemporaryDirectory(prefix="tilemem-bench-") as tmp:
        groups: dict[str, Path] = {}
        for c in cases:
            be = _backend(c) or "none"
            d = groups.setdefault(be, Path(tmp) / "in" / be)
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(c / "before.pto", d / f"{c.name}.pto")
        runs = []
        cache = ["--cache-dir", str(Path(tmp) / "cache")] if again else ["--no-cache"]
        # Python's start-up sampled around the batch too: the machine's speed may drift
        # over the minutes between the batch and the rows' own samples (two runs of one
        # commit measured its CPU 80 and 101 s)
        around = [] if again else [run([b.python, "-c", "pass"], b.env) for _ in range(AROUND)]
        for i in range(-1 if again else 0, max(1, b.repeat // 3)):
            total = Sample(0.0, 0.0, 0.0)
            for be, d in sorted(groups.items()):
                out = Path(tmp) / f"out{i}" / be
                cmd = b.tilemem + ["solve", str(d), "--out-dir", str(out), "-j", str(jobs), "-q"] \
                    + cache
                if be != "none":
                    cmd += ["--backend", be]
                s = run(cmd, b.env) if i < 0 else b.timed(cmd)      # i < 0: fills the cache
                total = Sample(total.wall + s.wall, total.cpu + s.cpu, max(total.rss_mb, s.rss_mb))
            if i >= 0:
                runs.append(total)
        counts = ", ".join(f"{be}: {len(list(d.iterdir()))} files" for be, d in sorted(groups.items()))
    if again:
        return (f"all {len(cases)} real kernels again, unchanged: from the result cache (wall)",
                _summary(runs), "≤ 3 s wall", None, len(runs), _summary(runs).wall <= 3.0)
    around += [run([b.python, "-c", "pass"], b.env) for _ in range(AROUND)]
    b.base.extend(around)
    near = statistics.median(s.wall for s in around)
    notes.append(f"batch: CPU is the parent's and its workers' together; {counts}; `python -c pass` "
                 f"just before and after it: median {near * 1000:.0f} ms over {len(around)} runs "
                 f"(the batch {_summary(runs).wall / near:.0f}x of it)")
    return (f"all {len(cases)} real kernels, `solve DIR --out-dir D -j {jobs}` (wall)",
            _summary(runs), BATCH_RATIO, None, len(runs), True)


_EDIT_PROBE = r"""
import json, statistics, sys, time
import tilemem
from tilemem.infer.solver import load_rules
path, backend, out = sys.argv[1:4]
text = open(path).read()
load_rules()
w, c = time.perf_counter(), time.process_time()
tilemem.solve(text, backend=backend, path=path)
cold, cold_cpu = time.perf_counter() - w, time.process_time() - c
ws = tilemem.Workspace(text, path=path, backend=backend)
sol = ws.solution()
incore = [f for f in sol.source.functions if f.is_incore and f.body and f.body[0].line]
edits, held = [], []
for k in (2, 1, 3):                 # functions a half, a quarter, three quarters in
    row = incore[len(incore) * k // 4].body[0].line - 1
    end = len(ws.text.split(chr(10))[row])
    w, c = time.perf_counter(), time.process_time()
    ws.edit((row, end), (row, end), "  # edited")
    edits.append((time.perf_counter() - w, time.process_time() - c))
    held.append(ws.resolved_residency)
    if k == 2:
        open(out, "w").write(ws.text)
print(json.dumps({"cold": cold, "cold_cpu": cold_cpu,
                  "edit": statistics.median(e[0] for e in edits),
                  "edit_cpu": statistics.median(e[1] for e in edits),
                  "functions": len(incore), "all": len(sol.source.functions),
                  "resolved": ws.resolved_functions, "held": max(held)}))
"""


def row_edit(b: Bench, notes: list[str]):
    """One InCore function of the MTP kernel edited and solved again: in process
    (tilemem.Workspace, against a cold in-process solve of the same process) and as a
    whole process (``tilemem solve`` of the edited file, the cache filled by the
    original: a miss)."""
    name, _, _ = KERNELS["mtp"]
    case = MODELS / name
    if not (case / "before.pto").is_file():
        return None
    with tempfile.TemporaryDirectory(prefix="tilemem-bench-") as tmp:
        edited = Path(tmp) / "edited.pto"
        got = []
        for _ in range(max(1, b.repeat // 3)):
            proc = subprocess.run([b.python, "-c", _EDIT_PROBE, str(case / "before.pto"),
                                   _backend(case), str(edited)],
                                  capture_output=True, text=True, env=b.env, check=True)
            got.append(json.loads(proc.stdout.splitlines()[-1]))
        cold = statistics.median(g["cold_cpu"] for g in got)
        edit = statistics.median(g["edit_cpu"] for g in got)
        wall = statistics.median(g["edit"] / g["cold"] for g in got)
        notes.append(f"edit: in process, {got[0]['resolved']} of {got[0]['functions']} InCore "
                     f"functions solved again (phase 4: at most {got[0]['held']} of "
                     f"{got[0]['all']} functions) in {edit:.3f} s of CPU against a cold "
                     f"solve of {cold:.2f} s: {edit / cold:.1%} (target ≤ 15%; wall "
                     f"{wall:.1%}); the median of three edits a process, "
                     f"{len(got)} process{'es' if len(got) > 1 else ''}")
        cache = Path(tmp) / "cache"
        run(b.solve(case / "before.pto", _backend(case), cache), b.env)
        whole = b.timed(b.solve(edited, _backend(case), cache))
    return (f"{name}: one function edited, solved again (whole process; in process "
            f"{edit / cold:.1%} of cold, CPU)", whole, "in process ≤ 15% of cold", None, len(got),
            edit / cold <= 0.15)


def row_growth(b: Bench, notes: list[str], sizes=(1000, 50000)):
    from gen import generate
    out = []
    with tempfile.TemporaryDirectory(prefix="tilemem-bench-") as tmp:
        for n in sizes:
            path = Path(tmp) / f"gen{n}.pto"
            path.write_text(generate(n, 0))
            cmd = b.solve(path, "910B")
            # (the 50,000 statements: a median of 3 -- one sample of ~12 s swung by 20% between
            # runs of one commit, on either side of its goal)
            reps = b.repeat if n <= 1000 else min(3, b.repeat)
            if n <= 1000:
                b.timed(cmd)
            out.append((n, _summary([b.timed(cmd) for _ in range(reps)]), reps))
    start_cpu = statistics.median(s.cpu for s in b.base)
    (n0, s0, _), (n1, s1, reps1) = out[0], out[-1]
    k = math.log((s1.cpu - start_cpu) / (s0.cpu - start_cpu)) / math.log(n1 / n0)
    notes.append(f"growth: {n0} statements {s0.wall:.2f} s wall / {s0.cpu:.2f} s CPU / "
                 f"{s0.rss_mb:.0f} MB; exponent {k:.3f} (CPU, {n0} -> {n1} statements, "
                 f"Python's start-up subtracted; target <= 1.05)")
    return (f"{n1} generated statements (growth exponent {k:.2f}, target ≤ 1.05)", s1, GROWTH[0],
            GROWTH[1], reps1, k <= 1.05)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of {', '.join(ROWS)}")
    ap.add_argument("--repeat", type=int, default=5, help="runs per row (the slow rows: a third; 50,000 statements: 3)")
    ap.add_argument("--python", default=sys.executable, help="the Python whose tilemem is timed")
    ap.add_argument("--install", action="store_true",
                    help="time a fresh `pip install .` of this checkout in a temporary venv")
    args = ap.parse_args(argv)
    rows = [r for r in args.rows.split(",") if r]
    venv = None
    python = args.python
    if args.install:
        venv = tempfile.mkdtemp(prefix="tilemem-venv-")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = str(Path(venv) / "bin" / "python")
        subprocess.run([python, "-m", "pip", "install", "-q", str(ROOT)], check=True)
    b = Bench(python, args.repeat)
    load = os.getloadavg()[0]
    notes: list[str] = []
    results = []
    try:
        for r in rows:
            try:
                got = (row_golden(b, notes) if r == "golden" else row_batch(b, notes) if r == "batch"
                       else row_batch(b, notes, again=True) if r == "batch2"
                       else row_warm(b, notes) if r == "warm" else row_edit(b, notes) if r == "edit"
                       else row_growth(b, notes) if r == "growth" else row_kernel(b, r, notes))
            except (RuntimeError, subprocess.CalledProcessError) as e:   # the other rows stand
                err = getattr(e, "stderr", None) or str(e)
                notes.append(f"{r}: failed: {err.strip().splitlines()[-1][:300]}")
                got = False
            if got is None:
                notes.append(f"{r}: inputs absent, skipped")
            elif got is not False:
                results.append(got)
            print(f"  {r} done", file=sys.stderr)
    finally:
        if venv:
            shutil.rmtree(venv, ignore_errors=True)
    start = b.python_start()
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "unknown"
    print(f"## Goals of issue #29 — commit {rev}\n")
    print(f"{os.cpu_count()} CPUs; load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at "
          f"the end; Python {sys.version.split()[0]}; {'fresh `pip install .`' if venv else python}; "
          f"`python -c pass`: median {start * 1000:.0f} ms wall over {len(b.base)} runs\n")
    print("| workload | runs | wall s | CPU s | peak MB | wall / python start | goal | met |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for what, s, target, target_mb, n, extra in results:
        # a goal is wall time as a multiple of Python's start-up in the same run (the
        # batch's wall: its two workers' CPU overlaps), and a peak where one is set
        if isinstance(target, str):             # a goal of its own (extra: met)
            met, tgt = extra, target
        else:
            met = s.wall / start <= target and (target_mb is None or s.rss_mb <= target_mb) \
                and extra is not False
            tgt = f"≤ {target:g}×" + (f", ≤ {target_mb} MB" if target_mb else "")
        print(f"| {what} | {n} | {s.wall:.3f} | {s.cpu:.3f} | {s.rss_mb:.0f} | {s.wall / start:.1f} | "
              f"{tgt} | {'yes' if met else 'NO'} |")
    print()
    for n in notes:
        print(f"* {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
