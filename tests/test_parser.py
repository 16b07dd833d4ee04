"""Grammar and printer unit tests: precedence, literals, tuples, yields, decorators,
types, comments, statements and the printing helpers."""
from __future__ import annotations

import pytest

from tilemem import ir
from tilemem.errors import TilememError
from tilemem.frontend.ir_builder import to_type
from tilemem.frontend.parser import parse
from tilemem.ir.printer import (print_expr, print_function, print_program, print_stmt, print_stmts,
                             print_tileview, print_type)

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n"


def program(body: str, decorator: str = "@pl.function", sig: str = "def f(self, x: pl.Scalar[pl.INT32]):") -> str:
    lines = "".join("        " + ln + "\n" for ln in body.split("\n"))
    return f"{HEAD}    {decorator}\n    {sig}\n{lines}"


def body_of(text: str) -> list:
    return parse(text).functions[0].body


def expr_of(src: str) -> ir.Expr:
    stmt = body_of(program(f"y = {src}"))[0]
    assert isinstance(stmt, ir.Assign)
    return stmt.value


def roundtrip(text: str) -> str:
    return print_program(parse(text))


def canonical(src: str) -> str:
    return print_expr(expr_of(src))


X, Y, Z, W = (ir.Name(n) for n in "xyzw")


# ----------------------------------------------------------------------------- precedence

@pytest.mark.parametrize("src, tree", [
    ("x + y * z", ir.BinOp("+", X, ir.BinOp("*", Y, Z))),
    ("(x + y) * z", ir.BinOp("*", ir.BinOp("+", X, Y), Z)),
    ("x - y - z", ir.BinOp("-", ir.BinOp("-", X, Y), Z)),
    ("x - (y - z)", ir.BinOp("-", X, ir.BinOp("-", Y, Z))),
    ("x ** y ** z", ir.BinOp("**", X, ir.BinOp("**", Y, Z))),
    ("(x ** y) ** z", ir.BinOp("**", ir.BinOp("**", X, Y), Z)),
    ("-x ** y", ir.UnaryOp("-", ir.BinOp("**", X, Y))),
    ("(-x) ** y", ir.BinOp("**", ir.UnaryOp("-", X), Y)),
    ("x ** -y", ir.BinOp("**", X, ir.UnaryOp("-", Y))),
    ("-x * y", ir.BinOp("*", ir.UnaryOp("-", X), Y)),
    ("not x == y", ir.UnaryOp("not", ir.BinOp("==", X, Y))),
    ("not x and y", ir.BinOp("and", ir.UnaryOp("not", X), Y)),
    ("x < y < z", ir.BinOp("<", ir.BinOp("<", X, Y), Z)),          # no Python chaining
    ("x < (y < z)", ir.BinOp("<", X, ir.BinOp("<", Y, Z))),
    ("x or y xor z", ir.BinOp("or", X, ir.BinOp("xor", Y, Z))),
    ("x xor y and z", ir.BinOp("xor", X, ir.BinOp("and", Y, Z))),
    ("x and y or z", ir.BinOp("or", ir.BinOp("and", X, Y), Z)),
    ("x | y ^ z & w", ir.BinOp("|", X, ir.BinOp("^", Y, ir.BinOp("&", Z, W)))),
    ("x << y + z", ir.BinOp("<<", X, ir.BinOp("+", Y, Z))),
    ("x == y | z", ir.BinOp("==", X, ir.BinOp("|", Y, Z))),
    ("x // y % z", ir.BinOp("%", ir.BinOp("//", X, Y), Z)),
    ("~x + y", ir.BinOp("+", ir.UnaryOp("~", X), Y)),
    ("x - -y", ir.BinOp("-", X, ir.UnaryOp("-", Y))),
    ("x + -3", ir.BinOp("+", X, ir.IntConst(-3))),
])
def test_precedence_tree(src, tree):
    assert expr_of(src) == tree


@pytest.mark.parametrize("src, printed", [
    ("x + y * z", "x + y * z"),
    ("(x + y) * z", "(x + y) * z"),
    ("((x))", "x"),
    ("(x * y) + z", "x * y + z"),
    ("x - (y - z)", "x - (y - z)"),
    ("x - (y + z)", "x - (y + z)"),
    ("(x - y) - z", "x - y - z"),
    ("x ** (y ** z)", "x ** y ** z"),
    ("(x ** y) ** z", "(x ** y) ** z"),
    ("-(x + y)", "-(x + y)"),
    ("- x", "-x"),
    ("-(-x)", "--x"),
    ("not (x and y)", "not (x and y)"),
    ("(not x) == y", "(not x) == y"),
    ("x < (y < z)", "x < (y < z)"),
    ("(x or y) and z", "(x or y) and z"),
    ("x[0]", "x[0]"),
    ("(x + y)[0]", "(x + y)[0]"),
    ("x[i, j]", "x[i, j]"),
    ("pl.min(x, y) * 2", "pl.min(x, y) * 2"),
    ("abs(x - y)", "abs(x - y)"),
    ("pl.cast(pl.cast(x, pl.INDEX) + -127, pl.INDEX)", "pl.cast(pl.cast(x, pl.INDEX) + -127, pl.INDEX)"),
    ("pl.const(1, pl.INT16)", "pl.const(1, pl.INT16)"),
    ("+x", "x"),
])
def test_parenthesisation(src, printed):
    assert canonical(src) == printed


def test_printer_parenthesises_built_trees():
    e = ir.BinOp("*", ir.BinOp("+", X, Y), ir.BinOp("-", Z, W))
    assert print_expr(e) == "(x + y) * (z - w)"
    assert print_expr(ir.UnaryOp("-", ir.BinOp("**", X, Y))) == "-x ** y"
    assert print_expr(ir.BinOp("**", ir.UnaryOp("-", X), Y)) == "(-x) ** y"
    assert print_expr(ir.UnaryOp("not", ir.BinOp("or", X, Y))) == "not (x or y)"
    assert print_expr(ir.BinOp("==", X, ir.BinOp("==", Y, Z))) == "x == (y == z)"


# ----------------------------------------------------------------------------- literals

@pytest.mark.parametrize("src, node", [
    ("0.10000000000000001", ir.FloatConst("0.10000000000000001")),
    ("9.9999999999999995e-08", ir.FloatConst("9.9999999999999995e-08")),
    ("1e+20", ir.FloatConst("1e+20")),
    ("1.0", ir.FloatConst("1.0")),
    ("-10.0", ir.FloatConst("-10.0")),
    ("nan", ir.FloatConst("nan")),
    ("inf", ir.FloatConst("inf")),
    ("-inf", ir.FloatConst("-inf")),
    ("42", ir.IntConst(42)),
    ("-1", ir.IntConst(-1)),
    ("True", ir.BoolConst(True)),
    ("False", ir.BoolConst(False)),
    ("None", ir.NoneConst()),
    ("'round'", ir.StrConst("round", "'")),
    ('"B_DYN"', ir.StrConst("B_DYN", '"')),
])
def test_literals(src, node):
    e = expr_of(src)
    assert e == node
    assert print_expr(e) == src


