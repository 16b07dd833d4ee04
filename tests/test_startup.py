"""What a plain solve loads: nothing it does not use (issue #16's start-up budget).

A solve of printed IR reads its rule program as JSON; it must not build the rule
language's AST or parser, the DSL reading, the explanations, networkx or pyDatalog.
Each check runs a fresh interpreter (modules already imported by pytest would hide a
regression) and looks at ``sys.modules`` after the solve: no timing is asserted.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tilemem.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "matmul_bias_relu.pto"

NOT_ON_THE_SOLVE_PATH = (
    "tilemem.datalog.syntax",       # the rule parser and AST: the JSON program is enough
    # the hand-written DSL reading (its op tables -- wrappers, binding, operand_rules, types --
    # check printed IR too, issue #27: they are on the path; the reader of statements is not)
    "tilemem.frontend.dsl.program", "tilemem.frontend.dsl.function_reader",
    "tilemem.frontend.dsl.statement_forms", "tilemem.frontend.dsl.pyline",
    "tilemem.frontend.dsl.comprehension", "tilemem.frontend.dsl.ops",
    "tilemem.explain",
    "tilemem.tools.console",
    "networkx",
    "pyDatalog",
    "lark",                         # the reader's tables are cached as data (frontend.tables)
    # the DSL's op tables that check printed IR (issue #27) are records, read from the cache
    # as marshalled data (tilemem.cache.cached_data): no dataclass is built, ops.txt's
    # signatures are not parsed with ast, the module scanner of .py input is not loaded
    "dataclasses", "inspect", "ast", "tilemem.frontend.pysource",
    "importlib.resources",          # the package's data files are read directly: it imports
                                    # zipfile, tempfile and random
    "difflib",                      # only for the hint of an error ("did you mean")
    "shutil",                       # argparse's help formatter asks it the terminal's width:
                                    # not while the parser is built (cli.Parser)
    "threading",                    # its locks are _thread's (the module: ~4 M instructions)
    "clingo.control",               # the clingo package's Python layer: the engine calls its C
                                    # library (tilemem.datalog.clingo_c)
    "hashlib",                      # cache keys by Python's own SHA-256 (tilemem.cache.sha256):
                                    # hashlib loads OpenSSL
    "socket", "secrets",            # a written file's temp name: os.uname, os.urandom (files.py)
)

_PROBE = r"""
import contextlib, io, json, sys
from tilemem.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        status = main(sys.argv[1:])
    except SystemExit as e:
        status = e.code
from tilemem.datalog.program import RuleSet
trees = [rs for rs in __import__("gc").get_objects()
         if isinstance(rs, RuleSet) and "rules" in rs.__dict__]
print(json.dumps({"status": status, "out": out.getvalue(), "modules": sorted(sys.modules),
                  "trees": len(trees)}))
"""


def _solve_in_fresh_process(*args, cwd=ROOT):
    # twice: the first run may build the caches (rule program, parser tables)
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _PROBE, "solve", *map(str, args)],
                              capture_output=True, text=True, cwd=cwd, timeout=120)
        assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("backend,written", [(None, False), ("910B", False), ("910B", True)])
def test_a_printed_solve_loads_only_what_it_uses(backend, written, tmp_path):
    out = tmp_path / "out.pto"
    got = _solve_in_fresh_process(EXAMPLE, *(["--backend", backend] if backend else []),
                                  *(["-o", out] if written else []))
    assert got["status"] == 0
    # it did solve the program (written: into the file, through a temp file and a rename)
    assert "pl.tile" in (out.read_text() if written else got["out"])
    loaded = set(got["modules"])
    for mod in NOT_ON_THE_SOLVE_PATH:
        assert not {m for m in loaded if m == mod or m.startswith(mod + ".")}, mod
    assert got["trees"] == 0, "the rule set's syntax tree was loaded"


def test_the_command_exits_quickly_with_its_output_and_status(tmp_path):
    """``python -m tilemem`` ends with os._exit after main (console_main): what it printed
    and its exit status are those of main; atexit handlers still run."""
    import contextlib
    import io
    want = io.StringIO()
    with contextlib.redirect_stdout(want):
        assert main(["solve", str(EXAMPLE)]) == 0
    proc = subprocess.run([sys.executable, "-m", "tilemem", "solve", str(EXAMPLE)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == want.getvalue()

    bad = tmp_path / "bad.pto"
    bad.write_text("# pypto.program: P\nimport pypto.language as pl\n@pl.program\nclass P:\n  x = (\n")
    proc = subprocess.run([sys.executable, "-m", "tilemem", "solve", str(bad)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and f"{bad}:" in proc.stderr and proc.stdout == ""

    # an atexit handler registered during the run still runs (its output reaches stderr)
    probe = ("import atexit, sys; atexit.register(lambda: print('bye', file=sys.stderr)); "
             "sys.argv = ['tilemem', 'solve', sys.argv[1]]; "
             "from tilemem.cli import console_main; console_main()")
    proc = subprocess.run([sys.executable, "-c", probe, str(EXAMPLE)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stderr.strip().endswith("bye")
    assert proc.stdout == want.getvalue()


def test_typing_is_for_the_type_checker_only(tmp_path):
    """tilemem's modules import typing under TYPE_CHECKING only (~12 M instructions of a
    start; see tilemem/__init__.py).  (Reading a pyproject.toml for [tool.tilemem] loads
    tomllib, which imports it: the probe solves a file with none above it.)"""
    kernel = tmp_path / EXAMPLE.name
    kernel.write_text(EXAMPLE.read_text())
    got = _solve_in_fresh_process(kernel, "--backend", "910B", cwd=tmp_path)
    assert got["status"] == 0 and "pl.tile" in got["out"]
    assert "tomllib" not in got["modules"]
    assert "typing" not in got["modules"]
