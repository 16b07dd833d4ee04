"""Find the ``@pl.program`` classes of a Python module without running it.

Hand-written kernels live in ``.py`` files (or ``.pto`` files holding the same
Python): a module with imports, helpers, tests and one or more ``@pl.program``
classes, at module level or nested inside functions and test methods.  PyPTO
executes the module to find them; tilemem only reads it with Python's own ``ast``
module (``ast.parse`` builds a syntax tree and runs nothing), to learn

* where each program class is (its lines, its indentation), so that the class can
  be read by tilemem's grammar with positions in the user's file;
* the names PyPTO's front end would resolve while reading a program: the alias of
  ``pypto.language`` (``import pypto.language as pl``), integer constants (``N = 64``,
  ``M = N * 2``: folded; ``M, N = 64, 128`` and ``M = N = 64`` too), lists of them
  (``SHAPE = [16, 16]``), dynamic dims (``M = pl.dynamic("M")``) and dtype aliases
  (``DT = pl.FP32``).  Anything else is ignored: it is Python around the kernels, not
  part of them.

Which names a program sees is what Python has bound when its class statement runs
(PyPTO reads the class in its decorator, with the caller frame's globals and locals,
decorator.py:1150): at module level the assignments above the class; in a function the
function's assignments above it (and its enclosing functions' above it), with every
module-level name (a test function runs after its module); directly in a class body
that body's assignments above it as well.
"""
from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field
from typing import Optional, Union

from tilemem.errors import TilememError
from tilemem.frontend.pyconstants import DataTypeRef, DeclaredMemRef, Dynamic, EnumRef
from tilemem.ir.views import DTYPES

__all__ = ["ProgramSite", "ModuleScope", "Dynamic", "DataTypeRef", "EnumRef", "DeclaredMemRef", "FAILED",
           "scan_module"]


@dataclass
class ProgramSite:
    """One ``@pl.program`` class: its name, decorator and class lines (1-based,
    inclusive), the column of ``class``/``@`` and the keyword arguments of the
    decorator (``strict_ssa``)."""
    name: str
    first_line: int          # the first decorator line
    last_line: int           # the class's last line
    indent: int              # column (0-based) of the decorator
    strict_ssa: bool = False
    node: Optional[ast.ClassDef] = field(default=None, repr=False)
    # every name the class sees (module, enclosing functions and class body), bound above it
    constants: dict = field(default_factory=dict)


Constant = Union[int, float, bool, str, list, "Dynamic", "DataTypeRef", "EnumRef", "DeclaredMemRef"]


# the enums an op argument may be a member of (pl.<Enum>.<member>)
ENUM_KINDS = frozenset(("Mem", "MemorySpace", "TileLayout", "TensorLayout", "PadValue", "AtomicType",
                        "PipeType", "CompactMode", "SplitMode", "ScopeMode", "Level", "Role", "FunctionType",
                        "NotifyOp", "WaitCmp", "ReduceOp", "MaskPattern"))


@dataclass
class ModuleScope:
    """What a program may refer to outside itself."""
    aliases: set = field(default_factory=lambda: {"pl"})     # names of pypto.language
    failed: Optional[tuple] = None      # (line, "Type: message") of a module statement Python fails on
    constants: dict = field(default_factory=dict)           # name -> int | float | list | Dynamic | DataTypeRef


def _is_program_decorator(d: ast.expr, aliases: set) -> bool:
    if isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Attribute) and d.attr == "program":
        return isinstance(d.value, ast.Name) and d.value.id in aliases
    return isinstance(d, ast.Name) and d.id == "program"


def _strict_ssa(d: ast.expr) -> bool:
    if isinstance(d, ast.Call):
        for kw in d.keywords:
            if kw.arg == "strict_ssa" and isinstance(kw.value, ast.Constant):
                return bool(kw.value.value)
    return False


class PythonFails(Exception):
    """Python itself fails on this statement (its exception's ``Type: message``): the
    module (or the function) never gets to the program."""


def dynamic_name(name: str, error):
    """pl.dynamic's name, which DynVar's constructor checks before anything reads it
    (pypto/language/typing/dynamic.py:37-38): raises ``error`` with its message."""
    if not name.isidentifier():
        raise error(f"ValueError: DynVar name must be a valid identifier, got {name!r}")
    return name


