"""The one IR rewriter (tilemem.ir.rewrite): patterns driven by a walker that visits
statements in program order, gives each body its scope, and shares what did not change."""
from tilemem import ir
from tilemem.frontend.parser import parse
from tilemem.ir.rewrite import RewritePattern, rewrite_body, rewrite_function
from tilemem.records import replace

_PROGRAM = """\
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i in pl.range(4):
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            for j in pl.range(2):
                w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(u)
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], o)
        return o
"""


def _function():
    return parse(_PROGRAM, "p.pto").functions[0]


def _target(s):
    return s.targets[0] if isinstance(s, ir.Assign) else type(s).__name__


class _Record(RewritePattern):
    """Changes nothing; records the visit order and each body's scope."""

    def __init__(self):
        self.events = []

    def rewrite(self, s, scope):
        self.events.append(("visit", _target(s), scope))
        return s

    def body_scope(self, owner, scope):
        return scope + 1

    def leave(self, s, scope):
        self.events.append(("leave", _target(s), scope))


def test_program_order_scopes_and_leave_after_the_bodies():
    rec = _Record()
    rewrite_function(_function(), rec, 0)
    assert rec.events == [
        ("visit", "t", 0), ("visit", "For", 0), ("visit", "u", 1), ("visit", "For", 1),
        ("visit", "w", 2), ("leave", "For", 1), ("leave", "For", 0),
        ("visit", "v", 0), ("visit", "o", 0), ("visit", "Return", 0)]


def test_a_pattern_that_changes_nothing_returns_the_function_itself():
    fn = _function()
    assert rewrite_function(fn, _Record(), 0) is fn


class _Rename(RewritePattern):
    """The assignment of ``old`` assigns ``new``."""

    def __init__(self, old, new):
        self.old, self.new = old, new

    def rewrite(self, s, scope):
        if isinstance(s, ir.Assign) and s.targets == [self.old]:
            return replace(s, targets=[self.new])
        return s


def test_only_the_path_to_a_change_is_rebuilt():
    fn = _function()
    out = rewrite_function(fn, _Rename("w", "w2"))
    assert out is not fn
    t, loop, v, o, ret = fn.body
    assert out.body[0] is t and out.body[2] is v and out.body[3] is o and out.body[4] is ret
    new_loop = out.body[1]
    assert new_loop is not loop and new_loop.iter is loop.iter
    assert new_loop.body[0] is loop.body[0]                 # u: unchanged, shared
    assert new_loop.body[1].body[0].targets == ["w2"]
    assert loop.body[1].body[0].targets == ["w"]            # the input is left as it was


class _InsertAndErase(RewritePattern):
    """Erases ``v``; puts a copy of ``u`` named ``u0`` before ``u``."""

    def rewrite(self, s, scope):
        if isinstance(s, ir.Assign) and s.targets == ["v"]:
            return []
        if isinstance(s, ir.Assign) and s.targets == ["u"]:
            return [replace(s, targets=["u0"]), s]
        return s


def test_statements_inserted_and_erased():
    fn = _function()
    out = rewrite_function(fn, _InsertAndErase())
    assert [_target(s) for s in out.body] == ["t", "For", "o", "Return"]
    assert [_target(s) for s in out.body[1].body] == ["u0", "u", "For"]
    assert out.body[1].body[1] is fn.body[1].body[0]


class _Deep(RewritePattern):
    def __init__(self):
        self.seen = 0

    def rewrite(self, s, scope):
        self.seen += 1
        return s


def test_deep_nesting_costs_no_python_stack():
    depth = 20000               # deeper than Python's default recursion limit
    body = [ir.EvalStmt(ir.Name("x"))]
    for _ in range(depth):
        body = [ir.While(ir.Name("c"), body)]
    deep = _Deep()
    assert rewrite_body(body, deep) is body
    assert deep.seen == depth + 1
