"""Benchmark of tilemem's Datalog engine layer (tilemem.datalog on pyDatalog).

Times fact loading and evaluation of the rule patterns the tilemem rules use, at
several input sizes:

* join      -- a 3-way join over call/arg facts with a constant argument position
* tc        -- left-recursive transitive closure over chains of statements
* lastwrite -- stratified negation: "latest write of V before read position P"
* chain     -- a chain over ordered argument positions (arithmetic successor)
* rtc       -- right-recursive transitive closure (one tabled subgoal per start node)
* many      -- 30 input relations and 200 rules (joins, constants, negation,
               comparisons), the shape of the real rule set; facts spread evenly

Columns: create = Database() (translating the rules), load = add_facts, eval = wall
time of evaluate(), eval cpu = its process CPU time (robust on a busy machine),
us/derived = eval cpu per derived tuple, maxrss = peak RSS of the process so far.

Usage:  python bench/bench_engine.py [--sizes 1000,10000,100000] [--patterns join,tc,...]

Snapshot (2 cores, shared with other jobs -- load average 5-8, so trust "eval cpu"
over "eval s"; pyDatalog 0.22.4 compiled wheel, Python 3.11):

    pattern rules  facts  derived  load s  eval s  eval cpu  us/derived
    join        1   100000    12500   1.47    1.36     0.54       43
    tc          2    95000   950000   2.14   85.6     25.8        27   (SLG)
    rtc         2    95000   950000   0.67   67.9     36.1        38   (semi-naive)
    lastwrite   2   100000   125000   0.85   18.4     10.1        81
    chain       4   100000   160000   1.27   14.4      7.2        45
    many      200   100000   317978   1.06   25.4     12.6        40
    (10k facts: about 1/10 of these times; 1k: about 1/100.)

Without semi-naive iteration rtc took 252 s at 9.5k facts (quadratic) and never
terminates on a cyclic graph; without pausing the GC everything is 2-3x slower.
"""
from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tilemem.datalog import Database, RuleSet  # noqa: E402

RULES = {
    "join": """
.decl call(stmt, op)
.input call
.decl arg(stmt, slot, var)
.input arg
.decl op_vec(op)
.input op_vec
// first argument of every call to an op that wants Vec
first_vec(V, S) :- call(S, Op), op_vec(Op), arg(S, 0, V).
""",
    "tc": """
.decl next(a, b)
.input next
// left-recursive transitive closure
reach(X, Y) :- next(X, Y).
reach(X, Z) :- reach(X, Y), next(Y, Z).
""",
    "lastwrite": """
.decl read_at(var, pos)
.input read_at
.decl write_site(var, pos)
.input write_site
later_write(V, P, Q) :- read_at(V, P), write_site(V, Q), write_site(V, Q2), Q < Q2, Q2 < P.
last_write(V, P, Q) :- read_at(V, P), write_site(V, Q), Q < P, !later_write(V, P, Q).
""",
    "rtc": """
.decl next(a, b)
.input next
// right-recursive transitive closure
reach(X, Z) :- next(X, Y), reach(Y, Z).
reach(X, Y) :- next(X, Y).
""",
    "chain": """
.decl arg(stmt, slot, var)
.input arg
.decl nargs(stmt, n)
.input nargs
// arguments linked in slot order: slot I is followed by slot I + 1
arg_next(S, V, W) :- arg(S, I, V), J = I + 1, arg(S, J, W).
// the chain from slot 0 to the last slot, as a reachability relation
arg_chain(S, V) :- arg(S, 0, V).
arg_chain(S, W) :- arg_chain(S, V), arg_next(S, V, W).
complete(S) :- nargs(S, N), L = N - 1, arg(S, L, V), arg_chain(S, V).
""",
}