def _zero_division(op, a, b) -> str:
    """Python's own ZeroDivisionError message (3.11)."""
    if op is ast.Div:
        msg = "division by zero" if type(a) is int and type(b) is int else "float division by zero"
    elif type(a) is int and type(b) is int:
        msg = "integer division or modulo by zero"
    else:
        msg = "float floor division by zero" if op is ast.FloorDiv else "float modulo"
    return f"ZeroDivisionError: {msg}"


FAILED = "\x00failed"          # the key under which a scope records the statement Python fails on


class _Folder:
    """Evaluates the constant expressions PyPTO would fold at module level, without
    running anything: literals, names of earlier constants, + - * // % and unary -."""

    def __init__(self, aliases: set, constants: dict):
        self.aliases = aliases
        self.constants = constants

    def value(self, e: ast.expr):
        if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
            return e.value
        if isinstance(e, ast.Name):
            v = self.constants.get(e.id)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return v
            raise ValueError
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return -self.value(e.operand)
        if isinstance(e, ast.BinOp):
            a, b = self.value(e.left), self.value(e.right)
            op = type(e.op)
            if op is ast.Add:
                return a + b
            if op is ast.Sub:
                return a - b
            if op is ast.Mult:
                return a * b
            if op in (ast.FloorDiv, ast.Mod, ast.Div) and b == 0:
                raise PythonFails(_zero_division(op, a, b))
            if op is ast.FloorDiv and b != 0:
                return a // b
            if op is ast.Mod and b != 0:
                return a % b
            if op is ast.Div and b != 0:
                return a / b
            # Python's own value where it stays small (a bound keeps the scan from
            # computing a huge power or shift: such a name is then not a constant)
            ints = type(a) is int and type(b) is int
            if op is ast.Pow and ints and 0 <= b <= 256 and abs(a).bit_length() * b <= 4096:
                return a ** b
            if op is ast.LShift and ints and 0 <= b <= 4096 and abs(a).bit_length() + b <= 4096:
                return a << b
            if op is ast.RShift and ints and b >= 0:
                return a >> b
        raise ValueError

    def constant(self, e: ast.expr) -> Optional[Constant]:
        if isinstance(e, ast.Name):          # another name for a constant: the same value
            v = self.constants.get(e.id)
            return list(v) if isinstance(v, list) else v
        if isinstance(e, (ast.List, ast.Tuple)):
            try:
                return [self.value(x) for x in e.elts]
            except ValueError:
                return None
        if (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "dynamic"
                and isinstance(e.func.value, ast.Name) and e.func.value.id in self.aliases
                and len(e.args) == 1 and isinstance(e.args[0], ast.Constant) and isinstance(e.args[0].value, str)):
            return Dynamic(dynamic_name(e.args[0].value, PythonFails))
        if (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "MemRef"
                and isinstance(e.func.value, ast.Name) and e.func.value.id in self.aliases):
            return _declared_memref(e, self)
        if isinstance(e, ast.Attribute) and e.attr in DTYPES and (
                (isinstance(e.value, ast.Name) and e.value.id in self.aliases)
                or (isinstance(e.value, ast.Attribute) and e.value.attr == "DataType"
                    and isinstance(e.value.value, ast.Name) and e.value.value.id in self.aliases)):
            return DataTypeRef(e.attr)
        if (isinstance(e, ast.Attribute) and isinstance(e.value, ast.Attribute) and e.value.attr in ENUM_KINDS
                and isinstance(e.value.value, ast.Name)
                and (e.value.value.id in self.aliases or e.value.value.id == "pld")):
            root = "pld" if e.value.value.id == "pld" else "pl"
            return EnumRef((root, e.value.attr, e.attr))
        try:
            return self.value(e)
        except ValueError:
            return None


