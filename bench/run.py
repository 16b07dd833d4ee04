"""tilemem's benchmark: one command, one table.

    python bench/run.py                       # corpus + 100/1k/10k/50k statements, both engines
                                              # (pydatalog up to --pydatalog-max, 10k)
    python bench/run.py --sizes 100,1000 --engines pydatalog --no-corpus

Prints (as Markdown, ready for bench/RESULTS.md):

1. whole-process ``tilemem solve`` on the golden corpus (``../shared/corpus``; skipped
   when absent): the median over the files of each file's median wall time, and the
   slowest file; the same for a few real models (``../shared/corpus-models``);
2. in-process ``tilemem.solve`` of generated programs (``bench/gen.py``) of each size and
   engine, split into stages (parse, facts, rules, emit, print; see ``bench/stages.py``),
   with the peak resident memory of the process that ran it (one fresh subprocess per
   size and engine: rule files already loaded, imports done, then one timed solve);
3. the growth exponent: the log-log slope of the CPU time between the 1k and the
   largest size (1.0 = linear).

Benchmarks are not tests: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

DEFAULT_MODELS = ("pypto_lib_models_deepseek_v3_2_decode_front_910B_001",)


# ----------------------------------------------------------------------------- child: one size


def run_one(n: int, engine: str, seed: int, backend: str, single: bool = False) -> dict:
    import resource

    from gen import count_statements, generate
    from stages import STAGES, StageTimer, cpu_time

    import tilemem
    from tilemem.infer.solver import load_rules

    text = generate(n, seed, fn_stmts=(n, n)) if single else generate(n, seed)
    t0 = time.perf_counter()
    load_rules()                                  # parse/validate rules (cached per process)
    load = time.perf_counter() - t0
    timer = StageTimer()
    kwargs = {} if engine == "pydatalog" else {"engine": engine}
    with timer.installed():
        t0 = time.perf_counter()
        c0 = cpu_time()
        sol = tilemem.solve(text, backend=backend, **kwargs)
        total = time.perf_counter() - t0
        cpu = cpu_time() - c0
    # KiB -> MiB; a large evaluation runs in a child process (tilemem.datalog.forked)
    rss = max(resource.getrusage(who).ru_maxrss
              for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
    moves = len(sol.moves)
    hoisted = sum(1 for d in (sol.residency or ()) if getattr(d, "hoisted", False))
    del sol
    # counted after the solve: parsing the text once more beforehand would leave its
    # garbage in the heap and inflate the solve's peak memory
    stmts = count_statements(text)
    stages = timer.times
    return {"n": n, "stmts": stmts, "lines": text.count("\n"), "engine": engine, "single": single,
            "load_rules": load, "total": total, "cpu": cpu,
            "stages": {s: stages[s] for s in STAGES},
            "other": cpu - sum(stages.values()), "peak_mb": rss,
            "moves": moves, "hoisted": hoisted}


# ----------------------------------------------------------------------------- parent


def _git_rev() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--",
                                "tilemem", "rules", "grammar"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + (" (+ uncommitted changes)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _whole_process(path: Path, backend, repeat: int, engine: str) -> float:
    cmd = [sys.executable, "-m", "tilemem", "solve", str(path)]
    if backend:
        cmd += ["--backend", backend]
    if engine != "pydatalog":
        cmd += ["--engine", engine]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, cwd=str(ROOT))
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.decode()[-500:]}")
    return statistics.median(times)


def corpus_section(args, engines) -> list[str]:
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        return [f"_corpus `{corpus}` absent: skipped_", ""]
    cases = sorted(p for p in corpus.iterdir() if (p / "before.pto").is_file())
    if args.corpus_limit:
        cases = cases[:args.corpus_limit]
    out = ["### Whole process: `tilemem solve FILE --backend B` (median of "
           f"{args.repeat} runs per file)", "",
           "| input | engine | files | median per file s | slowest file s |",
           "|---|---|---:|---:|---:|"]
    for engine in engines:
        per_file = []
        for case in cases:
            meta = json.loads((case / "meta.json").read_text()) if (case / "meta.json").is_file() else {}
            per_file.append((_whole_process(case / "before.pto", meta.get("backend"),
                                            args.repeat, engine), case.name))
            print(f"  corpus {engine} {case.name}: {per_file[-1][0]:.3f}s", file=sys.stderr)
        med = statistics.median(t for t, _ in per_file)
        worst = max(per_file)
        out.append(f"| corpus ({corpus.name}) | {engine} | {len(per_file)} | {med:.3f} | "
                   f"{worst[0]:.3f} ({worst[1]}) |")
    models = Path(args.models_dir)
    for name in args.models:
        case = models / name
        if not (case / "before.pto").is_file():
            continue
        meta = json.loads((case / "meta.json").read_text()) if (case / "meta.json").is_file() else {}
        lines = (case / "before.pto").read_text().count("\n")
        for engine in engines:
            t = _whole_process(case / "before.pto", meta.get("backend"), args.repeat, engine)
            out.append(f"| {name} ({lines} lines) | {engine} | 1 | {t:.3f} | |")
            print(f"  model {engine} {name}: {t:.3f}s", file=sys.stderr)
    return out + [""]


def sizes_section(args, engines) -> list[str]:
    rows = []
    runs = [(engine, n, False) for engine in engines for n in args.sizes
            if not (engine == "pydatalog" and n > args.pydatalog_max)]
    runs += [(engine, n, True) for engine in engines for n in args.stress
             if not (engine == "pydatalog" and n > args.pydatalog_max)]
    for engine, n, single in runs:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(n),
               "--engine", engine, "--seed", str(args.seed), "--backend", args.backend]
        if single:
            cmd.append("--single")
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            rows.append({"n": n, "engine": engine, "error": f"timeout {args.timeout}s"})
            print(f"  {engine} {n}: timeout", file=sys.stderr)
            continue
        if r.returncode != 0:
            rows.append({"n": n, "engine": engine, "error": r.stderr.strip().splitlines()[-1:]})
            print(f"  {engine} {n}: failed\n{r.stderr[-2000:]}", file=sys.stderr)
            continue
        row = json.loads(r.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"  {engine} {n}: {row['total']:.2f}s ({time.perf_counter() - t0:.1f}s with "
              f"generation)", file=sys.stderr)
    out = ["### In process: `tilemem.solve(text, backend=...)` on generated programs "
           f"(`bench/gen.py`, seed {args.seed}, backend {args.backend})", "",
           "| engine | statements | lines | parse CPU s | facts CPU s | rules CPU s | emit CPU s | print CPU s | "
           "total wall s | total CPU s | peak MB | moves |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        if "error" in row:
            out.append(f"| {row['engine']} | ~{row['n']} | | | | | | | {row['error']} | | | |")
            continue
        s = row["stages"]
        one = " (one function)" if row.get("single") else ""
        out.append(f"| {row['engine']} | {row['stmts']}{one} | {row['lines']} | {s['parse']:.2f} | "
                   f"{s['facts']:.2f} | {s['rules']:.2f} | {s['emit']:.2f} | {s['print']:.2f} | "
                   f"{row['total']:.2f} | {row['cpu']:.2f} | {row['peak_mb']:.0f} | {row['moves']} |")
    out.append("")
    out.append("Growth exponent (log-log slope of the CPU time, 1k statements to the largest size):")
    out.append("")
    for engine in engines:
        ok = sorted((r for r in rows if r.get("engine") == engine and "error" not in r
                     and not r.get("single")),
                    key=lambda r: r["stmts"])
        small = [r for r in ok if r["n"] >= 1000]
        if len(small) >= 2:
            a, b = small[0], small[-1]
            k = math.log(b["cpu"] / a["cpu"]) / math.log(b["stmts"] / a["stmts"])
            kr = math.log(b["stages"]["rules"] / a["stages"]["rules"]) / math.log(b["stmts"] / a["stmts"])
            out.append(f"* {engine}: {k:.2f} overall, {kr:.2f} for the rules stage "
                       f"({a['stmts']} -> {b['stmts']} statements)")
    return out + [""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000,50000",
                    help="statement counts of the generated programs (comma-separated)")
    ap.add_argument("--pydatalog-max", type=int, default=10000,
                    help="largest size run with pydatalog (it needs minutes beyond 10k)")
    ap.add_argument("--engines", default=None,
                    help="comma-separated engines (default: pydatalog, and clingo when installed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="910B")
    ap.add_argument("--repeat", type=int, default=3, help="whole-process runs per corpus file")
    ap.add_argument("--corpus", default=str(SHARED / "corpus"))
    ap.add_argument("--corpus-limit", type=int, default=0, help="only the first N corpus files")
    ap.add_argument("--models-dir", default=str(SHARED / "corpus-models"))
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS),
                    help="real models (directory names under --models-dir) timed whole-process")
    ap.add_argument("--no-corpus", action="store_true", help="skip the whole-process section")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per generated size")
    ap.add_argument("--stress", default="",
                    help="stress tier: sizes generated as ONE function (comma-separated), "
                         "exposing rules quadratic within a function")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="pydatalog", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(run_one(args.one, args.engine, args.seed, args.backend, args.single)))
        return 0
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    args.stress = [int(s) for s in args.stress.split(",") if s]
    args.models = [m for m in args.models.split(",") if m]
    if args.engines:
        engines = args.engines.split(",")
    else:
        engines = ["pydatalog"]
        try:
            import clingo  # noqa: F401
            engines.append("clingo")
        except ImportError:
            pass
    lines = [f"## tilemem benchmark — commit {_git_rev()}", "",
             f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start, "
             f"Python {sys.version.split()[0]}", ""]
    if not args.no_corpus:
        lines += corpus_section(args, engines)
    if args.sizes or args.stress:
        lines += sizes_section(args, engines)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
