"""The library's answers and inputs: ``Solution.why`` / ``why_not`` give the answer of
``tilemem why`` (same paragraph, same JSON), every error is a ``TilememError``, and
``tilemem.solve`` reads text, a ``Path`` or an open file."""
import io
import json
import pathlib

import pytest

import tilemem
from tilemem.datalog import DatalogError, QueryError
from tilemem.errors import TilememError, UsageError
from tilemem.explain import Answer, ExplainError

from cli_helpers import run_in_process
from program_helpers import MATMUL_ADD, incore_program

# (a Mat matmul whose result is added, so the Acc result moves to Vec)
KERNEL = incore_program(MATMUL_ADD, "def k(x: pl.Tensor[[16, 128], pl.BF16], y: pl.Tensor[[128, 128], pl.BF16], "
                        "out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:")


@pytest.fixture(scope="module")
def kernel_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("api") / "k.pto"
    f.write_text(KERNEL)
    return f


def cli_json(capsys, *args):
    status, out, err = run_in_process(capsys, "why", *args, "--json")
    assert status == 0, err
    return json.loads(out)


def test_why_is_the_cli_answer(kernel_file, capsys):
    sol = tilemem.solve(kernel_file)
    ans = sol.why("c")
    assert isinstance(ans, Answer)
    assert ans.summary.startswith("`c` is in Acc because of line 10")
    data = cli_json(capsys, kernel_file, "c")
    assert data["answer"] == ans.summary
    assert {k: v for k, v in data.items() if k in ans.to_dict()} == json.loads(json.dumps(ans.to_dict()))
    _, out, _ = run_in_process(capsys, "why", kernel_file, "c")
    assert out.rstrip("\n") == str(ans)
    # "function:name", an inserted move, a pattern
    assert sol.why("k:c").summary == ans.summary
    move = sol.moves[0].name
    assert sol.why(move).data["move"]["producer"] in ("a", "b", "c")
    assert sol.why('move_at(P, "k:a", T)').summary.startswith("`move_at(")


def test_why_not_is_the_cli_answer(kernel_file, capsys):
    sol = tilemem.solve(kernel_file)
    ans = sol.why_not("c", "vec")                   # spaces in any case, or pl.Mem.Vec
    assert ans.summary.startswith("`c` is not in Vec")
    assert sol.why_not("c", "pl.Mem.Vec").summary == ans.summary
    data = cli_json(capsys, kernel_file, "c", "--not", "Vec")
    assert data["answer"] == ans.summary


def test_library_errors_are_tilemem_errors(kernel_file):
    assert issubclass(UsageError, TilememError)
    assert issubclass(ExplainError, TilememError)
    assert issubclass(QueryError, TilememError) and issubclass(DatalogError, TilememError)
    sol = tilemem.solve(kernel_file)
    with pytest.raises(TilememError, match="no var 'nope'"):
        sol.why("nope")
    with pytest.raises(TilememError, match="unknown memory space 'Nowhere'"):
        sol.why_not("c", "Nowhere")
    with pytest.raises(TilememError, match="syntax error"):
        sol.why("space(")
    with pytest.raises(TilememError):
        sol.query("nope(X)")
    with pytest.raises(TilememError):
        tilemem.solve(KERNEL, backend="nope")
    e = ExplainError("a question")
    assert str(e) == e.format() == e.format_first_line() == "a question"
    assert e.path is None and e.line is None


def test_solve_reads_text_a_path_or_an_open_file(kernel_file):
    want = tilemem.solve(KERNEL).text
    assert tilemem.solve(kernel_file).text == want
    assert tilemem.solve(kernel_file).path == str(kernel_file)
    with open(kernel_file) as fh:
        assert tilemem.solve(fh).text == want
    with open(kernel_file, "rb") as fh:
        sol = tilemem.solve(fh)
        assert sol.text == want and sol.path == str(kernel_file)
    assert tilemem.solve(io.StringIO(KERNEL)).text == want
    assert tilemem.solve(io.BytesIO(KERNEL.encode()), path="mem.pto").path == "mem.pto"


def test_a_str_is_text_and_a_missing_path_is_a_clear_error(kernel_file, tmp_path):
    with pytest.raises(TilememError, match=r"a str is program text.*pathlib\.Path"):
        tilemem.solve(str(kernel_file))
    with pytest.raises(TilememError, match="does not exist"):
        tilemem.solve("kernel.pto")
    with pytest.raises(TilememError, match="cannot read file: no such file") as e:
        tilemem.solve(pathlib.Path(tmp_path / "missing.pto"))
    assert e.value.path.endswith("missing.pto")
    with pytest.raises(TilememError, match="not int"):
        tilemem.solve(42)


# ------------------------------------------------------------------ by position


def test_why_a_line_answers_for_every_tile_decided_there(kernel_file, capsys):
    sol = tilemem.solve(kernel_file)
    ans = sol.why(10)                               # c = pl.tile.matmul(a, b): c, a_Left, b_Right
    assert [p.data["var"] for p in ans.parts] == ["k:c", "k:a_Left", "k:b_Right"]
    assert ans.summary.startswith("`c` is in Acc because of line 10")
    assert str(ans).count("\n\n") == 2                # one answer a tile
    assert [p.data["var"] for p in sol.why("10:9").parts] == ["k:c"]       # the column of `c`
    col_b = KERNEL.splitlines()[9].index("(a, b)") + 5
    assert [p.data["var"] for p in sol.why(f"10:{col_b}").parts] == ["k:b_Right"]
    assert "no tile" in sol.why(3).summary
    with pytest.raises(TilememError, match="line 99 is not in the input"):
        sol.why(99)
    # the CLI: FILE LINE, FILE:LINE and FILE:LINE:COL say the same
    by_arg = cli_json(capsys, kernel_file, "10")
    assert by_arg["answer"] == ans.summary and len(by_arg["answers"]) == 3
    status, out, _ = run_in_process(capsys, "why", f"{kernel_file}:10")
    assert status == 0 and out.rstrip("\n") == str(ans)
    status, out, _ = run_in_process(capsys, "why", f"{kernel_file}:10:{col_b}")
    assert status == 0 and out.startswith("`b_Right` is a tile.move of `b` to Right")
    status, _, err = run_in_process(capsys, "why", kernel_file)
    assert status == 2 and "FILE:LINE" in err


def test_console_why_takes_a_line(kernel_file):
    import io
    from tilemem.tools.console import Console
    out = io.StringIO()
    c = Console(tilemem.solve(kernel_file).session(), out=out)
    c.run_line(":why 10")
    assert out.getvalue().startswith("`c` is in Acc because of line 10")
    assert "`a_Left` is a tile.move" in out.getvalue()