def test_literals_keep_their_spelling():
    for src in ("pl.tile.muls(t, 1e+20)", "pl.tile.adds(t, 0.10000000000000001)", 'f(a, "x", \'y\')'):
        assert canonical(src) == src


# ----------------------------------------------------------------------------- tuples, lists, dicts

@pytest.mark.parametrize("src, node, printed", [
    ("(x,)", ir.TupleExpr((X,)), "(x,)"),
    ("()", ir.TupleExpr(()), "()"),
    ("(x, y)", ir.TupleExpr((X, Y)), "(x, y)"),
    ("(x, y,)", ir.TupleExpr((X, Y)), "(x, y)"),
    ("[x, y]", ir.ListExpr((X, Y)), "[x, y]"),
    ("[]", ir.ListExpr(()), "[]"),
    ('{"a": 1, "b": True}', ir.DictExpr(((ir.StrConst("a", '"'), ir.IntConst(1)),
                                         (ir.StrConst("b", '"'), ir.BoolConst(True)))), '{"a": 1, "b": True}'),
    ("{}", ir.DictExpr(()), "{}"),
])
def test_collections(src, node, printed):
    e = expr_of(src)
    assert e == node
    assert print_expr(e) == printed


def test_call_kwargs_and_attrs_keep_order():
    src = ('pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, '
           'attrs={"__compiler_tensor_to_tile_mat_bridge": True})')
    e = expr_of(src)
    assert isinstance(e, ir.Call)
    assert e.func == "pl.tile.load" and e.op == "tile.load"
    assert [k for k, _ in e.kwargs] == ["target_memory", "attrs"]
    assert e.kwarg("target_memory") == ir.Dotted(("pl", "Mem", "Mat"))
    assert print_expr(e) == src


def test_memory_space_spelling_is_normalised():
    e = expr_of("pl.tile.load(a, target_memory=pl.MemorySpace.Left)")
    assert e.kwarg("target_memory") == ir.Dotted(("pl", "Mem", "Left"))
    assert print_expr(e) == "pl.tile.load(a, target_memory=pl.Mem.Left)"


def test_self_calls_and_submit():
    for src in ("self.k(a, b)", "pl.submit(self.k, a, deps=[t0, t1], allow_early_resolve=True)",
                "pld.tile.remote_load(x, 0)", "pl.MemRef(\"base\", 0, 64, slots=2)[idx]",
                "pl.tile.and_(a, b)", "t[0]"):
        assert canonical(src) == src


# ----------------------------------------------------------------------------- statements

def test_yield_forms():
    text = program(
        "for i, (a, b) in pl.range(4, init_values=(x, x)):\n"
        "    if i < 2:\n"
        "        r: pl.Scalar[pl.INT32] = pl.yield_(a)\n"
        "    else:\n"
        "        r: pl.Scalar[pl.INT32] = pl.yield_(b)\n"
        "    a2, b2 = pl.yield_(a, r)\n"
        "pl.yield_(a2)")
    body = body_of(text)
    loop = body[0]
    assert isinstance(loop, ir.For)
    assert loop.loop_var == "i" and loop.iter_args == ["a", "b"] and loop.kind == "range"
    assert loop.init_values == [X, X]
    branch = loop.body[0]
    assert isinstance(branch, ir.If)
    y1 = branch.then_body[0]
    assert isinstance(y1, ir.Yield) and y1.targets == ["r"] and y1.values == [ir.Name("a")]
    assert y1.target_types == [ir.ScalarType("INT32")]
    y2 = loop.body[1]
    assert isinstance(y2, ir.Yield) and y2.targets == ["a2", "b2"] and y2.target_types == [None, None]
    y3 = body[1]
    assert isinstance(y3, ir.Yield) and y3.targets == [] and y3.values == [ir.Name("a2")]
    assert roundtrip(text).endswith(text.rstrip("\n").split("\n", 5)[5])


def test_for_headers():
    text = program(
        "for i in pl.range(4):\n    pass\n"
        "for i in pl.parallel(0, n, 2, attrs={\"k\": 1}):\n    continue\n"
        "for i in pl.pipeline(8, stage=2):\n    break\n"
        "for (a,) in pl.while_(init_values=(x,)):\n    pl.cond(a < 3)\n    a2: pl.Scalar[pl.INT32] = pl.yield_(a + 1)\n"
        "for b in pl.spmd(4, sync_start=True):\n    pass\n"
        "for v in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    pass\n"
        "while x < 3:\n    pass")
    body = body_of(text)
    assert [s.kind for s in body[:-1]] == ["range", "parallel", "pipeline", "while_", "spmd", "split_aiv"]
    w = body[3]
    assert w.loop_var is None and w.iter_args == ["a"]
    assert isinstance(w.body[0], ir.EvalStmt) and w.body[0].expr.func == "pl.cond"
    assert isinstance(body[-1], ir.While)
    assert roundtrip(text) == "# pypto.program: P\n" + text.rstrip("\n")


def test_with_scopes():
    text = program(
        "with pl.scope():\n    pass\n"
        "with pl.scope(mode=pl.ScopeMode.MANUAL):\n    pass\n"
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]) as tid:\n    pass\n"
        "with pl.cluster(name_hint=\"c\"):\n    pass\n"
        "with pl.spmd(8) as t:\n    pass")
    body = body_of(text)
    assert all(isinstance(s, ir.With) for s in body)
    assert [s.as_name for s in body] == [None, None, "tid", None, "t"]
    assert roundtrip(text) == "# pypto.program: P\n" + text.rstrip("\n")


def test_elif_becomes_nested_if():
    text = program("if x == 1:\n    pass\nelif x == 2:\n    return 2\nelse:\n    return 3")
    s = body_of(text)[0]
    assert isinstance(s, ir.If)
    inner = s.else_body[0]
    assert isinstance(inner, ir.If) and inner.else_body[0] == ir.Return([ir.IntConst(3)])
    out = roundtrip(text)
    assert "        else:\n            if x == 2:\n                return 2\n            else:\n                return 3" in out


def test_returns_and_simple_statements():
    text = program("a, b = self.g(x)\nz = x\n...\nreturn a, b")
    body = body_of(text)
    assert body[0] == ir.Assign(["a", "b"], None, ir.Call("self.g", (X,)))
    assert body[1] == ir.Assign(["z"], None, X)
    assert isinstance(body[2], ir.EvalStmt)
    assert body[3] == ir.Return([ir.Name("a"), ir.Name("b")])
    assert roundtrip(text) == "# pypto.program: P\n" + text.rstrip("\n")


def test_inline_suite():
    text = program("if x: return x\nreturn 0")
    s = body_of(text)[0]
    assert isinstance(s, ir.If) and s.then_body == [ir.Return([X])]
    assert "        if x:\n            return x\n        return 0" in roundtrip(text)


def test_unmodelled_python_statements_are_kept_verbatim():
    text = program("x += 1\ny = a[1:2]\nz = a if b else c\nassert x, 'msg'\nw = 1")
    body = body_of(text)
    assert [type(s) for s in body] == [ir.OpaqueStmt] * 4 + [ir.Assign]
    assert body[0].text == "x += 1"
    assert roundtrip(text) == "# pypto.program: P\n" + text.rstrip("\n")