def _declared_memref(e: ast.Call, folder: "_Folder") -> Optional[DeclaredMemRef]:
    """A declared allocation (no base: ``pl.MemRef()``, ``pl.MemRef("name")``, with a
    positive integer literal ``slots=``); None for anything else."""
    if len(e.args) > 1 or any(k.arg != "slots" for k in e.keywords):
        return None
    name = None
    if e.args:
        a = e.args[0]
        if not (isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value):
            return None
        name = a.value
    slots = 1
    for k in e.keywords:
        try:
            slots = folder.value(k.value)
        except ValueError:
            return None
        if type(slots) is int and slots < 1:     # the MemRef constructor's refusal
            raise PythonFails(f"ValueError: A declared allocation must have at least one slot, got slots={slots}")
        if type(slots) is not int:
            return None
    return DeclaredMemRef(name, slots, (e.lineno, e.col_offset))


def _scan_imports(body: list, aliases: set) -> None:
    for s in body:
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.name == "pypto.language" and a.asname:
                    aliases.add(a.asname)
        elif isinstance(s, ast.ImportFrom) and s.module == "pypto":
            for a in s.names:
                if a.name == "language":
                    aliases.add(a.asname or "language")


def _bound_names(target: ast.expr) -> list:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _assign(s: ast.stmt, aliases: set, into: dict) -> None:
    """What one statement binds, as Python binds it: ``a = b = v`` binds every target to
    the one value, ``a, b = x, y`` (or a list constant) unpacks it element by element
    (all values read before any name is bound); a name bound to what is not a constant
    (or by a statement the scan does not read: a loop, an import, a ``def``) is
    forgotten."""
    if isinstance(s, ast.Assign):
        targets, value = s.targets, s.value
    elif isinstance(s, ast.AnnAssign):
        if s.value is None:
            return
        targets, value = [s.target], s.value
    else:
        if isinstance(s, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            names = [s.target] if isinstance(s, (ast.AugAssign, ast.For, ast.AsyncFor)) else \
                [i.optional_vars for i in s.items if i.optional_vars is not None]
            for t in names:
                for n in _bound_names(t):
                    into.pop(n, None)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            into.pop(s.name, None)
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                into.pop((a.asname or a.name).split(".")[0], None)
        return
    folder = _Folder(aliases, into)
    try:
        whole = folder.constant(value)
        if isinstance(value, (ast.Tuple, ast.List)):
            parts = [folder.constant(e) if not isinstance(e, ast.Starred) else None for e in value.elts]
        elif isinstance(whole, list):
            parts = list(whole)
        else:
            parts = None
    except PythonFails as failure:
        into.setdefault(FAILED, (s.lineno, str(failure)))
        return
    bound: dict = {}
    forgotten: set = set()
    for t in targets:
        if isinstance(t, ast.Name):
            if whole is not None:
                bound[t.id] = whole
            else:
                forgotten.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)) and parts is not None and len(parts) == len(t.elts) \
                and all(isinstance(x, ast.Name) for x in t.elts):
            for x, v in zip(t.elts, parts):
                if v is not None:
                    bound[x.id] = v
                else:
                    forgotten.add(x.id)
        else:
            forgotten.update(_bound_names(t))
    for n in forgotten:
        into.pop(n, None)
    into.update(bound)


# ----------------------------------------------------------------------------- the skeleton
#
# Python's syntax tree costs ~300 bytes of memory per byte of a list literal or an
# operator chain (a 1 MB list: 305 MB), and an operator chain of a few thousand terms
# is past its construction depth ("maximum recursion depth exceeded during ast
# construction").  The scan needs none of that: the program classes are read by
# tilemem's grammar, and only short module-level values are folded.  So a long line
# makes the scan read a *skeleton* of the module: every bracket group and every
# statement's value longer than ELIDE_TOKENS tokens or ELIDE_CHARS characters is
# replaced by `_( )`, padded with spaces to the span's end (newlines and the UTF-8 length of each line
# kept, so every position Python reports is the file's).  A constant or decorator
# whose text was elided is parsed again from the file, exactly, when it is at most
# EXACT_CHARS long; a longer one is not a constant (a decorator: an error).

ELIDE_TOKENS = 500
ELIDE_CHARS = 4096
EXACT_CHARS = 65536
_ELIDED = "_"                        # the padding is a call of it: `_(   )`
_LONG_LINE = re.compile(r"[^\n]{%d}" % (ELIDE_CHARS + 1))
_LONE_CR = re.compile(r"\r(?!\n)")


