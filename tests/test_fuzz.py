"""Hostile and malformed input: tilemem must end every run with a solved program or one
clean ``path:line:col: error:`` message — never a traceback, a hang or a RecursionError.

* ``test_hostile_input_library`` / ``test_hostile_input_cli``: named hostile inputs (NUL
  bytes, invalid UTF-8, 1 MB lines, 200- to 100,000-deep nesting, huge integers, unknown
  ops, undefined names, wrong arity, broken indentation, ...), through the library and
  through the real ``tilemem`` command.
* ``test_mutation_fuzz_library``: byte-, line- and token-level mutations of the golden
  corpus, of generated programs and of hand-written DSL programs and ``.py`` modules
  (``../shared/corpus-random/*/before_dsl.pto``, ``tests/data/solve/dsl/*.py``), through
  the library (a fixed seed set: 5,000 inputs in the normal suite; ``--fuzz-long`` /
  ``TILEMEM_FUZZ_LONG=1``: 100,000).
* ``test_mutation_fuzz_cli_in_process``: a sample through ``tilemem.cli.main`` (exit 0 or
  2, the message format); ``test_mutation_fuzz_cli_subprocess``: a smaller sample through
  the installed command.

The library may only raise ``TilememError`` (input problems, located) or ``UsageError``.
``TILEMEM_FUZZ_SEED`` overrides the base seed, ``TILEMEM_FUZZ_COUNT`` the number of
mutated inputs (to run the long run in chunks of other seeds); ``TILEMEM_FUZZ_REPORT=FILE``
appends the run's figures as JSON to FILE.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tilemem
from tilemem.errors import TilememError, UsageError
from tilemem.input_text import decode_source
from tilemem.limits import Limits

from gen_kernels import GenOptions, RandomChoices, generate

LONG = os.environ.get("TILEMEM_FUZZ_LONG", "") not in ("", "0")
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
PATH = "fuzz.pto"
BACKENDS = (None, "910B", "950")

# One message line: `path:line:col: error: ...`, `path:line: error: ...` or, for a problem
# with the whole file, `path: error: ...`.
ERROR_LINE = re.compile(r"^[^\n:]+(?::\d+(?::\d+)?)?: error: \S.*$")
CLI_ERROR_LINE = re.compile(r"^(?:[^:\n]+:\d+:\d+: error: |[^:\n]+: error: |tilemem: error: )\S")

BASE = """\
# pypto.program: MatmulBiasRelu
import pypto.language as pl