def test_statement_starting_with_a_keyword_the_grammar_lacks_is_kept_verbatim():
    # PyPTO prints a HOST SubWorker's body as Python text, imports included: a line whose very
    # first token is already unexpected (`import`, `from`) is an unmodelled statement too
    text = program("import torch\nfrom a import b as c\nw = 1")
    body = body_of(text)
    assert [type(s) for s in body] == [ir.OpaqueStmt] * 2 + [ir.Assign]
    assert body[0].text == "import torch"
    assert roundtrip(text) == "# pypto.program: P\n" + text.rstrip("\n")
    with pytest.raises(TilememError, match="unexpected 'import'"):
        body_of(program("import\nw = 1"))     # not Python: still a syntax error


def test_semicolons_separate_simple_statements():
    # as Python reads them: each its own statement at its own position, a trailing `;` too
    text = program("a = x; b = a  ;c = b;\nif x: d = c; return d\nelse: return c;")
    body = body_of(text)
    assert body[:3] == [ir.Assign(["a"], None, X), ir.Assign(["b"], None, ir.Name("a")),
                        ir.Assign(["c"], None, ir.Name("b"))]
    assert [(s.line, s.col) for s in body] == [(7, 9), (7, 16), (7, 24), (8, 9)]
    s = body[3]
    assert s.then_body == [ir.Assign(["d"], None, ir.Name("c")), ir.Return([ir.Name("d")])]
    assert [(t.line, t.col) for t in s.then_body] == [(8, 15), (8, 22)]
    assert s.else_body == [ir.Return([ir.Name("c")])]
    assert roundtrip(text).endswith("        a = x\n        b = a\n        c = b\n        if x:\n            d = c\n"
                                    "            return d\n        else:\n            return c")


def test_semicolon_lines_at_module_level_of_printed_ir():
    text = ("# pypto.program: P\nimport pypto.language as pl; N = pl.dynamic(\"N\");\n\n@pl.program\nclass P:\n"
            "    @pl.function\n    def f(self, x: pl.Scalar[pl.INT32]):\n        y = x; return y\n")
    prog = parse(text)
    assert [n for n, _ in prog.dynamic] == ["N"]
    assert [type(s) for s in prog.functions[0].body] == [ir.Assign, ir.Return]


def test_semicolon_is_no_separator_inside_strings_or_brackets_and_not_twice():
    body = body_of(program("s = 'a;b'; t = \"c;\"  # d; e"))
    assert [(s.targets, s.value.value) for s in body] == [(["s"], "a;b"), (["t"], "c;")]
    with pytest.raises(TilememError, match="unexpected ';'") as e:
        body_of(program("y = f(x; x)"))
    assert (e.value.line, e.value.col) == (7, 16)
    with pytest.raises(TilememError, match="unexpected ';'") as e:
        body_of(program("y = x;; z = x"))
    assert (e.value.line, e.value.col) == (7, 15)
    with pytest.raises(TilememError, match="unexpected ';'"):
        body_of(program("; y = x"))


def test_unmodelled_statements_between_semicolons():
    # the one statement up to its `;` is kept verbatim, the others are read; an inline body's
    # first statement starts after its header's `:`
    body = body_of(program("x += 1; y = a[1:2]; w = 1\nif x: z = a[1:2]; v = 2"))
    assert [type(s) for s in body] == [ir.OpaqueStmt, ir.OpaqueStmt, ir.Assign, ir.If]
    assert [s.text for s in body[:2]] == ["x += 1", "y = a[1:2]"]
    assert [(s.line, s.col) for s in body[:3]] == [(7, 9), (7, 17), (7, 29)]
    then = body[3].then_body
    assert [type(s) for s in then] == [ir.OpaqueStmt, ir.Assign] and then[0].text == "z = a[1:2]"
    assert (then[0].line, then[0].col) == (8, 15)
    # a one-line compound statement the grammar does not read keeps its whole line, `;`s included
    body = body_of(program("while x: x += 1; y = 2\nw = 1"))
    assert body[0] == ir.While(X, [ir.OpaqueStmt("x += 1"), ir.Assign(["y"], None, ir.IntConst(2))])
    # one the grammar stops reading at its `;`
    body = body_of(program("x: int; w = 1"))
    assert [type(s) for s in body] == [ir.OpaqueStmt, ir.Assign] and body[0].text == "x: int"


def test_semicolon_statements_record_their_own_last_lines():
    from tilemem.frontend.parser import parse_syntax
    text = program("a = x; b = f(  # c\n    x)  # d\ne = f(\n    x); g = 1;")
    _, layout = parse_syntax(text)
    assert layout.stmt_ends == {7: [(9, 7), (16, 8)], 9: [(9, 10)], 10: [(17, 10)]}
    assert layout.line_ends[7] == 8 and layout.line_ends[9] == 10


def test_unknown_expression_shapes_become_opaque():
    e = expr_of("f(x).shape")
    assert isinstance(e, ir.Opaque) and print_expr(e) == "f(x).shape"


# ----------------------------------------------------------------------------- comments

def test_comments_are_kept_exactly():
    text = (HEAD + "    @pl.function\n    def f(self):\n"
            "        # \n"
            "        #         tuned syncall version (D_CHUNK / D_SPMD)\n"
            "\n"
            "        #    indented  \n"
            "        x = 1  # a trailing comment: printed above x (as PyPTO's front end does)\n"
            "        if x:\n"
            "            # above a pass: dropped (pass builds nothing)\n"
            "            pass\n"
            "        # left of the then body: the first else statement takes it\n"
            "        else:\n"
            "            y = 2\n")
    body = body_of(text)
    assert body[0].comments == ["# ", "#         tuned syncall version (D_CHUNK / D_SPMD)", "#    indented  ",
                                "# a trailing comment: printed above x (as PyPTO's front end does)"]
    assert body[1].then_body[0].comments == []
    assert body[1].else_body[0].comments == ["# left of the then body: the first else statement takes it"]
    out = roundtrip(text)
    assert ("        # \n        #         tuned syncall version (D_CHUNK / D_SPMD)\n        #    indented  \n"
            "        # a trailing comment: printed above x (as PyPTO's front end does)\n"
            "        x = 1\n") in out
    assert "dropped" not in out             # as PyPTO's front end (oracle e2d0f78) does


def test_comment_at_lower_indent_does_not_dedent():
    text = (HEAD + "    @pl.function\n    def f(self):\n        x = 1\n# column zero\n        y = 2\n")
    body = body_of(text)
    assert len(body) == 2 and body[1].comments == ["# column zero"]


def test_header_and_dynamic_dims():
    text = ('# pypto.program: Named\nimport pypto.language as pl\n\nB = pl.dynamic("B")\nT = pl.dynamic("T")\n\n'
            "@pl.program\nclass Named:\n    @pl.function\n    def f(self, x: pl.Tensor[[B, T], pl.FP32]):\n        pass")
    prog = parse(text)
    assert prog.header == "# pypto.program: Named"
    assert [n for n, _ in prog.dynamic] == ["B", "T"]
    assert prog.name == "Named" and prog.prefix == "pl"
    assert print_program(prog) == text


