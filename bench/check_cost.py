"""What checking printed IR (issue #27, ``tilemem.frontend.check``) costs a solve.

usage: python bench/check_cost.py [FILE] [--runs N] [--backend B]

Default FILE: the largest kernel of ../shared/corpus-models (the 21,032-line DeepSeek MTP
decode kernel).  In one process, after a warm-up solve, each run times (CPU, then wall):

* a whole ``tilemem.solve`` of the file (reading, the check, phases 0-4, printing), and
* ``check_printed`` alone, on the program the reading parsed,

interleaved, so the load of a shared machine falls on both alike.  Prints the medians and
the check's share of a solve.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "corpus-models" / \
    "pypto_lib_models_deepseek_v4_flash_mtp_decode_fwd_mtp_950_001" / "before.pto"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--backend", default=None, help="default: the case's meta.json backend")
    args = ap.parse_args(argv)
    import tilemem
    from tilemem.frontend.check import check_printed
    from tilemem.frontend.parser import parse
    path = Path(args.file)
    backend = args.backend
    meta = path.parent / "meta.json"
    if backend is None and meta.exists():
        backend = json.loads(meta.read_text()).get("backend")
    text = path.read_text(encoding="utf-8")
    program = parse(text, str(path))
    tilemem.solve(text, backend=backend, path=str(path))            # warm: tables and rules loaded
    solves, checks = [], []
    for _ in range(args.runs):
        c0, w0 = time.process_time(), time.perf_counter()
        tilemem.solve(text, backend=backend, path=str(path))
        solves.append((time.process_time() - c0, time.perf_counter() - w0))
        c0, w0 = time.process_time(), time.perf_counter()
        check_printed(program, str(path), text)
        checks.append((time.process_time() - c0, time.perf_counter() - w0))
    lines = text.count("\n")
    for k, what in ((0, "CPU"), (1, "wall")):
        s = statistics.median(x[k] for x in solves)
        c = statistics.median(x[k] for x in checks)
        print(f"{path.parent.name} ({lines} lines, backend {backend}), median of {args.runs}, {what}: "
              f"solve {s:.3f} s, check {c:.3f} s = {100 * c / s:.1f}% of the solve")


if __name__ == "__main__":
    main()