@pl.program
class MatmulBiasRelu:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16], bias: pl.Tensor[[16, 128], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        a_tile: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        b_tile: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        c_tile: pl.Tile[[16, 128], pl.FP32] = pl.tile.matmul(a_tile, b_tile)
        bias_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        s_tile: pl.Tile[[16, 128], pl.FP32] = pl.tile.add(c_tile, bias_tile)
        r_tile: pl.Tile[[16, 128], pl.FP32] = pl.tile.relu(s_tile)
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(r_tile, [0, 0], out_0)
        return out_0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16], bias: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        out_0: pl.Tensor[[16, 128], pl.FP32] = pl.tensor.create([16, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        r: pl.Tensor[[16, 128], pl.FP32] = self.kernel(a, b, bias, out_0)
        return r
"""
MB = 1 << 20
LINE_1MB = MB - 1024          # just under the default line-length cap (tilemem.limits)
ANCHOR = "        r_tile: pl.Tile[[16, 128], pl.FP32] = pl.tile.relu(s_tile)\n"


def _after_anchor(lines: str) -> str:
    """BASE with ``lines`` (kernel-level statements) inserted after the relu."""
    return BASE.replace(ANCHOR, ANCHOR + lines)


def _nested_blocks(header: str, depth: int) -> str:
    out = []
    for d in range(depth):
        out.append("        " + "    " * d + header.format(d=d) + "\n")
    out.append("        " + "    " * depth + "pl.system.bar_v()\n")
    return "".join(out)


def _sub(old: str, new: str, count: int = 1) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, count)


# name -> input bytes.  Every one must end in a solve or a clean error.
HOSTILE = {
    "empty": lambda: b"",
    "blank_lines": lambda: b"\n" * 1000,
    "comments_only": lambda: b"# nothing here\n" * 100,
    "only_import": lambda: b"import pypto.language as pl\n",
    "nul_first_byte": lambda: b"\x00" + BASE.encode(),
    "nul_in_statement": lambda: BASE.replace("pl.tile.relu", "pl.tile.re\x00lu").encode(),
    "invalid_utf8_ff": lambda: BASE.replace("s_tile)", "s_tile\udcff)").encode("utf-8", "surrogateescape"),
    "lone_continuation_byte": lambda: BASE.encode().replace(b"relu", b"re\x80lu"),
    "truncated_multibyte": lambda: BASE.encode()[:400] + b"\xe2\x82",
    "overlong_encoding": lambda: BASE.encode().replace(b"# pypto", b"# \xc0\xaf pypto"),
    "utf16_surrogate": lambda: BASE.encode().replace(b"relu(", b"relu(\xed\xa0\x80"),
    "latin1_comment": lambda: BASE.encode().replace(b"# pypto.program", b"# caf\xe9 pypto.program"),
    "utf16_file": lambda: BASE.encode("utf-16"),
    "bom_first": lambda: b"\xef\xbb\xbf" + BASE.encode(),
    "bom_in_statement": lambda: BASE.replace("pl.tile.relu", "pl.tile.\ufeffrelu").encode(),
    "crlf_line_ends": lambda: BASE.replace("\n", "\r\n").encode(),
    "cr_line_ends": lambda: BASE.replace("\n", "\r").encode(),
    "no_final_newline": lambda: BASE.rstrip("\n").encode(),
    "tab_indentation": lambda: re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4),
                                      BASE).encode(),
    "mixed_tab_line": lambda: BASE.replace(ANCHOR, "\t" + ANCHOR.lstrip(" ")).encode(),
    "unexpected_indent": lambda: BASE.replace(ANCHOR, "    " + ANCHOR).encode(),
    "bad_dedent": lambda: BASE.replace(ANCHOR, "      " + ANCHOR.lstrip(" ")).encode(),
    "line_1mb_comment": lambda: _after_anchor("        # " + "x" * LINE_1MB + "\n").encode(),
    "line_1mb_spaces": lambda: _after_anchor(" " * LINE_1MB + "\n").encode(),
    "line_1mb_name": lambda: BASE.replace("r_tile", "r" * LINE_1MB).encode(),
    "line_1mb_undefined_name": lambda: BASE.replace("relu(s_tile)", "relu(" + "s" * LINE_1MB + ")").encode(),
    "line_1mb_string_kwarg": lambda: BASE.replace("relu(s_tile)", "relu(s_tile, attrs={'note': '" + "q" * LINE_1MB + "'})").encode(),
    "line_1mb_int_literal": lambda: BASE.replace("[16, 128], [16, 128], target_memory=pl.Mem.Vec",
                                                 "[16, 128], [" + "9" * LINE_1MB + ", 128], target_memory=pl.Mem.Vec").encode(),
    "line_1mb_list": lambda: BASE.replace("pl.tile.store(r_tile, [0, 0]",
                                          "pl.tile.store(r_tile, [" + "0, " * (LINE_1MB // 3) + "0]").encode(),
    "line_1mb_binop_chain": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = " + " + ".join(["1"] * (LINE_1MB // 4)) + "\n").encode(),
    "line_1mb_unterminated_string": lambda: _after_anchor("        x = '" + "z" * LINE_1MB + "\n").encode(),
    # one character over the default line-length cap (tilemem.limits): a located error
    "line_over_cap_comment": lambda: _after_anchor("        # " + "x" * (MB - 9) + "\n").encode(),
    "line_over_cap_list": lambda: BASE.replace("pl.tile.store(r_tile, [0, 0]",
                                               "pl.tile.store(r_tile, [" + "0, " * (MB // 3) + "0]").encode(),
    "deep_parens_200": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = " + "(" * 200 + "1" + ")" * 200 + "\n").encode(),
    "deep_parens_1000": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = " + "(" * 1000 + "1" + ")" * 1000 + "\n").encode(),
    "deep_parens_100000": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = " + "(" * 100000 + "1" + ")" * 100000 + "\n").encode(),
    "deep_parens_unclosed": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = " + "(" * 200 + "1\n").encode(),
    "deep_lists_200": lambda: BASE.replace("store(r_tile, [0, 0]", "store(r_tile, " + "[" * 200 + "0" + "]" * 200).encode(),
    "deep_lists_100000": lambda: BASE.replace("store(r_tile, [0, 0]", "store(r_tile, " + "[" * 100000 + "0" + "]" * 100000).encode(),
    "deep_dicts_200": lambda: BASE.replace("relu(s_tile)", "relu(s_tile, attrs=" + "{'k': " * 200 + "1" + "}" * 200 + ")").encode(),
    "deep_calls_200": lambda: BASE.replace("relu(s_tile)", "relu(" + "pl.tile.exp(" * 200 + "s_tile" + ")" * 200 + ")").encode(),
    "deep_unary_100000": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = " + "-" * 100000 + "1\n").encode(),
    "deep_not_5000": lambda: _after_anchor("        k: pl.Scalar[pl.BOOL] = " + "not " * 5000 + "True\n").encode(),
    "deep_subscripts_5000": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = a" + "[0]" * 5000 + "\n").encode(),
    "deep_power_chain_5000": lambda: _after_anchor("        k: pl.Scalar[pl.INDEX] = " + " ** ".join(["2"] * 5000) + "\n").encode(),
    "deep_if_200": lambda: _after_anchor(_nested_blocks("if {d} < 1:", 200)).encode(),
    "deep_if_else_200": lambda: _after_anchor(_nested_blocks("if {d} < 1:", 200) + "        else:\n            pl.system.bar_v()\n").encode(),
    "deep_for_200": lambda: _after_anchor(_nested_blocks("for i{d} in pl.range(2):", 200)).encode(),
    "deep_for_1500": lambda: _after_anchor(_nested_blocks("for i{d} in pl.range(2):", 1500)).encode(),
    "deep_with_200": lambda: _after_anchor(_nested_blocks("with pl.scope():", 200)).encode(),
    "deep_loop_carried_200": lambda: _after_anchor("".join(
        "        " + "    " * d + f"for i{d}, (v{d},) in pl.range(2, init_values=({'r_tile' if d == 0 else f'v{d - 1}'},)):\n"
        for d in range(200)) + "        " + "    " * 200 + "w: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(v199)\n").encode(),
    "huge_int_shape": lambda: BASE.replace("[[16, 128], pl.FP32] = pl.tile.relu", f"[[{10 ** 400}, 128], pl.FP32] = pl.tile.relu").encode(),
    "huge_int_offset": lambda: BASE.replace("store(r_tile, [0, 0]", f"store(r_tile, [{2 ** 64}, -{2 ** 63}]").encode(),
    "int_5000_digits": lambda: BASE.replace("store(r_tile, [0, 0]", "store(r_tile, [" + "7" * 5000 + ", 0]").encode(),
    "negative_and_zero_shape": lambda: BASE.replace("pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat]", "pl.Tile[[-16, 0], pl.BF16, pl.Mem.Mat]").encode(),
    "float_weirdness": lambda: BASE.replace("relu(s_tile)", "relu(s_tile, a=1e999999, b=-0.0, c=nan, d=inf)").encode(),
    "unknown_op": lambda: BASE.replace("pl.tile.relu", "pl.tile.frobnicate").encode(),
    "unknown_namespace_op": lambda: BASE.replace("pl.tile.relu", "pl.nosuch.space.relu").encode(),
    "undefined_name": lambda: BASE.replace("relu(s_tile)", "relu(nowhere)").encode(),
    "use_before_definition": lambda: BASE.replace("add(c_tile, bias_tile)", "add(c_tile, r_tile)").encode(),
    "redefinition": lambda: _after_anchor("        r_tile: pl.Tile[[8], pl.INT8] = pl.tile.exp(a_tile)\n").encode(),
    "wrong_arity_matmul_1": lambda: BASE.replace("matmul(a_tile, b_tile)", "matmul(a_tile)").encode(),
    "wrong_arity_matmul_0": lambda: BASE.replace("matmul(a_tile, b_tile)", "matmul()").encode(),
    "wrong_arity_add_4": lambda: BASE.replace("add(c_tile, bias_tile)", "add(c_tile, bias_tile, c_tile, 1)").encode(),
    "wrong_arity_load": lambda: BASE.replace("pl.tile.load(a, [0, 0], [16, 64], [16, 64], ", "pl.tile.load(").encode(),
    "wrong_arity_store": lambda: BASE.replace("store(r_tile, [0, 0], out_0)", "store(r_tile)").encode(),
    "wrong_arity_move": lambda: _after_anchor("        m: pl.Tile[[16, 128], pl.FP32] = pl.tile.move()\n").encode(),
    "move_without_target": lambda: _after_anchor("        m: pl.Tile[[16, 128], pl.FP32] = pl.tile.move(r_tile)\n").encode(),
    "literal_operands": lambda: BASE.replace("matmul(a_tile, b_tile)", "matmul(1, 'x')").encode(),
    "tensor_operands": lambda: BASE.replace("matmul(a_tile, b_tile)", "matmul(a, b)").encode(),
    "duplicate_kwarg": lambda: BASE.replace("target_memory=pl.Mem.Vec)", "target_memory=pl.Mem.Vec, target_memory=pl.Mem.Mat)").encode(),
    "unknown_space": lambda: BASE.replace("target_memory=pl.Mem.Vec", "target_memory=pl.Mem.Bogus").encode(),
    "unknown_space_in_type": lambda: BASE.replace("pl.BF16, pl.Mem.Mat]", "pl.BF16, pl.Mem.Bogus]", 1).encode(),
    "unknown_dtype": lambda: BASE.replace("pl.FP32] = pl.tile.relu", "pl.FP99] = pl.tile.relu").encode(),
    "unknown_layout": lambda: _after_anchor("        m: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.move(r_tile, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.diagonal)\n").encode(),
    # (an unknown op keeps its written type, which the rewrite then retypes: crashed on the enum)
    "unknown_layout_in_view": lambda: BASE.replace("pl.Tile[[16, 128], pl.FP32] = pl.tile.relu", "pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.col_majovr)] = pl.exp.relu").encode(),
    "unknown_pad_in_view": lambda: BASE.replace("pl.Tile[[16, 128], pl.FP32] = pl.tile.relu", "pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc, pl.TileView(pad=pl.PadValue.Tensor)] = pl.tile.add(s_tile, )").encode(),
    "unknown_view_fields": lambda: BASE.replace("pl.Tile[[16, 128], pl.FP32] = pl.tile.relu", "pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[q, 9], pad=pl.PadValue.zz, bogus=1)] = pl.tile.relu").encode(),
    "tile_parameter": lambda: BASE.replace("bias: pl.Tensor[[16, 128], pl.FP32], out_0", "bias: pl.Tile[[16, 128], pl.FP32], out_0", 1).encode(),
    "yield_at_top_level": lambda: _after_anchor("        y: pl.Tile[[16, 128], pl.FP32] = pl.yield_(r_tile)\n").encode(),
    "iter_args_without_inits": lambda: _after_anchor("        for i, (p, q) in pl.range(2, init_values=(r_tile,)):\n            z: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(q)\n            w: pl.Tile[[16, 128], pl.FP32] = pl.yield_(z)\n").encode(),
    "yield_arity_mismatch": lambda: _after_anchor("        for i, (p,) in pl.range(2, init_values=(r_tile,)):\n            z: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(p)\n            w1, w2, w3 = pl.yield_(z)\n").encode(),
    "if_yield_one_arm": lambda: _after_anchor("        if 1 < 2:\n            z: pl.Tile[[16, 128], pl.FP32] = pl.tile.exp(r_tile)\n            w: pl.Tile[[16, 128], pl.FP32] = pl.yield_(z)\n").encode(),
    "break_outside_loop": lambda: _after_anchor("        break\n        continue\n").encode(),
    "return_in_the_middle": lambda: _after_anchor("        return r_tile\n").encode(),
    "python_statement": lambda: _after_anchor("        import os; os.system('echo pwned')\n").encode(),
    "lambda_and_comprehension": lambda: _after_anchor("        z = [lambda q: q for q in range(3)]\n").encode(),
    "keyword_swapped": lambda: BASE.replace("    def kernel", "    for kernel", 1).encode(),
    "class_without_body": lambda: b"import pypto.language as pl\n\n@pl.program\nclass P:\n",
    "function_without_body": lambda: BASE.split("        a_tile")[0].encode(),
    "duplicate_function": lambda: BASE.replace("    @pl.function(type=pl.FunctionType.Orchestration",
                                               BASE.split("class MatmulBiasRelu:\n")[1].split("    @pl.function(type=pl.FunctionType.Orchestration")[0]
                                               + "    @pl.function(type=pl.FunctionType.Orchestration").encode(),
    "unterminated_string": lambda: BASE.replace("relu(s_tile)", "relu(s_tile, m='oops)").encode(),
    "unbalanced_open": lambda: BASE.replace("relu(s_tile)", "relu((s_tile)").encode(),
    "unbalanced_close": lambda: BASE.replace("relu(s_tile)", "relu(s_tile))").encode(),
    "mismatched_brackets": lambda: BASE.replace("relu(s_tile)", "relu(s_tile]").encode(),
    "cut_in_the_middle": lambda: BASE.encode()[: len(BASE) // 2],
    "many_functions_300": lambda: (BASE.split("    @pl.function(type=pl.FunctionType.Orchestration")[0]
                                   + "".join(BASE.split("class MatmulBiasRelu:\n")[1].split("    @pl.function(type=pl.FunctionType.Orchestration")[0]
                                             .replace("def kernel(", f"def kernel_{k}(") for k in range(300))).encode(),
}


# ----------------------------------------------------------------------------- running one input


class Hang(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds: float):
    """Raise Hang if the block uses more than ``seconds`` of this process's CPU time
    (main thread, POSIX only).  CPU time, not wall-clock time: on a loaded machine (the
    long run at nice 15 got a fifth of a core) a 997-level nest that takes 8 s alone
    ran past a 60 s wall-clock deadline.  A hang that uses no CPU (a deadlock, a wait)
    is the watched worker's wall-clock timeout's to catch (fuzz)."""
    if not hasattr(signal, "setitimer") or seconds <= 0:
        yield
        return

    def on_alarm(signum, frame):
        raise Hang(f"no answer after {seconds} s of CPU time")
    old = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def check_error(e: TilememError, text) -> None:
    """The contract of an input error: one located line, no internal-error disguise."""
    first = e.format_first_line()
    assert "\n" not in first, first
    assert ERROR_LINE.match(first), first
    assert first.startswith(e.path), first
    low = first.lower()
    assert "internal error" not in low and "traceback" not in low, first
    if e.line is not None and text is not None:
        n_lines = (text.count("\n") if isinstance(text, str) else text.count(b"\n")) + 1
        assert 1 <= e.line <= n_lines + 1, (e.line, n_lines, first)
        if e.col is not None:
            assert e.col >= 1, first
    full = e.format()            # the caret rendering must not crash either
    assert full.startswith(first)
    assert len(full) < 4096, f"a {len(full)}-character message"


def run_library(data: bytes, backend=None, time_limit: float = 60.0, limits=None):
    """Feed bytes through the library the way the CLI does (``limits``: the solve's caps,
    the default ones when None).

    Returns ``("ok" | "error" | "usage", detail)``; raises AssertionError (with the
    reason) for a crash, a hang or a malformed message.
    """
    try:
        with deadline(time_limit):
            try:
                text = decode_source(data, PATH)
            except TilememError as e:
                check_error(e, data)
                return "error", e
            try:
                sol = tilemem.solve(text, backend=backend, path=PATH, limits=limits)
            except UsageError as e:
                return "usage", str(e)
            except TilememError as e:
                check_error(e, text)
                return "error", e.message
            # the answer is itself a valid program -- unless a string of the input spells a
            # line break with an escape (``"\\r"``): PyPTO's printer writes it raw (std::quoted
            # escapes only backslash and quote), so the answer, PyPTO's own text, is one that
            # neither PyPTO's reader nor tilemem's takes back.  Read with the caps lifted:
            # they bound an input, and the answer joins a statement written over several
            # lines into one, as PyPTO prints it, which can be longer than the line cap
            # Nor when a loop's return var is bound to a yield of no values
            # (``out = pl.yield_()``): PyPTO prints that yield bare, so the answer reads a
            # return var it no longer defines, and PyPTO's reader refuses its own text too.
            try:
                tilemem.parse(sol.text, "out.pto", limits=_UNCAPPED)
            except TilememError as e:
                if "unterminated string" in e.message and _LINE_BREAK_ESCAPE.search(text):
                    pass
                elif not _names_undefined_by_a_bare_yield(e.message, text):
                    raise
            return "ok", None
    except AssertionError:
        raise
    except Hang as e:
        raise AssertionError(f"hang: {e}") from None
    except BaseException as e:     # noqa: BLE001 - anything else is a crash
        if isinstance(e, KeyboardInterrupt):
            raise
        raise AssertionError(f"crash: {type(e).__name__}: {str(e)[:300]}") from e


#: a name bound to a yield of no values (``out = pl.yield_()``, annotated or not)
_EMPTY_YIELD_BINDING = re.compile(r"^[ \t]*(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*pl\.yield_\([ \t]*\)", re.M)


def _names_undefined_by_a_bare_yield(message: str, text: str) -> bool:
    """The re-read failed only on a name the input bound to a yield of no values."""
    m = re.search(r"reads undefined name '(\w+)'", message)
    return bool(m) and m.group(1) in _EMPTY_YIELD_BINDING.findall(text)


#: no input-size or line-length cap (the answer is re-read with these)
_UNCAPPED = Limits(max_input_size=0, max_line_length=0)

#: an escape in a string literal that decodes to a character Python splits lines at
_LINE_BREAK_ESCAPE = re.compile(r"\\(?:[rnvf]|x0[a-d]|x1[c-e]|x85|u2028|u2029|N\{)")


def _save_failure(data: bytes, name: str) -> str:
    """Keep a failing input for reproduction; returns where."""
    d = Path(os.environ.get("TMPDIR", "/tmp")) / "tilemem-fuzz-failures"
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{name}.pto"
    p.write_bytes(data)
    return str(p)


# ----------------------------------------------------------------------------- named hostile inputs


# These must be errors, not silently accepted programs.
MUST_FAIL = {"unknown_op", "deep_loop_carried_200",   # (printed IR is checked: issue #27)
             "empty", "blank_lines", "comments_only", "only_import", "nul_first_byte", "nul_in_statement",
             "invalid_utf8_ff", "lone_continuation_byte", "truncated_multibyte", "overlong_encoding",
             "utf16_surrogate", "latin1_comment", "utf16_file", "unexpected_indent", "bad_dedent",
             "line_1mb_unterminated_string", "deep_parens_unclosed", "undefined_name",
             "line_1mb_undefined_name", "unknown_space", "unknown_space_in_type",
             "tile_parameter", "unterminated_string", "unbalanced_open", "unbalanced_close",
             "mismatched_brackets", "cut_in_the_middle", "keyword_swapped", "deep_parens_100000",
             "deep_lists_100000", "deep_for_1500", "class_without_body", "function_without_body",
             "int_5000_digits", "line_1mb_int_literal", "unknown_layout", "unknown_layout_in_view",
             "unknown_pad_in_view", "line_over_cap_comment", "line_over_cap_list",
             "huge_int_shape", "huge_int_offset"}
# These are valid programs and must solve.
MUST_SOLVE = {"bom_first", "crlf_line_ends", "no_final_newline", "tab_indentation", "line_1mb_comment",
              "line_1mb_spaces", "line_1mb_name", "line_1mb_string_kwarg", "line_1mb_list",
              "line_1mb_binop_chain", "deep_parens_200", "deep_lists_200", "deep_if_200",
              "deep_if_else_200", "deep_for_200", "deep_with_200",
              "many_functions_300"}
# Deeply nested / very large programs that solve correctly but slowly with a backend (the
# residency rules are superlinear in loop depth, RELIABILITY.md): with a backend only in
# the long run.
SLOW_WITH_BACKEND = {"deep_for_200", "deep_loop_carried_200", "many_functions_300", "deep_if_200",
                     "deep_if_else_200", "deep_with_200"}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_library(name):
    """Every named hostile input ends in a solve or a clean error, with and without a
    backend; the ones listed in MUST_FAIL / MUST_SOLVE end the expected way."""
    if name == "many_functions_300" and not LONG:
        pytest.skip("300 kernels: long run only (--fuzz-long)")
    data = HOSTILE[name]()
    # inputs of a megabyte test the front end: a backend adds nothing but time in CI
    big = len(data) > 200_000
    backends = (None,) if ((name in SLOW_WITH_BACKEND or big) and not LONG) else (None, "910B")
    for backend in backends:
        try:
            kind, detail = run_library(data, backend, time_limit=600 if LONG else 120)
        except AssertionError as e:
            raise AssertionError(f"{name} (backend {backend}): {e}; input saved at "
                                 f"{_save_failure(data, name)}") from None
        assert kind in ("ok", "error"), (name, kind, detail)
        if name in MUST_FAIL:
            assert kind == "error", (name, backend, "accepted")
        if name in MUST_SOLVE:
            assert kind == "ok", (name, backend, detail)


def _cli(args, stdin: bytes | None = None):
    import subprocess
    from cli_helpers import tilemem_command
    env = dict(os.environ)
    env.pop("TILEMEM_DEBUG", None)
    return subprocess.run(tilemem_command() + [str(a) for a in args], input=stdin,
                          capture_output=True, env=env, timeout=300)


def _check_cli_result(r, label: str):
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode in (0, 2), f"{label}: exit {r.returncode}\n{err[:2000]}"
    assert "Traceback" not in err, f"{label}: {err[:2000]}"
    assert len(err) < 4000, f"{label}: {len(err)} bytes of messages"
    if r.returncode == 2:
        first = err.splitlines()[0] if err else ""
        assert CLI_ERROR_LINE.match(first), f"{label}: {first!r}"
    else:
        assert r.stdout.strip(), label


CLI_SAMPLE = ["nul_in_statement", "invalid_utf8_ff", "line_1mb_int_literal", "deep_parens_100000",
              "deep_lists_100000", "deep_unary_100000", "deep_if_200", "deep_for_1500", "huge_int_shape",
              "unknown_op", "undefined_name", "wrong_arity_matmul_1", "tile_parameter", "empty",
              "bad_dedent", "unknown_space", "line_1mb_binop_chain", "utf16_file"]


def test_hostile_input_cli(tmp_path):
    """The real command: exit 0 or 2, a one-line located message, never a traceback."""
    jobs = []
    for name in CLI_SAMPLE:
        p = tmp_path / f"{name}.pto"
        p.write_bytes(HOSTILE[name]())
        jobs.append((name, ["solve", p, "--backend", "910B"], None))
    jobs.append(("stdin_nul", ["solve", "-"], HOSTILE["nul_in_statement"]()))
    jobs.append(("stdin_deep", ["fmt", "-"], HOSTILE["deep_parens_100000"]()))
    jobs.append(("facts_deep_if", ["facts", tmp_path / "deep_if_200.pto"], None))
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(lambda j: (j[0], _cli(j[1], j[2])), jobs))
    for name, r in results:
        _check_cli_result(r, name)
        err = r.stderr.decode("utf-8", "replace")
        if r.returncode == 2 and name in HOSTILE and not name.startswith("stdin"):
            assert err.startswith(str(tmp_path / f"{name}.pto")), (name, err[:300])


# ----------------------------------------------------------------------------- mutation fuzzing

TOKEN = re.compile(rb"[A-Za-z_][A-Za-z_0-9]*|\d+|[ \t]+|\r?\n|.", re.S)
IDENT = re.compile(rb"[A-Za-z_][A-Za-z_0-9]*\Z")
INT = re.compile(rb"\d+\Z")
OPS = [b"add", b"matmul", b"matmul_acc", b"load", b"store", b"move", b"exp", b"slice", b"reshape",
       b"transpose_view", b"fillpad", b"create", b"frobnicate", b"yield_", b"range", b"cast", b"row_max"]
SPACES = [b"Vec", b"Mat", b"Left", b"Right", b"Acc", b"Bias", b"DDR", b"Bogus", b"vec", b"MemorySpace"]
JUNK = [b"(", b")", b"[", b"]", b"{", b"}", b",", b":", b"=", b"\n", b"    ", b"\t", b"'", b'"', b"\\",
        b"#", b"@", b".", b"->", b"pl", b"self", b"None", b"-", b"**", b"\x00", b"\xff", b"\xc3",
        b"\xe2\x80\xa8", b"\xef\xbb\xbf"]
#: what replace_argument puts where an argument was
ODD_ARGUMENTS = [b"None", b"[]", b"[[1]]", b"(1, 2)", b"pl.FP32", b"pl.Mem.Vec", b"-1.5", b"1e309", b"True",
                 b"self", b"pl", b"'x'", b"[None]", b"pl.TileLayout.row_major", b"x[0]", b"-(2 ** 70)"]
NUMBERS = [b"0", b"-1", b"1" + b"0" * 40, str(2 ** 64).encode(), str(10 ** 400).encode(), b"00", b"1e309",
           b"-0", b"9" * 5000]
KEYWORDS = [b"for", b"if", b"else", b"def", b"return", b"class", b"in", b"with", b"while", b"not",
            b"and", b"or", b"pass", b"break", b"lambda", b"import", b"True", b"None"]


class Mutator:
    """Byte-, line- and token-level mutations of program bytes (deterministic per seed)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.ops = [
            (3, "flip_byte", self.flip_byte), (2, "insert_byte", self.insert_byte),
            (3, "delete_bytes", self.delete_bytes), (1, "duplicate_bytes", self.duplicate_bytes),
            (1, "truncate", self.truncate), (1, "insert_nul", self.insert_nul),
            (1, "invalid_utf8", self.invalid_utf8),
            (3, "cut_line", self.cut_line), (1, "duplicate_line", self.duplicate_line),
            (2, "swap_lines", self.swap_lines), (3, "reindent_line", self.reindent_line),
            (1, "join_lines", self.join_lines), (1, "split_line", self.split_line),
            (4, "swap_tokens", self.swap_tokens), (3, "delete_token", self.delete_token),
            (1, "duplicate_token", self.duplicate_token), (3, "rename_identifier", self.rename_identifier),
            (2, "undefined_name", self.undefined_name), (3, "replace_number", self.replace_number),
            (3, "replace_op", self.replace_op), (3, "drop_argument", self.drop_argument),
            (2, "add_argument", self.add_argument), (2, "replace_argument", self.replace_argument),
            (3, "insert_junk", self.insert_junk),
            (2, "replace_space", self.replace_space), (1, "replace_keyword", self.replace_keyword),
            (1, "long_line", self.long_line), (1, "deep_nesting", self.deep_nesting),
        ]
        # every weight x3, so that the costly deep block nests (up to 997 levels in the
        # long run, seconds each) are 1 mutation in ~170
        self.ops = [(3 * w, name, fn) for w, name, fn in self.ops]
        self.ops.append((1, "deep_blocks", self.deep_blocks))
        self.total = sum(w for w, _, _ in self.ops)

    def pick(self):
        k = self.rng.randrange(self.total)
        for w, name, fn in self.ops:
            if k < w:
                return name, fn
            k -= w
        raise AssertionError

    def mutate(self, data: bytes) -> tuple[bytes, list[str]]:
        names = []
        for _ in range(self.rng.choice((1, 2, 2, 3))):
            name, fn = self.pick()
            if data:
                data = fn(data)
            names.append(name)
        return data, names

    # -- helpers
    def _pos(self, data: bytes) -> int:
        return self.rng.randrange(len(data) + 1)

    def _lines(self, data: bytes) -> list[bytes]:
        return data.split(b"\n")

    def _tokens(self, data: bytes) -> list[bytes]:
        return TOKEN.findall(data)

    def _code_index(self, toks, pred=lambda t: t.strip() != b"") -> int | None:
        idx = [i for i, t in enumerate(toks) if pred(t)]
        return self.rng.choice(idx) if idx else None

    # -- bytes
    def flip_byte(self, d):
        i = self.rng.randrange(len(d))
        return d[:i] + bytes([self.rng.randrange(256)]) + d[i + 1:]

    def insert_byte(self, d):
        i = self._pos(d)
        return d[:i] + bytes([self.rng.randrange(256)]) + d[i:]

    def delete_bytes(self, d):
        i = self.rng.randrange(len(d))
        return d[:i] + d[i + self.rng.randint(1, 64):]

    def duplicate_bytes(self, d):
        i = self.rng.randrange(len(d))
        chunk = d[i:i + self.rng.randint(1, 200)]
        j = self._pos(d)
        return d[:j] + chunk + d[j:]

    def truncate(self, d):
        return d[:self.rng.randrange(len(d))]

    def insert_nul(self, d):
        i = self._pos(d)
        return d[:i] + b"\x00" + d[i:]

    def invalid_utf8(self, d):
        i = self._pos(d)
        bad = self.rng.choice([b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80",
                               b"\xf4\x90\x80\x80", b"\xfe\xff"])
        return d[:i] + bad + d[i:]

    # -- lines
    def cut_line(self, d):
        ls = self._lines(d)
        del ls[self.rng.randrange(len(ls))]
        return b"\n".join(ls)

    def duplicate_line(self, d):
        ls = self._lines(d)
        i = self.rng.randrange(len(ls))
        ls.insert(self.rng.randrange(len(ls) + 1), ls[i])
        return b"\n".join(ls)

    def swap_lines(self, d):
        ls = self._lines(d)
        if len(ls) < 2:
            return d
        i = self.rng.randrange(len(ls) - 1)
        j = i + 1 if self.rng.random() < 0.6 else self.rng.randrange(len(ls))
        ls[i], ls[j] = ls[j], ls[i]
        return b"\n".join(ls)

    def reindent_line(self, d):
        ls = self._lines(d)
        i = self.rng.randrange(len(ls))
        body = ls[i].lstrip(b" \t")
        ind = len(ls[i]) - len(body)
        new = self.rng.choice([max(ind - 4, 0), ind + 4, max(ind - 1, 0), ind + 1, ind + 2, 0])
        prefix = b"\t" * (new // 4) if self.rng.random() < 0.2 else b" " * new
        ls[i] = prefix + body
        return b"\n".join(ls)

    def join_lines(self, d):
        ls = self._lines(d)
        if len(ls) < 2:
            return d
        i = self.rng.randrange(len(ls) - 1)
        ls[i:i + 2] = [ls[i] + b" " + ls[i + 1].lstrip()]
        return b"\n".join(ls)

    def split_line(self, d):
        i = self._pos(d)
        return d[:i] + b"\n" + d[i:]

    # -- tokens
    def swap_tokens(self, d):
        t = self._tokens(d)
        code = [i for i, x in enumerate(t) if x.strip()]
        if len(code) < 2:
            return d
        k = self.rng.randrange(len(code) - 1)
        i, j = code[k], code[k + 1]
        t[i], t[j] = t[j], t[i]
        return b"".join(t)

    def delete_token(self, d):
        t = self._tokens(d)
        i = self._code_index(t)
        if i is None:
            return d
        del t[i]
        return b"".join(t)

    def duplicate_token(self, d):
        t = self._tokens(d)
        i = self._code_index(t)
        if i is None:
            return d
        t.insert(i, t[i])
        return b"".join(t)

    def rename_identifier(self, d):
        t = self._tokens(d)
        idents = [x for x in t if IDENT.match(x)]
        i = self._code_index(t, lambda x: IDENT.match(x) is not None)
        if i is None:
            return d
        t[i] = self.rng.choice(idents)
        return b"".join(t)

    def undefined_name(self, d):
        t = self._tokens(d)
        i = self._code_index(t, lambda x: IDENT.match(x) is not None)
        if i is None:
            return d
        t[i] = self.rng.choice([b"undefined_x", b"__import__", b"self", b"pl", b"_", b"None"])
        return b"".join(t)

    def replace_number(self, d):
        t = self._tokens(d)
        i = self._code_index(t, lambda x: INT.match(x) is not None)
        if i is None:
            return d
        t[i] = self.rng.choice(NUMBERS)
        return b"".join(t)

    def replace_op(self, d):
        t = self._tokens(d)
        # the identifier after `tile.` / `tensor.` / `pl.`
        cands = [i for i in range(2, len(t)) if IDENT.match(t[i]) and t[i - 1] == b"."]
        if not cands:
            return d
        i = self.rng.choice(cands)
        t[i] = self.rng.choice(OPS)
        return b"".join(t)

    def _calls(self, t):
        return [i for i in range(1, len(t)) if t[i] == b"(" and IDENT.match(t[i - 1])]

    def replace_argument(self, d):
        """A call argument (a keyword's value) replaced by a value of another kind: the
        sweeps over the DSL test programs found seven crashes of this shape that byte
        mutations had not reached (a float axis, a list attribute, a tuple as a tile...)."""
        t = self._tokens(d)
        calls = self._calls(t)
        if not calls:
            return d
        lo, hi, _ = self._argument(t, self.rng.choice(calls))
        while lo < hi and t[lo].strip() == b"":
            lo += 1
        if lo + 1 < hi and IDENT.match(t[lo]) and t[lo + 1] == b"=":
            lo += 2                                 # keep `name=`
        if lo >= hi:
            return d
        return b"".join(t[:lo] + [self.rng.choice(ODD_ARGUMENTS)] + t[hi:])

    def _argument(self, t, i):
        """(lo, hi, k): argument k, picked at random, of the call whose `(` is t[i], is
        t[lo:hi] (without its comma)."""
        depth, j, start = 0, i, i + 1
        commas = []
        while j < len(t):
            if t[j] in (b"(", b"[", b"{"):
                depth += 1
            elif t[j] in (b")", b"]", b"}"):
                depth -= 1
                if depth == 0:
                    break
            elif t[j] == b"," and depth == 1:
                commas.append(j)
            j += 1
        bounds = [start] + [c + 1 for c in commas] + [j + 1]
        k = self.rng.randrange(len(bounds) - 1)
        return bounds[k], bounds[k + 1] - 1, k

    def drop_argument(self, d):
        t = self._tokens(d)
        calls = self._calls(t)
        if not calls:
            return d
        lo, hi, k = self._argument(t, self.rng.choice(calls))
        if hi < len(t) and t[hi] == b",":
            hi += 1
        elif k > 0:
            lo -= 1                                 # drop the comma before the last argument
        return b"".join(t[:lo] + t[hi:])

    def add_argument(self, d):
        t = self._tokens(d)
        calls = self._calls(t)
        if not calls:
            return d
        i = self.rng.choice(calls)
        extra = self.rng.choice([b"1, ", b"x, ", b"pl.Mem.Vec, ", b"target_memory=pl.Mem.Acc, ",
                                 b"'s', ", b"[0, 0], ", b"None, "])
        t.insert(i + 1, extra)
        return b"".join(t)

    def insert_junk(self, d):
        t = self._tokens(d)
        t.insert(self.rng.randrange(len(t) + 1), self.rng.choice(JUNK))
        return b"".join(t)

    def replace_space(self, d):
        t = self._tokens(d)
        cands = [i for i in range(2, len(t)) if t[i - 2] in (b"Mem", b"MemorySpace") and t[i - 1] == b"."]
        if not cands:
            return d
        t[self.rng.choice(cands)] = self.rng.choice(SPACES)
        return b"".join(t)

    def replace_keyword(self, d):
        t = self._tokens(d)
        i = self._code_index(t, lambda x: x in KEYWORDS)
        if i is None:
            return d
        t[i] = self.rng.choice(KEYWORDS)
        return b"".join(t)

    def long_line(self, d):
        ls = self._lines(d)
        i = self.rng.randrange(len(ls))
        # in the long run also lines over the default cap (1 MiB): a located error
        n = self.rng.choice([10_000, 100_000] + ([1_100_000] if LONG else []))
        kind = self.rng.randrange(3)
        if kind == 0:
            ls[i] = ls[i] + b" # " + b"x" * n
        elif kind == 1:
            ls[i] = ls[i].replace(b"[0, 0]", b"[" + b"0, " * (n // 3) + b"0]", 1)
        else:
            ls[i] = ls[i].replace(b"(", b"(" + b"z" * n + b", ", 1)
        return b"\n".join(ls)

    def deep_blocks(self, d):
        """Loops, branches or scopes nested 120 levels deep (in the long run 250 to 997, the
        reader's limit) after a statement of a function body."""
        ls = self._lines(d)
        at = [i for i, ln in enumerate(ls) if ln.startswith(b"        ") and b" = pl." in ln]
        if not at:
            return d
        i = self.rng.choice(at)
        ind = len(ls[i]) - len(ls[i].lstrip(b" "))
        depth = self.rng.choice([250, 300, 500, 997] if LONG else [120])
        header = self.rng.choice([b"for i%d in pl.range(2):", b"if %d < 1:", b"with pl.scope():"])
        nest = [b" " * (ind + 4 * k) + (header % k if b"%d" in header else header)
                for k in range(depth)]
        nest.append(b" " * (ind + 4 * depth) + b"pl.system.bar_v()")
        return b"\n".join(ls[:i + 1] + nest + ls[i + 1:])

    def deep_nesting(self, d):
        t = self._tokens(d)
        i = self._code_index(t, lambda x: IDENT.match(x) is not None or INT.match(x) is not None)
        if i is None:
            return d
        n = self.rng.choice([50, 200, 1200])
        o, c = self.rng.choice([(b"(", b")"), (b"[", b"]"), (b"-", b""), (b"(", b"")])
        t[i] = o * n + t[i] + c * n
        return b"".join(t)


def _seed_programs() -> list[tuple[str, bytes]]:
    """What to mutate: the golden corpus inputs, small real programs, generated kernels."""
    seeds = []
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        for p in sorted(corpus.glob("*/before.pto")):
            seeds.append((p.parent.name, p.read_bytes()))
    models = SHARED / "corpus-models"
    if models.is_dir():
        small = []
        for p in sorted(models.glob("*/before.pto")):
            data = p.read_bytes()
            if data.count(b"\n") <= 60:
                small.append((p.parent.name, data))
        seeds.extend(small[:20])
    for k in range(20):
        opts = GenOptions(max_stmts=6, strict=k % 4 != 3)
        seeds.append((f"gen_{k}", generate(RandomChoices(1000 + k), opts).encode()))
    seeds.append(("base", BASE.encode()))
    # the hand-written reading (tilemem.frontend.dsl): DSL programs and .py modules
    random_corpus = SHARED / "corpus-random"
    if random_corpus.is_dir():
        for p in sorted(random_corpus.glob("*/before_dsl.pto"))[::8]:      # 50 of 400
            seeds.append((f"dsl_{p.parent.name}", p.read_bytes()))
    for p in sorted((Path(__file__).resolve().parent / "data" / "solve" / "dsl").glob("*.py")):
        seeds.append((f"py_{p.stem}", p.read_bytes()))
    return seeds


SEED_PROGRAMS = _seed_programs()


def _fuzz_one(job):
    """Run one mutated input (in a pool worker or in-process); returns (kind, seconds, failure)."""
    i, data, backend, label = job
    t = time.perf_counter()
    try:
        kind, detail = run_library(data, backend, time_limit=60)
        # bounded memory: running out of the worker's budget is a finding, not an answer
        assert not (kind == "error" and "out of memory" in str(detail)), f"out of memory: {detail}"
    except AssertionError as e:
        where = _save_failure(data, label)
        return None, 0.0, f"{label} (backend {backend}): {e} [saved: {where}]"
    return kind, time.perf_counter() - t, None


#: wall-clock seconds without an answer before a worker counts as hung: each input also
#: has a CPU-time deadline (60 s, deadline()); this catches what uses no CPU (a
#: deadlock) or never returns to Python.  Generous in the long run, which runs at low
#: priority on a shared machine.
WATCH_SECONDS = 600 if LONG else 180

#: what one fuzz worker may use (address space past its start-up size)
FUZZ_MEMORY = 3 << 30


def _fuzz_jobs() -> int:
    if os.environ.get("TILEMEM_FUZZ_JOBS"):
        return max(1, int(os.environ["TILEMEM_FUZZ_JOBS"]))
    return max(1, min(2, os.cpu_count() or 1))


def fuzz(n: int, base_seed: int, report_name: str) -> dict:
    """Mutate and run n inputs; returns the figures; raises AssertionError on any failure.

    The inputs are made in this process from ``base_seed`` (the same inputs every run) and
    run through the library by up to two watched worker processes (``TILEMEM_FUZZ_JOBS``,
    tilemem.tools.workers) so that the run uses the machine's cores and a hang or a dead
    worker is a reported failure.
    """
    rng = random.Random(base_seed)
    mut = Mutator(rng)

    def batch(start, size):
        out = []
        for i in range(start, min(n, start + size)):
            name, src = SEED_PROGRAMS[rng.randrange(len(SEED_PROGRAMS))]
            data, ops = mut.mutate(src)
            out.append((i, data, BACKENDS[i % 3], f"{report_name}-{base_seed}-{i}-{name}-{'+'.join(ops)}"))
        return out

    counts: dict[str, int] = {}
    failures: list[str] = []
    slowest = (0.0, None)
    t0 = time.perf_counter()
    jobs = _fuzz_jobs()
    # tilemem's own worker pool: a worker that dies (a crash in C, the OOM killer) or an
    # input that hangs anywhere (also inside the engine's C code, which the in-process
    # deadline cannot interrupt) is reported as a failure instead of hanging the run
    from tilemem.tools.workers import run_tasks

    def died(job, why):
        return None, 0.0, f"{job[3]} (backend {job[2]}): worker died ({why}) [saved: {_save_failure(job[1], job[3])}]"

    def timed_out(job, seconds):
        return None, 0.0, f"{job[3]} (backend {job[2]}): hang: no answer after {seconds:g} s [saved: {_save_failure(job[1], job[3])}]"

    for start in range(0, n, 2000):
        work = batch(start, 2000)
        results = run_tasks(work, _fuzz_one, jobs, died=died, timed_out=timed_out, timeout=WATCH_SECONDS,
                            memory=FUZZ_MEMORY)
        for (i, _, _, label), (kind, dt, failure) in zip(work, results):
            if failure:
                failures.append(failure)
                continue
            counts[kind] = counts.get(kind, 0) + 1
            if dt > slowest[0]:
                slowest = (dt, label)
        if len(failures) >= 10:
            break
    figures = {"suite": report_name, "seed": base_seed, "inputs": n, "outcomes": counts,
               "workers": jobs, "seconds": round(time.perf_counter() - t0, 1),
               "slowest_input_seconds": round(slowest[0], 2), "slowest_input": slowest[1],
               "failures": len(failures)}
    report = os.environ.get("TILEMEM_FUZZ_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as f:
            f.write(json.dumps(figures) + "\n")
    print(json.dumps(figures))
    assert not failures, "\n".join(failures[:10])
    return figures


FUZZ_SEED = int(os.environ.get("TILEMEM_FUZZ_SEED", "20250701"))


def test_mutation_fuzz_library():
    """Thousands of mutated programs through parse + solve, in-process."""
    n = int(os.environ.get("TILEMEM_FUZZ_COUNT") or (100_000 if LONG else 5_000))
    figures = fuzz(n, FUZZ_SEED if not LONG else FUZZ_SEED + 1, "library")
    # the mix exercises both the error paths and the solver
    assert figures["outcomes"].get("error", 0) > n // 4
    assert figures["outcomes"].get("ok", 0) > n // 20


def test_mutation_fuzz_cli_in_process(tmp_path):
    """A sample through the CLI's own entry point: exit 0 or 2 and the message format."""
    from tilemem.cli import main
    rng = random.Random(FUZZ_SEED + 7)
    mut = Mutator(rng)
    n = 2_000 if LONG else 120
    codes = {}
    for i in range(n):
        name, src = SEED_PROGRAMS[rng.randrange(len(SEED_PROGRAMS))]
        data, ops = mut.mutate(src)
        p = tmp_path / "m.pto"
        p.write_bytes(data)
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), deadline(60):
            code = main(["solve", str(p), "--backend", BACKENDS[i % 3] or "none"])
        msg = err.getvalue()
        ok = code in (0, 2) and "Traceback" not in msg and (
            code == 0 or (msg.startswith(str(p) + ":") and CLI_ERROR_LINE.match(msg.splitlines()[0])))
        if not ok:
            where = _save_failure(data, f"cli-{FUZZ_SEED}-{i}")
            raise AssertionError(f"input {i} ({name}, {'+'.join(ops)}, saved at {where}): "
                                 f"exit {code}: {msg[:500]}")
        codes[code] = codes.get(code, 0) + 1
    assert codes.get(2, 0) > 0


def test_mutation_fuzz_cli_subprocess(tmp_path):
    """A few mutated inputs through the installed command (fresh processes)."""
    rng = random.Random(FUZZ_SEED + 11)
    mut = Mutator(rng)
    jobs = []
    for i in range(40 if LONG else 12):
        name, src = SEED_PROGRAMS[rng.randrange(len(SEED_PROGRAMS))]
        data, ops = mut.mutate(src)
        p = tmp_path / f"m{i}.pto"
        p.write_bytes(data)
        jobs.append((f"{i} {name} {'+'.join(ops)}", p))
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(lambda j: (j[0], _cli(["solve", j[1], "--backend", "950"])), jobs))
    for label, r in results:
        _check_cli_result(r, label)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_endless_device_is_an_error_not_a_hang(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    with deadline(30):
        with pytest.raises(TilememError) as exc:
            tilemem.solve(Path(device))
    check_error(exc.value, None)
    assert "binary input" in exc.value.message
    r = _cli(["solve", device])
    _check_cli_result(r, device)
    assert r.returncode == 2


@pytest.mark.skipif(not LONG, reason="reads 256 MB: long run only (--fuzz-long)")
def test_endless_text_on_stdin_is_an_error_not_a_hang():
    import subprocess
    from cli_helpers import tilemem_command
    yes = subprocess.Popen(["yes", "# a comment"], stdout=subprocess.PIPE)
    try:
        r = subprocess.run(tilemem_command() + ["solve", "-"], stdin=yes.stdout, capture_output=True,
                           timeout=600)
    finally:
        yes.kill()
        yes.wait()
    assert r.returncode == 2
    assert b"input too large" in r.stderr


def test_answer_longer_than_the_line_cap_is_reread_uncapped():
    """Found by long run 9 (library-105100001-481): a DSL offsets list written over two
    lines, each under the line cap, is printed on one line longer than the cap; the
    harness re-read the answer with the caps of an input and called it a crash."""
    zeros = ", ".join(["0"] * 200)
    src = ("import pypto.language as pl\n\n@pl.program\nclass P:\n"
           "    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]])"
           " -> pl.Tensor[[16, 16], pl.FP32]:\n"
           "        t = pl.load(x, [0, 0], [16, 16])\n"
           f"        out = pl.store(t, [{zeros},\n            {zeros}], out)\n"
           "        return out\n")
    limits = Limits(max_line_length=1000)
    assert max(map(len, src.splitlines())) < 1000
    sol = tilemem.solve(src, path="k.py", limits=limits)
    assert max(map(len, sol.text.splitlines())) > 1000
    assert run_library(src.encode(), None, time_limit=60, limits=limits)[0] == "ok"


def test_escaped_line_break_in_a_string_is_printed_raw_as_pypto_does():
    """PyPTO's printer writes attrs strings with std::quoted, which escapes only backslash
    and quote: a "\\r" spelled in the DSL comes out as a raw carriage return (oracle at
    e2d0f78), so the answer cannot be read back -- by PyPTO either.  The fuzz harness
    accepts exactly that case (long run, seed 90500001)."""
    src = ("import pypto.language as pl\n\n@pl.program\nclass P:\n"
           "    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, out: pl.Out[pl.Tensor[[1], pl.FP32]]) -> pl.Tensor[[1], pl.FP32]:\n"
           "        i: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx(attrs={\"a\\ridge\": True})\n"
           "        return out\n")
    sol = tilemem.solve(src, path="k.py")
    assert 'attrs={"a\ridge": True}' in sol.text
    with pytest.raises(TilememError, match="unterminated string"):
        tilemem.parse(sol.text, "out.pto")
    assert run_library(src.encode(), None, time_limit=60)[0] == "ok"