def test_other_prefix():
    text = ("# pypto.program: P\nfrom pypto import language as pt\n\n@pt.program\nclass P:\n"
            "    @pt.function\n    def f(self, x: pt.Scalar[pt.INT32]):\n        pass")
    prog = parse(text)
    assert prog.prefix == "pt"
    assert print_program(prog) == text


def test_crlf_and_tabs():
    text = program("if x:\n    y = 1\nreturn x").replace("\n", "\r\n")
    assert len(body_of(text)) == 2
    tabbed = HEAD + "\t@pl.function\n\tdef f(self):\n\t\tx = 1\n"
    assert isinstance(body_of(tabbed)[0], ir.Assign)


def test_wrapped_lines_and_backslash():
    text = program("y = pl.tile.add(\n    a,\n\n    b,   # comment in brackets\n)\nz = a + \\\n    b")
    body = body_of(text)
    assert body[0].value == ir.Call("pl.tile.add", (ir.Name("a"), ir.Name("b")))
    assert body[1].value == ir.BinOp("+", ir.Name("a"), ir.Name("b"))


def test_positions():
    text = program("y = pl.tile.add(x, x)")
    s = body_of(text)[0]
    assert (s.line, s.col) == (7, 9)
    assert (s.value.line, s.value.col) == (7, 13)


# ----------------------------------------------------------------------------- decorators and signatures

@pytest.mark.parametrize("ftype, level, role, has_self", [
    ("InCore", "CHIP_DIE", "SubWorker", False),
    ("AIC", "AIC", "SubWorker", False),
    ("AIV", "AIV", "SubWorker", False),
    ("Group", "CORE_GROUP", "SubWorker", False),
    ("Orchestration", "CHIP", "Orchestrator", True),
    ("Graph", "CHIP", "Orchestrator", True),
    ("Spmd", None, None, True),
    ("Inline", None, None, True),
])
def test_decorator_level_role_derivation(ftype, level, role, has_self):
    text = program("pass", decorator=f"@pl.function(type=pl.FunctionType.{ftype})")
    fn = parse(text).functions[0]
    assert (fn.func_type, fn.level, fn.role) == (ftype, level, role)
    out = roundtrip(text)
    deco = f"type=pl.FunctionType.{ftype}"
    if level:
        deco += f", level=pl.Level.{level}, role=pl.Role.{role}"
    assert f"    @pl.function({deco})\n" in out
    assert ("def f(self, x: " in out) == has_self


def test_decorator_explicit_and_extra_kwargs():
    deco = ('@pl.function(type=pl.FunctionType.InCore, level=pl.Level.AIV, role=pl.Role.SubWorker, '
            'auto_scope=False, external_source="k.cpp")')
    text = program("pass", decorator=deco, sig="def f(x: pl.Scalar[pl.INT32]):")
    fn = parse(text).functions[0]
    assert (fn.level, fn.role) == ("AIV", "SubWorker")
    assert fn.extra == [("auto_scope", ir.BoolConst(False)), ("external_source", ir.StrConst("k.cpp", '"'))]
    assert roundtrip(text) == "# pypto.program: P\n" + text.rstrip("\n")


def test_plain_decorator_is_opaque_function():
    fn = parse(program("pass")).functions[0]
    assert (fn.func_type, fn.level, fn.role, fn.decorator) == ("Opaque", None, None, "pl.function")
    assert fn.body == [ir.Pass()]


def test_params_directions_and_returns():
    sig = ("def f(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.FP32]], "
           "c: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> tuple[pl.Tensor[[4], pl.FP32], pl.Scalar[pl.INDEX]]:")
    fn = parse(program("return b, 0", sig=sig)).functions[0]
    assert [(p.name, p.direction) for p in fn.params] == [("a", "In"), ("b", "Out"), ("c", "InOut")]
    assert fn.returns_tuple and len(fn.return_types) == 2
    assert print_function(fn).split("\n")[1] == "    " + sig
    single = parse(program("return b", sig="def f(self) -> tuple[pl.Scalar[pl.INDEX]]:")).functions[0]
    assert single.returns_tuple and print_function(single).split("\n")[1].endswith("-> tuple[pl.Scalar[pl.INDEX]]:")


def test_docstring_is_dropped():
    fn = parse(program('"""Docs."""\nreturn x')).functions[0]
    assert fn.body == [ir.Return([X])]


# ----------------------------------------------------------------------------- types

def type_of(src: str) -> ir.Type:
    stmt = body_of(program(f"y: {src} = x"))[0]
    return stmt.type


def test_tile_type_fields():
    t = type_of("pl.Tile[[16, n], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[16, m], stride=[64, 1], "
                "start_offset=k, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box, fractal=512, "
                "pad=pl.PadValue.zero, compact=pl.CompactMode.normal)]")
    assert isinstance(t, ir.TileType)
    assert t.shape == (ir.IntConst(16), ir.Name("n")) and t.dtype == "BF16" and t.space == "Vec"
    v = t.view
    assert v.valid_shape == (ir.IntConst(16), ir.Name("m")) and v.stride == (ir.IntConst(64), ir.IntConst(1))
    assert v.start_offset == ir.Name("k")
    assert (v.blayout, v.slayout, v.fractal, v.pad, v.compact) == ("row_major", "none_box", 512, "zero", "normal")


def test_tile_view_canonical_order_and_empty_view():
    t = type_of("pl.Tile[[64, 1], pl.FP32, pl.TileView(pad=pl.PadValue.max, blayout=pl.TileLayout.row_major), "
                "pl.MemorySpace.Vec]")
    assert print_type(t) == ("pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec, "
                             "pl.TileView(blayout=pl.TileLayout.row_major, pad=pl.PadValue.max)]")
    assert print_tileview(ir.TileView()) == "pl.TileView()"
    assert print_type(type_of("pl.Tile[[8], pl.FP32, pl.Mem.Acc, pl.TileView()]")) == \
        "pl.Tile[[8], pl.FP32, pl.Mem.Acc, pl.TileView()]"


def test_tile_memref():
    src = 'pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_vec_0", 0, 512)[0], pl.Mem.Vec]'
    t = type_of(src)
    assert isinstance(t, ir.TileType) and isinstance(t.memref, ir.Subscript) and t.space == "Vec"
    assert print_type(t) == src


def test_tensor_types():
    t = type_of("pl.Tensor[[128, 64], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)]")
    assert isinstance(t, ir.TensorType) and t.kind == "pl.Tensor" and isinstance(t.view, ir.Call)
    assert print_type(t) == "pl.Tensor[[128, 64], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)]"
    d = type_of("pld.DistributedTensor[[768, 4096], pl.BF16]")
    assert isinstance(d, ir.TensorType) and d.kind == "pld.DistributedTensor"
    assert print_type(d) == "pld.DistributedTensor[[768, 4096], pl.BF16]"