def _elided_spans(text: str) -> Optional[list[tuple[tuple[int, int], tuple[int, int]]]]:
    """((line, col), (line, col)) character ranges to elide, outermost only, in order;
    None when the text does not tokenize (Python's own parser then says why) or
    brackets nest past Python's limit (its error, as PyPTO gets it, is kept)."""
    import io
    import tokenize
    spans: list = []
    opened: list = []                # per open bracket: (end of the bracket, tokens so far)
    n = 0                            # tokens so far (comments and blank lines not counted)
    stmt: list = []                  # the statement: [first token, tokens at its start, '=' end, last token]
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)

    def add(start, end):
        while spans and spans[-1][0] >= start:       # inner spans go with the outer one
            spans.pop()
        spans.append((start, end))

    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = tok.type
            if kind in skip:
                continue
            if kind == tokenize.ERRORTOKEN:          # not Python: its parser says where
                return None
            if kind in (tokenize.NEWLINE, tokenize.ENDMARKER) or \
                    kind == tokenize.OP and tok.string == ";" and not opened:
                # (`a = f(x); b = 2`: a `;` ends a statement as a newline does)
                if stmt and not opened:
                    _statement_tail(stmt, n, add)
                stmt = []
                continue
            if not stmt:
                stmt = [tok, n, None, tok]
            n += 1
            if kind == tokenize.OP:
                if tok.string in "([{":
                    opened.append((tok.end, n))
                    if len(opened) > 200:
                        return None
                elif tok.string in ")]}" and opened:
                    start, at = opened.pop()
                    if (n - 1 - at > ELIDE_TOKENS or _chars(start, tok.start) > ELIDE_CHARS) \
                            and stmt[0].string not in _NO_GROUPS:
                        add(start, tok.start)
                elif tok.string == "=" and not opened:
                    stmt[2] = (tok.end, n)
            stmt[3] = tok
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return spans


def _chars(start, end) -> int:
    """The characters between two (line, col) positions on one line (0 on two: a group
    over many lines counts by its tokens)."""
    return end[1] - start[1] if start[0] == end[0] else 0


# statements whose brackets hold names, not values: `_( )` there is not Python
_NO_GROUPS = {"def", "async", "import", "from"}


_NO_TAIL = {"def", "class", "import", "from", "for", "with", "async", "try", "except",
            "finally", "else", "global", "nonlocal", "pass", "break", "continue", "lambda",
            "match", "case"}


def _statement_tail(stmt, n_end, add) -> None:
    """Elide the value of a long statement: after its last top-level `=`, after a
    leading `return`/`assert`/`del`/`raise`/`yield`, between `if`/`elif`/`while` and
    the closing `:`, or the whole of an expression statement."""
    first, n_start, eq, last = stmt
    tokens = n_end - n_start
    one_line = first.start[0] == last.end[0]
    long = tokens > ELIDE_TOKENS or one_line and last.end[1] - first.start[1] > ELIDE_CHARS
    if not long or first.string == "@" or first.string in _NO_TAIL:
        return
    if eq is not None:
        start = eq[0]
    elif first.string in ("return", "assert", "del", "raise", "yield", "await"):
        start = first.end
    elif first.string in ("if", "elif", "while"):
        if last.string != ":":
            return
        add(first.end, last.start)
        return
    elif last.string == ":":
        return                       # another block header: its body must stay its body
    else:
        start = first.start
    add(start, last.end)


def _skeleton(text: str) -> Optional[tuple[str, list]]:
    """The text with its long groups and values elided (see above) and the elided
    spans, or None when there is nothing to elide or the text does not tokenize."""
    if "\x00" in text or _LONE_CR.search(text):
        return None                  # Python's error, or its lines, are not tokenize's
    spans = _elided_spans(text)
    if not spans:
        return None
    starts = _line_starts(text)

    def offset(pos):
        return starts[pos[0] - 1] + pos[1]

    out = []
    at = 0
    for start, end in spans:
        a, b = offset(start), offset(end)
        out.append(text[at:a])
        out.append(_padding(text[a:b]))
        at = b
    out.append(text[at:])
    return "".join(out), spans


