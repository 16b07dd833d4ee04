"""The input is data: nothing in a program text, a rule file or the environment makes
tilemem run code.

* Programs whose names, strings, comments, attributes and unmodelled statements carry
  payloads (``__import__('os').system(...)``, quotes, backslashes, newlines, ``"); DROP``,
  Datalog syntax such as ``X <= Y``) are solved (or rejected) as data: the payload would
  create a marker file, which must not exist afterwards; and while they are processed,
  ``eval``/``exec``/``compile`` (other than AST-only parsing), ``os.system``,
  ``subprocess`` and pyDatalog's text interfaces are booby-trapped.
* Facts printed by ``tilemem facts`` load back as the same rows whatever the names.
* A rule file holding Python is a rule-syntax error, not code.
* A cache file planted where another user could write it is never unpickled.

The review of every code-evaluation site in the package is in RELIABILITY.md.
"""
from __future__ import annotations

import builtins
import contextlib
import os
import pickle
import subprocess
from pathlib import Path


import tilemem
from tilemem.errors import TilememError

from cli_helpers import tilemem_command

BASE = (Path(__file__).resolve().parents[1] / "examples" / "matmul_bias_relu.pto").read_text()


def _payloads(marker: Path) -> list[str]:
    m = str(marker)
    return [
        f"__import__('os').system('touch {m}')",
        f'__import__("os").system("touch {m}")',
        f"'); __import__('os').system('touch {m}'); ('",
        f'"); __import__(\\"os\\").system(\\"touch {m}\\"); ("',
        f"\\'; import os; os.system('touch {m}') #",
        f"{{__import__('os').system('touch {m}')}}",
        f"%s%s%n {{0}} ${{HOME}} $(touch {m}) `touch {m}`",
        "\"); DROP TABLE tiles; --",
        "X <= Y",
        f"space(V, S) :- var(V, _, _, _), S = \"{m}\".",
        "p(X) :- q(X), !r(X).",
        "line one\\nline two\\r\\n\\t\\x00\\\\",
        "\\u0027\\u0022\\N{APOSTROPHE}",
        f"exec(compile('open(\"{m}\", \"w\")', 'x', 'exec'))",
        "😀 ünïcödé ‮ reversed",
    ]