@pytest.mark.parametrize("src, cls", [
    ("pl.Scalar[pl.INDEX]", ir.ScalarType),
    ("pl.Tuple[pl.Scalar[pl.TASK_ID], pl.Tensor[[4], pl.FP32]]", ir.TupleType),
    ("pl.Tuple[()]", ir.TupleType),
    ("pl.Array[32, pl.TASK_ID]", ir.OpaqueType),
    ("pl.Ptr", ir.OpaqueType),
    ("pl.UnknownType", ir.OpaqueType),
    ("pld.CommCtxType", ir.OpaqueType),
    ("pl.Tile[16, pl.FP32]", ir.OpaqueType),          # not a shape list: kept as written
    ("pl.Tile[[16], pl.FP32, pl.Weird]", ir.OpaqueType),
])
def test_other_types(src, cls):
    t = type_of(src)
    assert isinstance(t, cls)
    assert print_type(t) == src


def test_to_type_on_built_expressions():
    e = ir.Subscript(ir.Dotted(("pl", "Scalar")), (ir.Dotted(("pl", "FP16")),))
    assert to_type(e) == ir.ScalarType("FP16")


# ----------------------------------------------------------------------------- printing helpers

def test_print_stmt_helpers():
    t = ir.TileType((ir.IntConst(16), ir.IntConst(128)), "FP32", space="Vec")
    call = ir.Call("pl.tile.move", (ir.Name("m"),), (("target_memory", ir.Dotted(("pl", "Mem", "Vec"))),))
    s = ir.Assign(["m_Vec"], t, call, comments=["# moved"])
    assert print_stmt(s) == ("# moved\nm_Vec: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = "
                             "pl.tile.move(m, target_memory=pl.Mem.Vec)")
    assert print_stmt(s, indent=2).split("\n")[1].startswith("        m_Vec:")
    loop = ir.For("i", ["a"], ir.Call("pl.range", (ir.IntConst(4),), (("init_values", ir.TupleExpr((X,))),)),
                  [ir.Yield([ir.Name("a")], ["r"], [None])])
    assert print_stmt(loop) == "for i, (a,) in pl.range(4, init_values=(x,)):\n    r = pl.yield_(a)"
    assert print_stmts([]) == "pass"
    w = ir.If(X, [], [])
    assert print_stmt(w) == "if x:\n    pass\nelse:\n    pass"


def test_print_program_from_scratch():
    fn = ir.Function("k", "InCore", "CHIP_DIE", "SubWorker",
                     [ir.Param("a", ir.TensorType((ir.IntConst(4),), "FP32"), "Out")],
                     [ir.TensorType((ir.IntConst(4),), "FP32")], [ir.Return([ir.Name("a")])])
    prog = ir.Program("Q", [fn])
    assert print_program(prog) == (
        "# pypto.program: Q\nimport pypto.language as pl\n\n@pl.program\nclass Q:\n"
        "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n"
        "    def k(a: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        return a")


def test_return_none_annotation_means_no_return():
    fn = parse(program("pass", sig="def f(self) -> None:")).functions[0]
    assert fn.return_types == [] and not fn.returns_tuple


def _friendly_texts():
    from pathlib import Path
    files = sorted((Path(__file__).resolve().parent / "data" / "friendly").glob("*.pto"))
    assert files
    return [p.read_text(encoding="utf-8") for p in files]


def test_table_driver_shapes_trees_as_lark_does():
    """The reader's own LALR driver, over the tables lark computed, gives every rule the
    children lark's own parser gives it (tokens filtered out, `_rules` inlined, `[x]` as
    None, `?rule` passed through): both build plain trees of the same files."""
    import lark

    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    from tilemem.frontend.tables import load_tables
    from tilemem.resources import resource_dir

    grammar = (resource_dir("grammar") / "pto.lark").read_text(encoding="utf-8")

    class Postlexer(P.PtoIndenter):
        """The reader's postlexer over lark's tokens (the reader's tokens are tuples)."""
        def process(self, stream):
            tuples = ((t.type, t.value, t.start_pos, t.line, t.column) for t in stream)
            return (lark.Token(*t) for t in super().process(tuples))

    indenter = Postlexer()
    ours = lalr.Driver(load_tables(grammar, indenter.always_accept), object())   # no methods: trees
    theirs = lark.Lark(grammar, parser="lalr", lexer="basic", postlex=indenter, maybe_placeholders=True)

    def same(a, b):
        if isinstance(b, lark.Tree):
            return (type(a) is pto_tokens.Tree and a.data == b.data and len(a.children) == len(b.children)
                    and all(same(x, y) for x, y in zip(a.children, b.children)))
        if b is None:
            return a is None
        return (a[0], a[1], a[3], a[4]) == (b.type, str(b), b.line, b.column)

    def lark_parse(text):
        # a compound token (DOTTED, INTLIST) where the grammar takes none (or a DOTTED with
        # a keyword among its parts) is read as its parts, as the reader does
        ip = theirs.parse_interactive()
        for tok in theirs.lex(text):
            if tok.type in lalr.COMPOUND and (ours._as_parts(tok.type, tok.value) or tok.type not in ip.accepts()):
                for part in ours.parts(tok.type, tok.value, tok.start_pos, tok.line, tok.column):
                    ip.feed_token(lark.Token(*part))
            else:
                ip.feed_token(tok)
        return ip.feed_eof()

    for text in _friendly_texts():
        assert same(ours.parse(text, P.PtoIndenter()), lark_parse(text))


_COMPOUND_LINES = ["y = pl.tile.add(x, x)", "y = a[0].b.c", "y = f(x).shape.n", "y = True.x", "y = inf.x",
                  "y = nan.real", "y = a.xor", "y = pl.tile.xor(a, b)", "y = pl.MemorySpace.Vec",
                  "y = pl.MemorySpace", "y = a.MemorySpace.b", "y = a . b.c", "y = a.if", "y = a.b c.d",
                  "a.b = 1", "a.b, c = 1", "y = a.b.", "y = -a.b ** c.d - e.f", "y = x.shape[0] - 1",
                  "import a.b", "pl.tile.store(a.b, [0], c.d)", "y: pl.Tile[[1], pl.FP32] = a.b(k=c.d)",
                  "y = a.b(c.d=1)", "for a.b in pl.range(3):\n            pass", "with a.b as c.d:\n            pass",
                  "if a.b:\n            pass\n        elif c.d.e:\n            pass", "y = {a.b: c.d}",
                  "y = (a.b, c.d)", "y = a.None", "y = not a.b", "y = a.b\\\n.c", "return a.b",
                  # INTLIST
                  "y = [1, 2]", "y = x[0]", "y = x[0, 1]", "y = [1, 2][0]", "y = -[1, 2]", "y = [1, 2] + [3]",
                  "y = [1,2]", "y = [1, 2,]", "y = [007, 1]", "y = [1, 2] [3]", "y = x [0]", "y = [1, 2](3)",
                  "y = [99999999999999999999, 1]", "y = [999999999999999999, 1]", "[1, 2]", "return [1]",
                  "y = pl.tile.load(x, [0, 0], [16, 128])", "y = [" + ", ".join(map(str, range(40))) + "]",
                  "y = [" + ", ".join(map(str, range(33))) + "]", "y = [[0, 1], [2]]", "y = x[[0, 1]]",
                  "y = {[1]: [2]}", "for i in [1, 2]:\n            pass", "y = [1, 2] if", "y = [1, 2]]",
                  "y = [1, 2)", "y: pl.Tile[[16, 128], pl.FP32] = a", "y = " + "[" * 999 + "1" + "]" * 999,
                  "y = " + "[" * 1000 + "1" + "]" * 1000, "y = " + "[" * 1001 + "1" + "]" * 1001,
                  "y = " + "[" * 1002 + "1" + "]" * 1002]