def _padding(seg: str) -> str:
    """``_( )`` in the space of ``seg``: its newlines kept, each other character a space
    per UTF-8 byte (Python's columns are bytes)."""
    width = len if seg.isascii() else (lambda run: len(run.encode("utf-8", "surrogatepass")))
    blank = _NOT_NEWLINE.sub(lambda m: " " * width(m.group()), seg)
    first = blank.find(" ")
    last = blank.rfind(" ")
    if first < 0 or blank[first + 1:first + 2] != " " or last <= first + 1:
        return seg                   # cannot happen for a span past the thresholds
    return blank[:first] + _ELIDED + "(" + blank[first + 2:last] + ")" + blank[last + 1:]


_NOT_NEWLINE = re.compile(r"[^\n\r]+")


def _holds_elided(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == _ELIDED
               for n in ast.walk(node))


def _line_starts(text: str) -> "array":
    """The offset of each line's first character (8 bytes a line)."""
    from array import array
    starts = array("q", [0])
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _exact(node: ast.expr, text: str, starts) -> Optional[ast.expr]:
    """``node`` of the skeleton parsed again from the file's text (same positions), or
    None when its text is longer than EXACT_CHARS or is not one expression."""
    def offset(line, col_bytes):             # Python's columns are UTF-8 bytes
        a = starts[line - 1]
        b = starts[line] if line < len(starts) else len(text)
        return a + len(text[a:b].encode("utf-8", "surrogatepass")[:col_bytes]
                       .decode("utf-8", "surrogatepass"))
    if node.end_lineno is None or node.end_lineno - node.lineno > EXACT_CHARS:
        return None
    a, b = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
    if b - a > EXACT_CHARS:
        return None
    seg = text[a:b]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse("(" + seg + "\n)", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _restore_elided(tree: ast.Module, text: str, path: str) -> None:
    """Put back, parsed exactly, what the scan reads and the skeleton elided: the values
    of assignments (constants; too long: not a constant) and the decorators of classes
    (a program's keyword arguments; too long: an error)."""
    starts = _line_starts(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                and _holds_elided(node.value):
            exact = _exact(node.value, text, starts)
            node.value = exact if exact is not None else \
                ast.copy_location(ast.Constant(None), node.value)   # folds to nothing
        elif isinstance(node, ast.ClassDef):
            for i, d in enumerate(node.decorator_list):
                if _holds_elided(d):
                    exact = _exact(d, text, starts)
                    if exact is None:
                        raise TilememError(path, d.lineno, d.col_offset + 1,
                                           f"decorator too long to read (over {EXACT_CHARS:,} "
                                           f"characters)", source=text)
                    node.decorator_list[i] = exact


def _parse(text: str, path: str) -> tuple[ast.Module, Optional[str]]:
    """The module's syntax tree, and the text it was parsed from when that is a
    skeleton (else None)."""
    elided = _skeleton(text) if _LONG_LINE.search(text) else None

    def parse(src):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # e.g. invalid escape sequences
            return ast.parse(src, filename=path)
    try:
        try:
            if elided is None:
                return parse(text), None
            return parse(elided[0]), elided[0]
        except SyntaxError as e:
            # an error off the elided lines is the file's; on them it may be `_( )` where
            # Python wants names (or the file's own, hidden): the whole text decides
            if elided is None or not any(a[0] <= (e.lineno or 0) <= b[0] for a, b in elided[1]):
                raise
            return parse(text), None
        except (RecursionError, MemoryError):
            if elided is not None:
                raise
            # past the construction depth on short lines: elide and try once more
            elided = _skeleton(text)
            if elided is None:
                raise
            return parse(elided[0]), elided[0]
    except SyntaxError as e:
        line = e.lineno or 1
        col = e.offset or 1
        raise TilememError(path, line, col, f"invalid Python: {e.msg}", source=text) from None
    except (RecursionError, MemoryError) as e:
        line, col = _largest_statement(text)
        what = "nested too deeply" if isinstance(e, RecursionError) else "too large"
        raise TilememError(path, line, col, f"invalid Python: this statement is {what} for "
                           f"Python's parser (PyPTO, which imports the module with Python, "
                           f"cannot read it either)", source=text) from None
    except (ValueError, OverflowError) as e:
        raise TilememError(path, 1, 1, f"invalid Python: {e}", source=text) from None


def _largest_statement(text: str) -> tuple[int, int]:
    """(line, col) of the statement of the most tokens (where Python's parser ran out)."""
    import io
    import tokenize
    best, where, n, first = -1, (1, 1), 0, None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if first is not None and n > best:
                    best, where = n, (first.start[0], first.start[1] + 1)
                n, first = 0, None
            elif tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
                first = first or tok
                n += 1
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    return where


def scan_module(text: str, path: str) -> tuple[ModuleScope, list[ProgramSite]]:
    """The module's scope and its program classes, in source order.

    Raises TilememError for text that is not Python (with Python's own message
    and position)."""
    tree, skeleton = _parse(text, path)
    if skeleton is not None:
        _restore_elided(tree, text, path)
    scope = ModuleScope()
    _scan_imports(tree.body, scope.aliases)
    aliases = scope.aliases
    sites: list[ProgramSite] = []

    def visit(body: list, names: dict, fenv: Optional[dict], in_class: bool = False) -> None:
        """Walk a block in order.  ``names``: what code directly in it sees, updated as
        its statements bind; ``fenv``: what a function defined in it starts from (None:
        ``names`` as bound at the def -- in a function; a class body's own names are not
        seen by the functions it defines)."""
        for s in body:
            if isinstance(s, ast.ClassDef):
                decos = [d for d in s.decorator_list if _is_program_decorator(d, aliases)]
                if decos:
                    first = min(d.lineno for d in s.decorator_list)
                    sites.append(ProgramSite(s.name, first, s.end_lineno or s.lineno, s.col_offset,
                                             _strict_ssa(decos[0]), s, dict(names)))
                else:
                    # a class body's own names: PyPTO reads a program's bodies with them
                    # (its caller frame's locals) but Python evaluates the signatures
                    # without them -- neither is modelled: the program does not see them
                    own = dict(names)
                    for n in _assigned(s.body):
                        own.pop(n, None)
                    visit(s.body, own, dict(fenv if fenv is not None else names), in_class=True)
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(s.body, dict(fenv if fenv is not None else names), None)
            elif isinstance(s, _BLOCKS) or type(s).__name__ == "TryStar":
                if not in_class:
                    _assign(s, aliases, names)     # a loop's or a with's own targets
                failed = FAILED in names
                for b in _blocks_of(s):
                    visit(b, names, fenv, in_class)
                if not failed:
                    names.pop(FAILED, None)        # a block may not run (or catch it): not sure
            if not in_class:
                _assign(s, aliases, names)

    # a function runs after its module: it sees every module-level name
    module_final: dict = {}
    _flat(tree.body, aliases, module_final)
    scope.constants = module_final
    # a statement Python fails on at module level: the module never imports, no program is read
    scope.failed = module_final.get(FAILED)
    visit(tree.body, {}, module_final)
    del visit        # it refers to itself: a cycle, which a command (no cyclic collector) keeps
    sites.sort(key=lambda p: p.first_line)
    return scope, sites


def _assigned(body: list) -> set:
    """Every name a block binds by assignment (its nested blocks included, not the
    bodies of the functions and classes it defines)."""
    out: set = set()
    for s in body:
        if isinstance(s, ast.Assign):
            for t in s.targets:
                out.update(_bound_names(t))
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            out.update(_bound_names(s.target))
        elif isinstance(s, _BLOCKS) or type(s).__name__ == "TryStar":
            if isinstance(s, (ast.For, ast.AsyncFor)):
                out.update(_bound_names(s.target))
            for b in _blocks_of(s):
                out |= _assigned(b)
    return out


_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)


def _blocks_of(s: ast.stmt) -> list:
    out = [getattr(s, part, None) or [] for part in ("body", "orelse", "finalbody")]
    out += [h.body for h in getattr(s, "handlers", None) or []]
    out += [c.body for c in getattr(s, "cases", None) or []]
    return out


def _flat(body: list, aliases: set, into: dict) -> None:
    """The names a block leaves bound, its nested blocks (not functions, not classes) read
    in order."""
    for s in body:
        if isinstance(s, _BLOCKS) or type(s).__name__ == "TryStar":
            _assign(s, aliases, into)
            failed = FAILED in into
            for b in _blocks_of(s):
                _flat(b, aliases, into)
            if not failed:
                into.pop(FAILED, None)             # a block may not run (or catch it): not sure
        _assign(s, aliases, into)