def _many_rules() -> str:
    lines = []
    for i in range(30):
        lines += [f".decl r{i}(a, b)", f".input r{i}"]
    for i in range(50):
        a, b, c = i % 30, (i + 1) % 30, (i + 7) % 30
        lines.append(f"j{i}(X, Z) :- r{a}(X, Y), r{b}(Y, Z).")
        lines.append(f"k{i}(X) :- j{i}(X, _), !r{c}(X, _).")
        lines.append(f'c{i}(X, Y) :- r{c}(X, Y), X < Y, Y != "z".')
        lines.append(f"s{i}(X, Y) :- c{i}(X, Y), j{i}(Y, _), !k{i}(X).")
    return "\n".join(lines) + "\n"


RULES["many"] = _many_rules()


def facts_for(pattern: str, n: int) -> dict[str, list[tuple]]:
    """About n input facts for a pattern, shaped like per-function compiler facts."""
    if pattern == "join":
        calls = n // 4
        ops = [f"tile.op{i}" for i in range(50)]
        return {
            "call": [(s, ops[s % 50]) for s in range(calls)],
            "arg": [(s, i, f"v{s}_{i}") for s in range(calls) for i in range(3)][: n - calls - 25],
            "op_vec": [(op,) for op in ops[:25]],
        }
    if pattern in ("tc", "rtc"):
        # chains of 20 statements (bodies of straight-line blocks)
        return {"next": [(i, i + 1) for i in range(n) if (i + 1) % 20]}
    if pattern == "lastwrite":
        # each variable is written 4 times and read 4 times, interleaved
        nvars = max(1, n // 8)
        writes, reads = [], []
        for v in range(nvars):
            for k in range(4):
                writes.append((f"v{v}", 10 * k))
                reads.append((f"v{v}", 10 * k + 5))
        return {"write_site": writes, "read_at": reads}
    if pattern == "chain":
        stmts = max(1, n // 5)
        return {
            "arg": [(s, i, f"v{s}_{i}") for s in range(stmts) for i in range(4)],
            "nargs": [(s, 4) for s in range(stmts)],
        }
    if pattern == "many":
        per = max(1, n // 30)
        rng = random.Random(1)
        width = max(10, per)          # values shared between relations: joins hit
        return {f"r{i}": sorted({(rng.randrange(width), rng.randrange(width))
                                 for _ in range(per)}) for i in range(30)}
    raise ValueError(pattern)


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(pattern: str, n: int) -> dict:
    rules = RuleSet.load((f"<{pattern}>", RULES[pattern]))
    facts = facts_for(pattern, n)
    nfacts = sum(len(v) for v in facts.values())
    gc.collect()
    t0 = time.perf_counter()
    db = Database(rules)
    tdb = time.perf_counter()
    for rel, rows in facts.items():
        db.add_facts(rel, rows)
    t1 = time.perf_counter()
    c1 = time.process_time()
    db.evaluate()
    t2 = time.perf_counter()
    c2 = time.process_time()
    derived = sum(len(db.relation(p)) for p, info in rules.predicates.items() if info.is_derived)
    t3 = time.perf_counter()
    db.close()
    return {"pattern": pattern, "rules": len(rules.rules), "facts": nfacts, "derived": derived,
            "create": tdb - t0, "load": t1 - tdb, "eval_cpu": c2 - c1,
            "eval": t2 - t1, "read": t3 - t2, "maxrss_mb": rss_mb()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--patterns", default=",".join(RULES))
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'pattern':<10} {'rules':>5} {'facts':>8} {'derived':>9} {'create s':>8} "
          f"{'load s':>8} {'eval s':>8} {'eval cpu':>8} {'us/derived':>10} {'maxrss MB':>9}")
    for pattern in args.patterns.split(","):
        for n in sizes:
            r = run(pattern, n)
            per = 1e6 * r["eval_cpu"] / max(1, r["derived"])
            print(f"{r['pattern']:<10} {r['rules']:>5} {r['facts']:>8} {r['derived']:>9} "
                  f"{r['create']:>8.3f} {r['load']:>8.3f} "
                  f"{r['eval']:>8.3f} {r['eval_cpu']:>8.3f} {per:>10.1f} {r['maxrss_mb']:>9.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