def _compound_program(line: str) -> str:
    return ("# pypto.program: p\nimport pypto.language as pl\n\n@pl.program\nclass p:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def f(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:\n"
            f"        {line}\n        return x\n")


def _with_positions(x):
    """A value with every field of every node, positions included (nodes compare without)."""
    if isinstance(x, (list, tuple)) or type(x) in ir.HELD_ITEMS:
        return [_with_positions(y) for y in x]
    if isinstance(x, dict):
        return {k: _with_positions(v) for k, v in x.items()}
    fields = getattr(type(x), "_fields", None) or getattr(type(x), "__slots__", None)
    if fields is None:
        return x
    return (type(x).__name__, *(_with_positions(getattr(x, f, None)) for f in fields))


def test_compound_tokens_read_as_their_parts(monkeypatch):
    """`a.b.c` written without blanks is one DOTTED token, `[8, 128]` one INTLIST; the
    reader builds from them what it builds from their parts (NAME, DOT, NAME ...; `[`, INT,
    `,` ... `]`: the only way they were read before), and where the grammar takes no
    compound token it reads the parts instead: the same IR, positions, comments and
    errors, both readings."""
    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    from tilemem.recursion import deep_recursion
    texts = [_compound_program(line) for line in _COMPOUND_LINES] + _friendly_texts()
    # a compound read as its parts inside brackets opened on an earlier line (which
    # brackets are open decides the message)
    texts += [_compound_program("pass").replace("(self, x:", f"(self,\n        {p} x:")
              for p in ("x[0, 1]", "x[0, 1]x", "x.y", "x.y[0]", "[0]", "x[0] [1]")]

    def outcome(text, reader):
        try:
            return _with_positions(reader(text, "t.pto"))
        except TilememError as e:
            return (e.line, e.col, e.message)

    def outcomes():
        with deep_recursion():      # (lists nested 1000 deep)
            return [(outcome(t, P.parse), outcome(t, lambda t, p: P.parse_syntax(t, p)[0])) for t in texts]
    fast = outcomes()
    assert any(type(r[0]) is tuple and r[0][0] == "Program" for r in fast)
    driver = lalr.Driver.__new__(lalr.Driver)
    driver.__dict__.update(P._driver().__dict__, kinds={})
    monkeypatch.setattr(driver, "_as_parts", lambda ttype, value: True)    # every compound as its parts
    monkeypatch.setattr(P, "_DRIVER", driver)
    with deep_recursion():
        assert outcomes() == fast


_REPEATED_ANNOTATIONS = [
    "pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.zero)]",
    "pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 4], start_offset=M - 1)]",
    "pl.Tile[[16, 128], pl.BF16, pl.MemRef(pl.Mem.Mat, 0, 4096), pl.Mem.Mat]",
    "pl.Tensor[[M * 2, -1], pl.FP16, pl.TensorView(stride=[1, M], layout=pl.TensorLayout.ND)]",
    "pl.Scalar[pl.INDEX]", "pl.Tuple[pl.Scalar[pl.INT32], pl.Tile[[1], pl.FP32]]", "pl.Ptr", "int",
    "None", "True", "pl.Array[[1, 2], (3, 4)]", "pl.Tile[[" + ", ".join(["1"] * 40) + "], pl.FP32]",
    "pl.Tile[[1], pl.FP32] ", "a[x if y else z]", "a[b == c]", "pl.Tile [ [1] ,pl.FP32 ]",
]


def test_repeated_annotations_read_as_their_first_reading(monkeypatch):
    """An annotated assignment's annotation whose text repeats is built from its first
    reading (the LALR driver's memo, by text): the same nodes, types, positions (each
    node moved to where the text stands) and sharing as reading it again, on every line
    and column, in both readings; texts it does not rebuild read as before."""
    from tilemem.frontend import lalr, parser as P
    lines = []
    for i, ann in enumerate(_REPEATED_ANNOTATIONS * 3):
        name = "v" * (1 + i % 5)
        lines.append(f"{name}{i}: {ann} = pl.tile.add(a, b)")
        lines.append(f"if c:\n            w{i}:{ann}   =   {i}")
    texts = [_compound_program("\n        ".join(lines))]

    def outcomes():
        out = []
        for t in texts:
            prog = P.parse(t, "t.pto")
            out.append(_with_positions(prog))
            out.append(_with_positions(P.parse_syntax(t, "t.pto")[0]))
        return out, prog
    fast, prog = outcomes()
    body = prog.functions[0].body
    assert body[0].type.shape is body[0].annotation.index[0].items      # as to_type shares them
    assert sum(type(s) is ir.OpaqueStmt for s in body) == 3             # `a[x if y else z]`
    assert P._driver().annotated is not None
    monkeypatch.setattr(P._driver(), "annotated", None)                 # every one read
    slow, _ = outcomes()
    assert slow == fast


def test_annotations_read_in_an_earlier_text_build_the_same_nodes(monkeypatch):
    """The driver keeps its annotations' first readings from one text to the next (a
    batch, an editor): a text whose annotations an earlier text read first -- at other
    lines and columns, first in one program and not in the next -- reads as it reads
    alone: the same nodes, types, positions and sharing, in every golden kernel too."""
    from pathlib import Path
    from tilemem.frontend import parser as P
    texts = []
    for shift in range(3):
        lines = []
        for i, ann in enumerate(_REPEATED_ANNOTATIONS[shift:] + _REPEATED_ANNOTATIONS[:shift]):
            lines.append(f"{'u' * (1 + (i + shift) % 4)}{i}: {ann} = pl.tile.add(a, b)")
        texts.append(_compound_program("\n        ".join(lines)))
    corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    texts += [p.read_text() for p in sorted(corpus.glob("*/before.pto"))[:40]]

    def read(t):
        prog = P.parse(t, "t.pto")
        return _with_positions(prog), prog
    driver = P._driver()
    kept = []
    driver.annotations.clear()
    for t in texts:
        kept.append(read(t))
    assert len(driver.annotations) >= len(_REPEATED_ANNOTATIONS) - 2
    for t, (nodes, prog) in zip(texts, kept):
        driver.annotations.clear()          # read alone
        alone, _ = read(t)
        assert alone == nodes
    body = kept[1][1].functions[0].body
    assert body[0].type.shape is body[0].annotation.index[0].items      # as to_type shares them


