"""No op name outside the op table: the decisions about an op are the op table's rows
(``rules/ops.dl`` + ``rules/ops/*.facts``), so ``--rules`` can add or change an op
completely.  An op name may appear only

* in a rule file whose header says the file is about that op's family by design (the
  header names the op), or
* in Python, where the allow-list below says why (grouped, each group explained).

The scan reads every string literal of ``tilemem/**/*.py`` (docstrings and the messages
of raised errors excepted: words that decide nothing) and
every string constant of the rule code of ``rules/*.dl`` (comments excepted), and looks
for the op table's names (``tile.load``; as ``pl.tile.load`` too).  An allow-list entry
that no longer occurs fails as well, so the list only shrinks.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# file -> ({op names it may name}, why).  Keep the groups and their reasons.
ALLOWED: dict[str, tuple[set[str], str]] = {
    # The per-op type rules (their module's header: they name the ops they type, by
    # design) tell the members of one rule's family apart.
    "tilemem/ir/typerules/crosscore.py": (
        {"tile.aiv_shard"}, "a per-op type rule tells the ops of its own family apart"),
    "tilemem/ir/typerules/elementwise.py": (
        {"tile.cmp", "tile.row_min"}, "a per-op type rule tells the ops of its own family apart"),
    "tilemem/ir/typerules/matmul.py": (
        {"tile.gemv_acc", "tile.matmul_mx_acc"},
        "a per-op type rule tells the ops of its own family apart"),
    "tilemem/ir/typerules/transforms.py": (
        {"tile.fillpad_expand"}, "a per-op type rule tells the ops of its own family apart"),
    # Words: the help text names the op it is about; help is printed without loading the
    # op table (explanations, verdicts and pictures ask the table for the op of a role).
    "tilemem/commands/solve.py": ({"tile.move"}, "help text"),
    # Words: the message of a rejected handle argument names the op whose output it must be
    # (passed to the one handle check, _expect_handle, which raises it).
    "tilemem/frontend/dsl/typerules_system.py": (
        {"prefetch.make_context", "prefetch.async_prefetch", "prefetch.session"}, "error words"),
    # The DSL front end (owner: the `dsl` engineer, who shrinks these).
}

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_DL_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def op_names() -> set[str]:
    text = (REPO / "rules" / "ops" / "op.facts").read_text(encoding="utf-8")
    return {line.split("\t", 1)[0] for line in text.splitlines() if line.strip()}


def _named_ops(text: str, ops: set[str]) -> set[str]:
    """The op names a string mentions, as ``tile.x`` or ``pl.tile.x``."""
    found = set()
    for word in _DOTTED.findall(text):
        if word in ops:
            found.add(word)
        elif word.startswith("pl.") and word[3:] in ops:
            found.add(word[3:])
    return found


def python_mentions(source: str, ops: set[str]) -> dict[str, list[int]]:
    """op -> the lines of the string literals that name it; docstrings and the messages
    of raised errors are words, not decisions, and do not count."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        if isinstance(node, ast.Raise) and node.exc is not None:
            docstrings.update(id(n) for n in ast.walk(node.exc))    # an error's words
    out: dict[str, list[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            for op in _named_ops(node.value, ops):
                out.setdefault(op, []).append(node.lineno)
    return out


def rule_mentions(text: str, ops: set[str]) -> tuple[dict[str, list[int]], str]:
    """(op -> lines of rule code whose string constants name it, the file's header)."""
    out: dict[str, list[int]] = {}
    header, in_header = [], True
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if in_header and stripped.startswith("//"):
            header.append(stripped)
            continue
        in_header = in_header and not stripped
        code = line.split("//", 1)[0]          # rule files keep no "//" inside strings
        for s in _DL_STRING.findall(code):
            if s in ops:
                out.setdefault(s, []).append(i)
    return out, "\n".join(header)


def test_scanners_find_op_names():
    """The scan can fail: a planted op name is found, in code and in rules alike."""
    ops = {"tile.load", "tile.move"}
    src = ('"""Docstrings may say tile.load."""\n'
           'X = "pl.tile.move"\n'
           'def f(op):\n    """tile.move here is prose."""\n    return op == "tile.load"\n'
           'def g(op):\n    raise ValueError(f"tile.load {op}: words")\n')
    assert python_mentions(src, ops) == {"tile.move": [2], "tile.load": [5]}
    rules = ('// Header: about nothing.\n\n'
             '// tile.move in a comment is prose\n'
             'p(V) :- def_op(V, _, "tile.load").\n')
    found, header = rule_mentions(rules, ops)
    assert found == {"tile.load": [4]} and "tile.load" not in header


def test_no_op_name_outside_the_op_table():
    ops = op_names()
    assert "tile.load" in ops and len(ops) > 100
    problems, seen = [], {}
    for path in sorted((REPO / "tilemem").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        allowed = ALLOWED.get(rel, (set(), ""))[0]
        for op, lines in sorted(python_mentions(path.read_text(encoding="utf-8"), ops).items()):
            seen.setdefault(rel, set()).add(op)
            if op not in allowed:
                problems.append(f"{rel}:{lines[0]}: names op {op!r}: read it from the op table "
                                "(a role in tools/gen_ops.py), or allow it above, saying why")
    for path in sorted((REPO / "rules").rglob("*.dl")):     # (a phase folder's too)
        if path.name == "ops.dl":
            continue
        rel = path.relative_to(REPO).as_posix()
        found, header = rule_mentions(path.read_text(encoding="utf-8"), ops)
        for op, lines in sorted(found.items()):
            if op not in header:
                problems.append(f"{rel}:{lines[0]}: names op {op!r}, and the file's header does "
                                "not say the file is about that op by design")
    for rel, (allowed, why) in ALLOWED.items():
        assert why, rel
        for op in sorted(allowed - seen.get(rel, set())):
            problems.append(f"{rel}: allow-list entry {op!r} no longer occurs: drop it")
    assert not problems, "\n".join(problems)
