"""Peak memory of `tilemem fmt` on one long line of each kind (RELIABILITY.md's figures).

    python tools/line_memory.py N READING:KIND... [--cap]

Each READING:KIND (``ir:list``, ``dsl:chain``, ...) is a small program of the
repository with one line of about N bytes of that kind; `tilemem fmt` reads and prints
it (the line cap lifted, or the default one with ``--cap``), and this prints its exit
status and the child's peak resident memory (``ru_maxrss``, as a small fresh
interpreter sees it: a child forked from a big process would count that process's
pages).  Kinds: string, name, comment, list (integers), flist (``1.5, 1.5, ...``),
nlist (names: ``a, a, ...``; in the DSL the kernel's parameter ``x``), chain (``1 + 1 + ...``),
and for the DSL kstring (a string statement in a kernel) and mlist (a module-level
list).  Needs the `tilemem` of the active environment on PATH.
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IR_BASE = (REPO / "examples" / "matmul_bias_relu.pto").read_text()
DSL_BASE = (REPO / "tests" / "data" / "solve" / "dsl" / "pass_doc_example.py").read_text()
IR_AFTER = "        r_tile: pl.Tile[[16, 128], pl.FP32] = pl.tile.relu(s_tile)\n"
DSL_BEFORE = "        return out_0\n"


def ir_line(kind: str, n: int) -> str:
    if kind == "string":
        return IR_BASE.replace("relu(s_tile)", "relu(s_tile, note='" + "q" * n + "')")
    if kind == "name":
        return IR_BASE.replace("r_tile", "r" * (n // 3))             # three uses per line at most
    if kind == "comment":
        return IR_BASE.replace(IR_AFTER, IR_AFTER + "        # " + "x" * n + "\n")
    if kind == "list":
        return IR_BASE.replace("pl.tile.store(r_tile, [0, 0]", "pl.tile.store(r_tile, [" + "0, " * (n // 3) + "0]")
    if kind == "flist":
        return IR_BASE.replace("pl.tile.store(r_tile, [0, 0]", "pl.tile.store(r_tile, [" + "1.5, " * (n // 5) + "1.5]")
    if kind == "nlist":
        return IR_BASE.replace("pl.tile.store(r_tile, [0, 0]", "pl.tile.store(r_tile, [" + "a, " * (n // 3) + "a]")
    if kind == "chain":
        return IR_BASE.replace(IR_AFTER, IR_AFTER + "        k: pl.Scalar[pl.INDEX] = "
                               + " + ".join(["1"] * (n // 4)) + "\n")
    raise KeyError(kind)


def dsl_line(kind: str, n: int) -> str:
    if kind == "string":
        return DSL_BASE + "NOTE = '" + "q" * n + "'\n"
    if kind == "kstring":
        return DSL_BASE.replace(DSL_BEFORE, "        '" + "q" * n + "'\n" + DSL_BEFORE, 1)
    if kind == "name":
        return DSL_BASE.replace("z_tile", "z" * n)                   # one use per line
    if kind == "comment":
        return DSL_BASE.replace("        z_tile:", "        # " + "x" * n + "\n        z_tile:")
    if kind == "list":
        return DSL_BASE.replace("pl.store(z_tile, [0, 0]", "pl.store(z_tile, [" + "0, " * (n // 3) + "0]")
    if kind == "flist":
        return DSL_BASE.replace(DSL_BEFORE, "        v = [" + "1.5, " * (n // 5) + "1.5]\n" + DSL_BEFORE, 1)
    if kind == "nlist":
        return DSL_BASE.replace(DSL_BEFORE, "        v = [" + "x, " * (n // 3) + "x]\n" + DSL_BEFORE, 1)
    if kind == "chain":
        return DSL_BASE.replace(DSL_BEFORE, "        n = " + " + ".join(["1"] * (n // 4)) + "\n" + DSL_BEFORE, 1)
    if kind == "mlist":
        return DSL_BASE + "N = [" + "0, " * (n // 3) + "0]\n"
    raise KeyError(kind)


_MEASURE = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = p.stderr.read()
_, status, usage = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, err[:100].decode(errors='replace').splitlines()[:1])
"""


def measure(reading: str, kind: str, n: int, cap: bool) -> str:
    text = (ir_line if reading == "ir" else dsl_line)(kind, n)
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "long.pto" if reading == "ir" else "long.py")
        Path(f).write_text(text)
        args = ["tilemem", "fmt", *([] if cap else ["--max-line-length", "0"]), f]
        t = time.time()
        r = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, check=True)
        status, kb, err = r.stdout.split(" ", 2)
    return (f"{reading:4} {kind:8} {n:>10,} bytes  cap {'default' if cap else 'lifted ':7}  exit {status}  "
            f"peak {int(kb) / 1024:6.1f} MB  {time.time() - t:5.1f} s  {err.strip() if status != '0' else ''}")


def main(argv) -> int:
    cap = "--cap" in argv
    rest = [a for a in argv if a != "--cap"]
    if len(rest) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    n = int(rest[0])
    for spec in rest[1:]:
        reading, kind = spec.split(":")
        print(measure(reading, kind, n, cap), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