def _tokens_or_error(tokens, text):
    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    try:
        return list(tokens(text))
    except pto_tokens.SyntaxProblem as e:
        return (e.message, e.line, e.col)


# texts the scanner reads part of: characters no terminal matches (mid-line, at the end,
# after blanks, inside and after strings), continuation lines, blanks at the end
_LEXER_EDGES = ["x = a $ b\n", "x = 1\n  y = 'ab\n", "x = [1, 2]  ?", "a.b(c)   ", "x = \\\n  1\n",
                "s = \"\"\"a\n$b\"\"\" ; t\n", "1.5e3 0x1F 1e 1. ...->**//<<= !x", "\tx\f= `\r\n",
                "", " ", "$", "# c $\nx\n", "ab\u00e9 = 1\n",
                "a.b. c.d.e ..f a.1 _x.y_ x.y.z.w[0].v if.x a.xor", "[1, 2] [1,2] [ 1] [1, 2, ] x[0] [01, 2]\n"]


def test_scanner_tokens_as_the_exact_tokenizer():
    """The scanner (two groups, the terminal looked up by the token's text, the rest of
    the text handed to the exact tokenizer at a character no terminal matches) gives
    the tokens, positions and errors of the tokenizer with a named group per terminal."""
    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    d = P._driver()
    assert d.scanner is not None
    texts = _friendly_texts() + _LEXER_EDGES
    for text in texts:
        assert _tokens_or_error(d.tokens, text) == _tokens_or_error(d._tokens_exact, text), text
    assert isinstance(_tokens_or_error(d.tokens, "x = a $ b\n"), tuple)       # an error


@pytest.mark.parametrize("stretch", [1, 3, 8, 64])
def test_scanner_stretches_cut_no_token(monkeypatch, stretch):
    """The scanner matches a long text in stretches, each ending before a newline no token
    holds (not one inside a triple-quoted string, a newline run or a line continuation):
    cut into stretches of a few characters, every text still reads as the exact tokenizer
    reads it."""
    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    monkeypatch.setattr(lalr, "STRETCH", stretch)
    d = P._driver()
    texts = _friendly_texts() + _LEXER_EDGES + [
        'a = 1\nb = """x\ny\n"""\nc = 2\n', "a = 1\r\nb = 2\r\n\r\n  c = 3\r\n", "a = [1, \\\n 2]\nb = 3\n",
        "a = 1\n\n\n   \n\tb = 2\n", "s = \'\'\'a\n\'\'\' + '\"\"\"'\nt = 1\n# \"\"\"\nu = 2\n", "x" * 300 + " = 1\ny = 2\n"]
    for text in texts:
        assert _tokens_or_error(d.tokens, text) == _tokens_or_error(d._tokens_exact, text), text


def test_scanner_joins_dotted_and_name():
    """The scanner matches DOTTED and NAME as one alternative (what stands between them in
    the match order starts with punctuation); the tokens stay the exact tokenizer's
    (test_scanner_tokens_as_the_exact_tokenizer)."""
    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    name = "[A-Za-z_][A-Za-z0-9_]*"
    assert rf"(?:{name}(?:\.{name})*+)" in P._driver().scanner.pattern
    assert lalr._punctuation_first(r"\[[0-9]+\]") and lalr._punctuation_first(r"\->")
    assert not any(map(lalr._punctuation_first, [r"\[*a", r"\[a|b", r"\w+", "a", r"\_", r"\[?"]))


def test_scanner_order_keeps_overlapping_alternatives():
    """The scanner tries first the alternatives one character test rejects; two that can
    start a match with the same character (or whose first characters are not known, or
    that may match the empty text) keep their order, so the same alternative matches first
    at every position."""
    from tilemem.frontend import lalr
    alts = [r"[0-9]+\.[0-9]*", r'"[^"]*"|\'[^\']*\'', r"[0-9]+", r"\*\*|[=<>]=", r"x?", r"\.\.\.", r"=",
            r",", r"\.", r"(?:\r?\n)+", r"[^a]"]
    order = [alts[i] for i in lalr._scan_order(alts)]
    assert sorted(order) == sorted(alts)
    at = order.index
    assert at(r"[0-9]+\.[0-9]*") < at(r"[0-9]+") and at(r"\*\*|[=<>]=") < at("=")
    assert at(r"\.\.\.") < at(r"\.")
    # x? may match nothing: what comes before it stays before, what comes after stays after
    assert order[:order.index("x?")] == [r'"[^"]*"|\'[^\']*\'', r"\*\*|[=<>]=", r"[0-9]+\.[0-9]*", r"[0-9]+"]
    assert at(r'"[^"]*"|\'[^\']*\'') < at(r"[0-9]+\.[0-9]*")          # one test each branch
    assert at(r"[^a]") == len(alts) - 1 and at(r"(?:\r?\n)+") < at(r"[^a]")
    assert lalr._first_chars(lalr._sre_parser.parse(r"(?:\r?\n)+")) == {10, 13}
    assert lalr._first_chars(lalr._sre_parser.parse(r"a*b|[c-e]")) == {97, 98, 99, 100, 101}
    assert lalr._first_chars(lalr._sre_parser.parse(r"\w+")) is None
    assert lalr._first_chars(lalr._sre_parser.parse(r"(?i)ab")) is None        # B too
    assert lalr._first_chars(lalr._sre_parser.parse(r"(?i:ab)|c")) is None


def test_a_token_text_s_terminal_is_asked_of_the_terminals_it_may_start():
    """A text's terminal is looked up among the terminals whose matches may start with its
    first character: the same terminal as asking every one in match order."""
    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    d = P._driver()
    texts = {tok[1] for text in _friendly_texts() + _LEXER_EDGES
             for tok in _tokens_or_error(d._tokens_exact, text)
             if type(tok) is tuple and len(tok) == 5}
    texts |= {"x", "x.y", "if", "if.x", "inf", "nan.x", "1.5", "1e5", "0x1F", "[1, 2]", "'s'", '"""a"""',
              "...", "->", "**", "é", "$", "#c", "\n  ", "_", "__a1.b_2"}
    assert len(texts) > 50

    def every_terminal(value):
        for name, whole in d.terminals:
            if whole(value):
                return "NAME" if name == "NAME" else name
        return None
    for value in sorted(texts):
        got = d._kind(value)
        want = every_terminal(value)
        if want == "NAME":
            assert got == d.keywords.get(value, "NAME"), value
        elif want in lalr.COMPOUND and got is not None and got.startswith("("):
            assert got == f"({want} parts)", value
        else:
            assert got == want, value
    assert len(d.by_first) < len(texts)