def _quote(s: str) -> str:
    """A single-quoted string literal whose value is ``s``."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _naive_quote(s: str) -> str:
    """Quotes pasted around the payload as it is: its own quotes and backslashes may end
    the literal early, as in an injection attempt."""
    return "'" + s + "'"


def _programs(marker: Path) -> dict[str, str]:
    m = str(marker)
    out = {}
    for i, p in enumerate(_payloads(marker)):
        q = _quote(p)
        out[f"string_kwarg_{i}"] = BASE.replace("pl.tile.relu(s_tile)", f"pl.tile.relu(s_tile, attrs={{'mode': {q}}})")
        out[f"raw_kwarg_{i}"] = BASE.replace("pl.tile.relu(s_tile)",
                                             f"pl.tile.relu(s_tile, attrs={{'mode': {_naive_quote(p)}}})")
        out[f"attrs_{i}"] = BASE.replace("pl.tile.relu(s_tile)",
                                         f"pl.tile.relu(s_tile, attrs={{{q}: {q}, 'k': [{q}]}})")
        out[f"comment_{i}"] = BASE.replace("        r_tile:", f"        # {p}\n        r_tile:")
        out[f"header_{i}"] = BASE.replace("# pypto.program: MatmulBiasRelu", f"# pypto.program: {p}")
        if i % 3 == 0:
            out[f"docstring_{i}"] = BASE.replace("        a_tile:", f"        {q}\n        a_tile:", 1)
    names = ["__import__", "eval", "exec", "os", "system", "__builtins__", "open", "compile",
             "X", "Y", "V", "_", "__class__", "__dict__", "getattr", "self_", "pl_", "DROP",
             "S", "dl_space", "space", "var"]
    for n in names:
        out[f"var_{n}"] = BASE.replace("r_tile", n)
        out[f"param_{n}"] = BASE.replace("bias", n)
    out["function_names"] = BASE.replace("def kernel(", "def __import__(").replace("self.kernel(", "self.__import__(")
    out["class_name"] = BASE.replace("class MatmulBiasRelu", "class __builtins__")
    out["unknown_op_names"] = BASE.replace("pl.tile.relu(s_tile)", "pl.tile.__import__(s_tile)")
    out["os_call"] = BASE.replace("pl.tile.relu(s_tile)", f"pl.os.system('touch {m}')")
    out["dtype_payload"] = BASE.replace("pl.Tensor[[16, 128], pl.FP32]]", "pl.Tensor[[16, 128], pl.__import__]]", 1)
    out["space_payload"] = BASE.replace("target_memory=pl.Mem.Vec", "target_memory=pl.Mem.__import__")
    out["decorator_payload"] = BASE.replace("role=pl.Role.SubWorker)",
                                            f"role=pl.Role.SubWorker, note={_quote(_payloads(marker)[0])})", 1)
    out["python_statement"] = BASE.replace("        r_tile:", f"        import os; os.system('touch {m}')\n        r_tile:")
    out["python_expression"] = BASE.replace("        r_tile:", f"        __import__('os').system('touch {m}')\n        r_tile:")
    out["walrus_lambda"] = BASE.replace("        r_tile:", f"        z = (lambda: __import__('os').system('touch {m}'))()\n        r_tile:")
    out["fstring"] = BASE.replace("        r_tile:", f"        z = f\"{{__import__('os').system('touch {m}')}}\"\n        r_tile:")
    out["dynamic_dim"] = BASE.replace("@pl.program", f"N = pl.dynamic('{m}')\n\n@pl.program")
    return out


@contextlib.contextmanager
def booby_traps():
    """Make every way of running code from text fail loudly while the block runs."""
    import ast                     # AST-only parsing of unmodelled statements stays allowed
    trapped = []
    real_compile = builtins.compile

    def trap(name):
        def f(*a, **k):
            trapped.append(name)
            raise AssertionError(f"{name} called while processing input")
        return f

    def compile_ast_only(source, filename, mode, flags=0, *a, **k):
        if not (flags & ast_only):
            trapped.append("compile")
            raise AssertionError("compile() to code while processing input")
        return real_compile(source, filename, mode, flags, *a, **k)
    ast_only = ast.PyCF_ONLY_AST
    import pyDatalog.pyDatalog as pyd
    patches = [(builtins, "eval", trap("eval")), (builtins, "exec", trap("exec")),
               (builtins, "compile", compile_ast_only), (os, "system", trap("os.system")),
               (os, "popen", trap("os.popen")), (subprocess, "Popen", trap("subprocess.Popen")),
               (pyd, "load", trap("pyDatalog.load")), (pyd, "ask", trap("pyDatalog.ask")),
               (pickle, "loads", trap("pickle.loads"))]
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    for obj, name, f in patches:
        setattr(obj, name, f)
    try:
        yield trapped
    finally:
        for obj, name, f in saved:
            setattr(obj, name, f)


def _run_all_ways(text: str, backend, query: bool) -> str:
    """solve (and a query of the solution), fmt, facts and verify, in-process."""
    from tilemem.facts.extract import extract
    from tilemem.frontend.parser import parse
    from tilemem.ir.printer import print_program
    from tilemem.frontend.wellformed import check_program
    try:
        sol = tilemem.solve(text, backend=backend, path="payload.pto")
        outcome = "solved"
        if query:
            sol.query("space(V, S)")
    except TilememError as e:
        assert "internal error" not in e.message
        outcome = "error"
    try:
        prog = parse(text, "payload.pto")
        print_program(prog)
        check_program(prog, "payload.pto")
        extract(prog, None)
        if query:
            try:
                from tilemem.tools.verify import verify
            except ImportError:
                pass
            else:
                verify(prog, "payload.pto")
    except TilememError:
        pass
    return outcome


def test_payloads_are_data_in_process(tmp_path):
    marker = tmp_path / "MARKER"
    progs = _programs(marker)
    _run_all_ways(BASE, "910B", True)       # warm up: lazy imports, grammar, rules
    results = {}
    with booby_traps() as trapped:
        for i, (name, text) in enumerate(sorted(progs.items())):
            results[name] = _run_all_ways(text, (None, "910B")[i % 2], query=i % 5 == 0)
    assert trapped == []
    assert not marker.exists()
    # the payloads in strings, comments, attributes and names are carried as data:
    # those programs still solve
    for name, outcome in results.items():
        if name.startswith(("string_kwarg", "attrs", "comment", "header", "docstring", "var_",
                            "param_", "function_names", "class_name",
                            "python_expression", "walrus", "fstring", "decorator")):
            assert outcome == "solved", (name, outcome)
    # an op call no table knows (`pl.os.system(...)`) is a located error, issue #27: never run
    assert results["os_call"] == results["unknown_op_names"] == "error"
    assert results["space_payload"] == "error"
    # two Python statements on one line (`import os; os.system(...)`) are two statements, as
    # Python reads them: each carried as data (the import verbatim, the call as a call), as
    # on two lines -- and nothing ran (the traps and the marker above)
    assert results["python_statement"] == "solved"


def test_payloads_survive_printing_unchanged(tmp_path):
    """Strings, attributes, comments and headers with payloads print back byte for byte
    (and strings and attributes come through the solver unchanged)."""
    from tilemem.ir.printer import print_program
    marker = tmp_path / "MARKER"
    progs = _programs(marker)
    for i, p in enumerate(_payloads(marker)):
        q = _quote(p)
        for kind, frag in (("string_kwarg", f"attrs={{'mode': {q}}}"), ("attrs", f"attrs={{{q}: {q}, 'k': [{q}]}}"),
                           ("comment", None), ("header", None)):
            text = progs[f"{kind}_{i}"]
            assert print_program(tilemem.parse(text)) + "\n" == text, (kind, i)
            if frag:
                assert frag in tilemem.solve(text).text, (kind, i)
    assert not marker.exists()


def test_payloads_are_data_through_the_command(tmp_path):
    marker = tmp_path / "MARKER"
    progs = _programs(marker)
    chosen = [k for k in progs if k.endswith("_0") or k.endswith("_3") or k.startswith(
        ("python_", "os_call", "fstring", "walrus", "dynamic_dim", "var___import__"))]
    files = []
    for k in chosen:
        p = tmp_path / f"{k}.pto"
        p.write_text(progs[k])
        files.append(p)
    cmd = tilemem_command()
    runs = [cmd + ["solve", str(f), "--backend", "910B"] for f in files[:6]]
    runs += [cmd + ["solve", "--json", "--out-dir", str(tmp_path / "out"), "-q", *map(str, files)],
             cmd + ["facts", str(files[0])], cmd + ["fmt", str(files[1])]]
    env = dict(os.environ)
    env.pop("TILEMEM_DEBUG", None)
    for argv in runs:
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode in (0, 2), (argv, r.stderr[-2000:])
        assert "Traceback" not in r.stderr
    assert not marker.exists()


def test_facts_print_back_as_the_same_rows(tmp_path):
    """``tilemem facts`` output is Datalog that loads back to exactly the extracted rows,
    whatever the names (quotes, backslashes and Datalog-looking names cannot break out)."""
    from tilemem.datalog import Database, RuleSet, format_value
    from tilemem.facts.extract import extract
    from tilemem.facts.schema import program_relations
    SCHEMA = program_relations()
    from tilemem.frontend.parser import parse
    marker = tmp_path / "MARKER"
    for name, text in _programs(marker).items():
        if not name.startswith(("var_", "param_", "function_names", "unknown_op", "string_kwarg_0")):
            continue
        facts = extract(parse(text), "910B")
        lines = [f"{pred}({', '.join(format_value(x) for x in row)})."
                 for pred, rows in facts.items() for row in rows]
        decls = "\n".join(f".decl {p}({', '.join(cols)})" for p, cols in SCHEMA.items())
        rs = RuleSet.load([(f"{name}.dl", decls + "\n" + "\n".join(lines) + "\n")])
        with Database(rs) as db:
            for pred, rows in facts.items():
                assert sorted(db.relation(pred)) == sorted(set(rows)), (name, pred)


def test_rule_file_with_python_is_a_syntax_error(tmp_path):
    marker = tmp_path / "MARKER"
    rules = tmp_path / "evil.dl"
    rules.write_text(f"__import__('os').system('touch {marker}')\n"
                     f"op(\"tile.x\", \"TileOp\") :- __import__(\"os\").system(\"touch {marker}\").\n")
    src = tmp_path / "k.pto"
    src.write_text(BASE)
    r = subprocess.run(tilemem_command() + ["solve", str(src), "--rules", str(rules)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert not marker.exists()
    # rule facts whose strings look like code stay strings
    rules.write_text(f'op("tile.evil", "TileOp").\nop_output_fixed("tile.evil", "Vec").\n'
                     f'op_input("tile.evil", 0, 0, "Vec").\nop_builtin("tile.evil").\n'
                     f'op_constrained("tile.evil", 0).\n'
                     f'kwarg_note("{{__import__(\\"os\\").system(\\"touch {marker}\\")}}").\n'
                     f'.decl kwarg_note(x)\n')
    src.write_text(BASE.replace("pl.tile.relu(s_tile)", "pl.tile.evil(s_tile)"))
    r = subprocess.run(tilemem_command() + ["solve", str(src), "--rules", str(rules)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 2), r.stderr
    assert "Traceback" not in r.stderr
    assert not marker.exists()


# ----------------------------------------------------------------------------- caches


class _Evil:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _plant(path: Path, marker: Path) -> None:
    with open(path, "wb") as f:
        f.write(b"0" * 64 + b"\n")            # lark's header line, then a pickle
        pickle.dump(_Evil(marker), f)


def _fmt(src: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(tilemem_command() + ["fmt", str(src)], capture_output=True, text=True,
                          env=env, timeout=300)


def test_cache_planted_in_shared_temp_dir_is_not_loaded(tmp_path):
    """The grammar cache used to live in the temp directory under a predictable name;
    any local user could plant a pickle there."""
    import tempfile
    marker = tmp_path / "MARKER"
    src = tmp_path / "k.pto"
    src.write_text(BASE)
    env = dict(os.environ, TILEMEM_CACHE_DIR=str(tmp_path / "cache"))
    assert _fmt(src, env).returncode == 0
    own = list((tmp_path / "cache").glob("pto_tables-*.marshal"))
    assert own, "the grammar cache is expected in the private cache directory"
    digest = own[0].name[len("pto_tables-"):-len(".marshal")]
    planted = Path(tempfile.gettempdir()) / f".tilemem_pto_{digest}.lark"
    try:
        _plant(planted, marker)
        for cache in own:
            cache.unlink()
        assert _fmt(src, env).returncode == 0
        assert _fmt(src, dict(os.environ, TILEMEM_NO_CACHE="1")).returncode == 0
    finally:
        planted.unlink(missing_ok=True)
    assert not marker.exists()


def test_cache_in_a_directory_others_can_write_is_not_loaded(tmp_path):
    marker = tmp_path / "MARKER"
    src = tmp_path / "k.pto"
    src.write_text(BASE)
    cache = tmp_path / "cache"
    env = dict(os.environ, TILEMEM_CACHE_DIR=str(cache))
    assert _fmt(src, env).returncode == 0            # fills the cache (grammar, rules)
    planted = list(cache.glob("*.marshal")) + list(cache.glob("*.pickle"))
    assert planted
    for p in planted:
        _plant(p, marker)
    os.chmod(cache, 0o777)                            # anyone could have written them
    try:
        r = _fmt(src, env)
        assert r.returncode == 0, r.stderr
        r = subprocess.run(tilemem_command() + ["solve", str(src)], capture_output=True, text=True,
                           env=env, timeout=300)
        assert r.returncode == 0, r.stderr
    finally:
        os.chmod(cache, 0o700)
    assert not marker.exists()


def test_grammar_cache_file_others_can_write_is_not_loaded(tmp_path):
    marker = tmp_path / "MARKER"
    src = tmp_path / "k.pto"
    src.write_text(BASE)
    cache = tmp_path / "cache"
    env = dict(os.environ, TILEMEM_CACHE_DIR=str(cache))
    assert _fmt(src, env).returncode == 0
    for p in cache.glob("pto_tables-*.marshal"):
        _plant(p, marker)
        os.chmod(p, 0o666)
        if os.geteuid() == 0:                        # and one owned by another user
            q = p.with_name(p.name)                  # same path: ownership is checked too
            os.chown(q, 65534, 65534)
    assert _fmt(src, env).returncode == 0
    assert not marker.exists()