def test_scanner_order_cached_or_damaged_reads_the_same(tmp_path, monkeypatch):
    """The scanner's order is kept in the private cache; an entry that is not an order of
    the alternatives is worked out again."""
    import marshal

    from tilemem.frontend import ir_builder, lalr, parser as P  # noqa: F401
    want = P._driver().scanner.pattern
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path))
    assert lalr._scanner(P._driver()._lexed)[0].pattern == want
    [cached] = tmp_path.glob("pto_scan_order-*.marshal")
    firsts = lalr._scanner(P._driver()._lexed)[2]
    for damaged in ([0] * 30, [list(range(30)), [None]], [[], []]):
        cached.write_bytes(marshal.dumps(damaged))
        assert lalr._scanner(P._driver()._lexed)[0].pattern == want
        order, kept = marshal.loads(cached.read_bytes())
        assert sorted(order) == list(range(len(order))) and len(kept) == len(P._driver().terminals)
        assert lalr._scanner(P._driver()._lexed)[2] == firsts


def test_scanner_regexps_keep_their_language():
    """A terminal's regexp becomes group-free for the scanner; one whose match may
    depend on the text around it (anchors, lookaround, backreferences) is not
    scanned (every text then takes the exact tokenizer)."""
    from tilemem.frontend.lalr import _uncaptured
    assert _uncaptured(r"a(b|c)+[(]\(d") == r"a(?:b|c)+[(]\(d"
    assert _uncaptured(r"[^]](x)") == r"[^]](?:x)"
    assert _uncaptured(r"(?i)x(?:y)") == r"(?i)x(?:y)"
    for contextual in (r"x(?=y)", r"(?<!a)b", r"\bif", r"(a)\1", r"^x", r"x$", r"(?P<n>a)(?P=n)"):
        assert _uncaptured(contextual) is None, contextual


def test_parser_tables_cached_damaged_or_absent_read_the_same(tmp_path, monkeypatch):
    """The tables are kept in the private cache as marshalled data; a file that is not what was
    written (truncated, another shape) is rebuilt, and no cache reads the same."""
    import marshal

    from tilemem.frontend import ir_builder, lalr, parser as P, tokens as pto_tokens  # noqa: F401
    from tilemem.frontend.tables import load_tables
    from tilemem.resources import resource_dir

    grammar = (resource_dir("grammar") / "pto.lark").read_text(encoding="utf-8")
    accept = P.PtoIndenter().always_accept
    texts = _friendly_texts()

    def reads(tables):      # lark numbers its states differently from build to build
        monkeypatch.setattr(P, "_DRIVER", lalr.Driver(tables, ir_builder.Builder()))
        return [print_program(parse(t)) for t in texts]

    want = [print_program(parse(t)) for t in texts]
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path))
    built = load_tables(grammar, accept)
    [cached] = tmp_path.glob("pto_tables-*.marshal")
    assert marshal.loads(cached.read_bytes()) == built == load_tables(grammar, accept)
    assert reads(built) == want
    for damage in (b"{", marshal.dumps(dict(built, states=[[0, 2 * 10 ** 6 + 1]])), marshal.dumps([])):
        cached.write_bytes(damage)
        again = load_tables(grammar, accept)
        assert marshal.loads(cached.read_bytes()) == again      # rebuilt and rewritten
        assert reads(again) == want
    monkeypatch.setenv("TILEMEM_NO_CACHE", "1")
    assert reads(load_tables(grammar, accept)) == want
    assert list(tmp_path.glob("pto_tables-*")) == [cached]


def test_records_behave_as_the_dataclasses_they_replace():
    """The solve path's records (tilemem.records) keep what their dataclasses gave:
    keyword and default construction, fresh default lists, equality, hashing of frozen
    ones, repr without hidden fields, ``dataclasses`` functions (fields built on first
    use), replace (with an unknown field refused), and pickling (batch workers)."""
    import dataclasses
    import pickle

    from tilemem.api import Solution, SolveWarning
    from tilemem.limits import Limits
    from tilemem.records import replace
    from tilemem.residency.verdicts import Refusal, ResidencyDecision
    from tilemem.tools.batch import FileResult

    lim = Limits(max_facts=5)
    assert (lim.max_facts, lim.max_seconds) == (5, 60.0) and lim == Limits(max_facts=5) != Limits()
    assert hash(lim) == hash(Limits(max_facts=5))
    assert lim.replace(max_seconds=None, max_facts=7) == Limits(max_facts=7)
    assert replace(lim, max_facts=9).max_facts == 9 and lim.max_facts == 5
    with pytest.raises(TypeError):
        replace(lim, no_such_field=1)
    assert repr(Limits()) == ("Limits(max_input_size=67108864, max_line_length=1048576, "
                              "max_facts=1000000, max_seconds=60.0)")
    a, b = FileResult("x.pto"), FileResult("y.pto")
    assert a.warnings == [] and a.warnings is not b.warnings
    with pytest.raises(TypeError):
        hash(a)
    a.warnings.append(SolveWarning("x.pto", 1, 2, "m", "c"))
    assert pickle.loads(pickle.dumps(a)) == a
    s = Solution("t", None, {}, [], None, None, _engine="clingo")
    assert "_engine" not in repr(s) and "text='t'" in repr(s) and s.warnings == []
    d = ResidencyDecision("f", "v", 3, 2, False, "c", "r", (Refusal(1, "c", "v", "r"),))
    assert dataclasses.is_dataclass(d) and [f.name for f in dataclasses.fields(Refusal)] == [
        "rank", "code", "detail", "reason", "fix"]
    assert d.to_dict()["refusals"] == ({"rank": 1, "code": "c", "detail": "v", "reason": "r",
                                        "fix": None},)
    assert dataclasses.replace(d, var="w").var == "w"


def test_ir_nodes_behave_as_the_dataclasses_they_replace():
    """The IR node classes are plain classes (no dataclass building at import) that keep
    the dataclass behaviour: fields, replace, equality and hashing without positions,
    repr without positions, fresh default lists, unhashable statements."""
    import dataclasses

    from tilemem import ir

    a = ir.Name("x", 1, 2)
    assert a == ir.Name("x", 7, 8) and hash(a) == hash(ir.Name("x")) and a != ir.Name("y", 1, 2)
    assert ir.Name("x") != ir.Dotted(("x",)) and repr(a) == "Name(id='x')"
    assert dataclasses.is_dataclass(a) and [f.name for f in dataclasses.fields(a)] == ["id", "line", "col"]
    assert [f.compare for f in dataclasses.fields(a)] == [True, False, False]
    b = dataclasses.replace(a, id="z")
    assert (b.id, b.line, b.col) == ("z", 1, 2)
    s1, s2 = ir.Pass(), ir.Pass()
    assert s1.comments == [] and s1.comments is not s2.comments
    assert s1 == s2 and ir.Pass(comments=["# c"]) != s1
    with pytest.raises(TypeError):
        hash(s1)
    fn_fields = {f.name: f for f in dataclasses.fields(ir.Function)}
    assert not fn_fields["name_hints"].compare and not fn_fields["name_hints"].repr
    assert fn_fields["extra"].default_factory is list
    t = ir.TileType((ir.IntConst(16),), "pl.FP32", space="Vec", line=3)
    assert dataclasses.asdict(t)["space"] == "Vec"
    assert dataclasses.replace(t, space="Mat") == ir.TileType((ir.IntConst(16),), "pl.FP32", space="Mat")
