"""The printed-form reader's scanner and LALR(1) driver, over the tables lark computes
from ``grammar/pto.lark`` (:mod:`tilemem.frontend.tables`): tokens in, the builder's
callbacks run at each reduction, error recovery for lines the grammar does not model."""
from __future__ import annotations

import functools
import re
import re._constants as _sre
import re._parser as _sre_parser
from itertools import chain
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.frontend.indenter import PtoIndenter
from tilemem.frontend.repeats import Template
from tilemem.frontend.tokens import Reread, SyntaxProblem, Tree, UnexpectedToken, as_token

if TYPE_CHECKING:
    from tilemem.frontend.ir_builder import Builder





# ----------------------------------------------------------------------------- parser construction

def _rule_callback(method, expand1: bool, include, append_none: int):
    """What a reduction by one rule builds from the values it pops: lark's child shaping
    (filtered tokens dropped, inlined ``_rules`` spliced in, ``[x]`` absent -> None, a
    ``?rule``'s single child passed through), then the transformer's method."""
    if include is None and not append_none:
        if not expand1:
            return method
        return lambda children: children[0] if len(children) == 1 else method(children)
    if not append_none and not any(inline or nones for _, inline, nones in include):
        # only tokens filtered out (the common case: `primary "." NAME`, `args "," argument`)
        keep = [i for i, _, _ in include]
        if len(keep) == 1:
            (a,) = keep
            if expand1:
                return lambda children: children[a]
            return lambda children: method([children[a]])
        if len(keep) == 2 and not expand1:
            a, b = keep
            return lambda children: method([children[a], children[b]])

    def shaped(children):
        kept = []
        for i, inline, nones in include:
            if nones:
                kept += [None] * nones
            if inline:
                kept += children[i].children
            else:
                kept.append(children[i])
        if append_none:
            kept += [None] * append_none
        if expand1 and len(kept) == 1:
            return kept[0]
        return method(kept)
    return shaped


#: the scanner matches a text in stretches of about this many characters (findall: a
#: pair of strings a token, no match object), each ending where no token goes on (_stretch_end)
STRETCH = 1 << 14
_NO_CUT_AFTER = frozenset(" \t\f\r\n\\")


def _stretch_end(text: str, start: int) -> int:
    """Where the stretch of ``text`` from ``start`` (a token's start) that the scanner
    matches on its own ends: the text's end, or a newline ~STRETCH characters on that no
    token holds, so that matching up to it gives the tokens matching the whole text gives
    (the terminals have no anchors or lookaround: a match ending before it is found there
    either way).  A token holding a newline is a newline run (or a ``\\`` line
    continuation), which holds no other character than blanks, or a triple-quoted string:
    a newline after a visible character other than ``\\`` starts a token, unless a
    string opened before it on the stretch holds it.  -1: none near (a long line, a
    triple quote): the scanner then goes one match at a time past ~STRETCH characters."""
    n = len(text)
    if n - start <= STRETCH:
        return n
    end = text.find("\n", start + STRETCH, start + 4 * STRETCH)
    if end < 0:
        return -1
    if text[end - 1] == "\r":
        end -= 1
    if (end <= start or text[end - 1] in _NO_CUT_AFTER or text.find('"""', start, end) >= 0
            or text.find("'''", start, end) >= 0):
        return -1
    return end


def _pairs_past(matches, stop: int):
    """The (blanks, text) pairs of ``matches``, up to the first that ends at ``stop`` or past it."""
    for m in matches:
        yield m.groups()
        if m.end() >= stop:
            return


def _lines_after(value: str, pos: int, line: int, line_start: int) -> tuple[int, int]:
    """(line, offset of that line's start) after a token that may hold newlines, at ``pos``."""
    k = value.count("\n")
    if k:
        return line + k, pos + value.rindex("\n") + 1
    return line, line_start


#: terminals that stand for several of the grammar's tokens (see grammar/pto.lark): read
#: as one token where the grammar takes them, else as their parts (Driver.parts)
COMPOUND = ("DOTTED", "INTLIST")
_COLON = "COLON"
#: the "terminal" of a compound text the tokenizer yields as its parts (Driver._as_parts)
_PARTS = {f"({name} parts)": name for name in COMPOUND}

#: distinct token texts whose terminal a driver remembers (then it starts over; MTP's
#: 767,614 tokens are 15,684 texts)
KINDS_MAX = 1 << 16

#: distinct annotation texts whose first reading a driver keeps (then, at the start of a
#: text, it starts over; the 352 real kernels hold ~9,000, a kernel 20-900)
ANNOTATIONS_MAX = 1 << 14


def _uncaptured(regexp: str) -> Optional[str]:
    """``regexp`` with its capturing groups made non-capturing (the same language), or
    None when whether it matches may depend on the text around the match (anchors,
    ``\\b``, lookaround) or it refers to a group (backreferences, conditionals): then
    a token's terminal is not a function of its text alone (see :meth:`Driver._kind`)."""
    out = []
    i, n = 0, len(regexp)
    in_class = False
    while i < n:
        c = regexp[i]
        if c == "\\":
            if regexp[i + 1:i + 2] in ("b", "B", "A", "Z") or regexp[i + 1:i + 2].isdigit():
                return None
            out.append(regexp[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            if regexp.startswith("^", i):
                out.append("^")
                i += 1
            if regexp.startswith("]", i):      # a leading `]` is a member
                out.append("]")
                i += 1
            continue
        elif c in "^$":
            return None
        elif c == "(":
            if not regexp.startswith("?", i + 1):
                c = "(?:"
            elif regexp[i + 2:i + 3] in ("=", "!", "<", "(") or regexp.startswith("P=", i + 2):
                return None
        out.append(c)
        i += 1
    return "".join(out)


def _punctuation_first(regexp: str) -> bool:
    """Whether every match of ``regexp`` starts with one escaped punctuation character
    (``\\[...``: no alternation at its top, nothing before the character)."""
    return (len(regexp) > 1 and regexp[0] == "\\" and not (regexp[1].isalnum() or regexp[1] == "_")
            and regexp[2:3] not in ("*", "?", "{") and "|" not in regexp)


def _scanner(lexed):
    """The scanner of :meth:`Driver.tokens` (``([ \\t\\f]*)(TERMINAL|...|ANY CHARACTER)``:
    the blanks and the text of each token, in the tokenizer's match order), each terminal's
    whole-text matcher and the characters its matches can start with (:func:`_first_chars`:
    a set of code points, or None); (None, (), ()) when a terminal's regexp cannot be made
    group-free (then every text is lexed the exact way)."""
    plain = [(name, _uncaptured(r)) for name, r in lexed]
    try:
        if any(r is None for _, r in plain):
            return None, (), ()
        alts = [r for _, r in plain]
        for i, d in enumerate(alts):
            # `N(?:\.N)++` before `N` (DOTTED, NAME): one alternative `N(?:\.N)*+` in the
            # first one's place matches what the two match (N holds no dot), in one pass
            # over a name -- when what stands between them starts with punctuation (an
            # INTLIST's `\[`), never where a name does
            n = next((n for n in alts[i + 1:] if d == rf"{n}(?:\.{n})++"), None)
            if n is not None and "." not in n and "\\" not in n:
                j = alts.index(n)
                if all(_punctuation_first(r) for r in alts[i + 1:j]):
                    alts[i] = rf"{n}(?:\.{n})*+"
                    del alts[j]
                break
        regexps = [r for _, r in plain]
        alts, firsts = _scan_data(alts, regexps)
        scanner = re.compile(r"([ \t\f]*)(" + "|".join(f"(?:{r})" for r in alts) + r"|[\s\S])")
        if scanner.groups != 2:         # a terminal's regexp still holds a group
            return None, (), ()
        return scanner, tuple((name, _FullMatch(r)) for name, r in plain), tuple(firsts)
    except re.error:        # pragma: no cover - lark's own regexps compile
        return None, (), ()


#: the version of the scan data kept in the cache (_scan_data)
_SCAN_ORDER_FORMAT = 2


def _scan_data(alts: list, regexps: list) -> tuple:
    """(``alts`` in the order :func:`_scan_order` gives, the first characters of the
    matches of each of ``regexps``, :func:`_first_chars`), which tilemem's per-user cache
    keeps by their texts (working them out parses every regexp: ~4.6 M instructions of
    every start, where reading them back costs a small file)."""
    from tilemem.cache import cached_data

    def checked(data) -> tuple:
        order, firsts = data
        if sorted(order) != list(range(len(alts))):
            raise ValueError("not an order of these alternatives")
        if len(firsts) != len(regexps) or not all(f is None or type(f) is list for f in firsts):
            raise ValueError("not the first characters of these regexps")
        return [alts[i] for i in order], [None if f is None else frozenset(f) for f in firsts]

    def build() -> list:
        firsts = [_first_chars(_sre_parser.parse(r)) for r in regexps]
        return [_scan_order(alts), [None if f is None else sorted(f) for f in firsts]]
    key = "\0".join((str(_SCAN_ORDER_FORMAT), *alts, "", *regexps)).encode("utf-8")
    return cached_data("pto_scan_order", (key,), build, checked)


def _scan_order(alts: list) -> list:
    """An order of the scanner's alternatives ``alts`` (given in the tokenizer's match order;
    the indices) that matches the same text at every position, those the regex engine
    rejects by testing one character first.

    The engine tries the alternatives in turn, and one that starts with a character (or a
    set of them: ``,``, ``\\[``, a name's first letter) is passed over after one test, where
    one that starts with a repeat or a group of alternatives (a float's digits, a string's
    quotes, a newline's ``\\r?``) is entered first; a token of punctuation came after ~15 of
    them.  Two alternatives that no text can make both match at one position -- no
    character can start a match of both -- can trade places: which one matches there
    does not depend on their order.  Every other pair keeps its order (an alternative whose
    first characters are not known, or that may match the empty text, keeps its place
    among all), so the first to match at each position is the same alternative."""
    parsed = [_sre_parser.parse(r) for r in alts]
    firsts = [_first_chars(p) for p in parsed]
    cost = [_rejection_cost(p) for p in parsed]
    # before[i]: the alternatives that must stay before alternative i
    before = [{j for j in range(i) if firsts[i] is None or firsts[j] is None
               or not firsts[i].isdisjoint(firsts[j])} for i in range(len(alts))]
    order: list = []
    left = list(range(len(alts)))
    while left:
        placed = set(order)
        i = min((i for i in left if before[i] <= placed), key=lambda i: (cost[i], i))
        order.append(i)
        left.remove(i)
    return order


def _rejection_cost(parsed) -> int:
    """0: a match starts with one character or character set (the engine rejects the
    alternative after one test); 1: with a group of such alternatives; 2: otherwise."""
    if not parsed:
        return 2
    op, arg = parsed[0]
    if op is _sre.LITERAL or op is _sre.IN:
        return 0
    if op is _sre.BRANCH and all(_rejection_cost(p) == 0 for p in arg[1]):
        return 1
    return 2


def _first_chars(parsed) -> Optional[set]:
    """The characters (code points) a match of ``parsed`` (a parsed regexp) can start with;
    None when not known (a regexp that ignores case), or when it may match the empty text."""
    state = getattr(parsed, "state", None)
    if state is not None and state.flags & re.IGNORECASE:
        return None
    chars, empty = _first_of_sequence(parsed)
    return None if empty else chars


def _first_of_sequence(items) -> tuple[Optional[set], bool]:
    """(the first characters of a sequence's matches or None, whether it may match the
    empty text)."""
    out: set = set()
    for op, arg in items:
        chars, empty = _first_of_item(op, arg)
        if chars is None:
            return None, False
        out |= chars
        if not empty:
            return out, False
    return out, True


def _first_of_item(op, arg) -> tuple[Optional[set], bool]:
    if op is _sre.LITERAL:
        return {arg}, False
    if op is _sre.IN:
        chars = set()
        for kind, value in arg:
            if kind is _sre.LITERAL:
                chars.add(value)
            elif kind is _sre.RANGE and value[1] - value[0] < 256:
                chars.update(range(value[0], value[1] + 1))
            else:       # a negated set, a category (\d, \s), a wide range: not known
                return None, False
        return chars, False
    if op is _sre.SUBPATTERN:
        _, add_flags, del_flags, items = arg
        return (None, False) if add_flags or del_flags else _first_of_sequence(items)
    if op is _sre.BRANCH:
        out, empty = set(), False
        for items in arg[1]:
            chars, e = _first_of_sequence(items)
            if chars is None:
                return None, False
            out |= chars
            empty = empty or e
        return out, empty
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
        low, _, items = arg
        chars, empty = _first_of_sequence(items)
        return chars, empty or low == 0
    return None, False


#: a character of an annotation text whose tokens do not depend on what stands around it:
#: no quote, comment, newline, backslash, `:` or `;`, and none that no terminal starts with
_ANNOTATION_CHAR = r"[A-Za-z0-9_ \t.,=+\-*/%<>&|^~]"


def _bracketed(depth: int) -> str:
    """An item of a subscript's text: a character or a (...) / [...] group, ``depth`` deep."""
    item = _ANNOTATION_CHAR
    for _ in range(depth):
        item = rf"(?:{_ANNOTATION_CHAR}|\[{item}*+\]|\({item}*+\))"
    return item


#: an annotated assignment's annotation (group 1: a name or dotted name, subscripted or
#: not, on one line) after its `:`, up to the `=` that follows it (see Driver.parse)
_ANNOTATION = re.compile(rf"[ \t]*([A-Za-z_][A-Za-z0-9_.]*(?:\[{_bracketed(3)}*+\])?)[ \t]*=(?!=)")


def _annotation_states(table: list) -> Optional[tuple]:
    """The annotated assignment's states: the one after ``NAME ":"`` (the annotation next),
    the one after the annotation (its goto, on the lookahead ``=``) and the one after that
    ``=``; None unless the grammar has exactly one such state."""
    found = []
    for row in table:
        colon = row.get("COLON")
        if colon is None or not colon[0]:
            continue
        ann = colon[1]
        goto = ann.get("expr")
        if not isinstance(goto, _Goto) or any(ann is f[0] for f in found):
            continue
        after = goto["EQUAL"]
        eq = after.get("EQUAL")
        if eq is not None and eq[0]:
            found.append((ann, after, eq[1]))
    return found[0] if len(found) == 1 else None


class _FullMatch:
    """``re.compile(regexp).fullmatch``, compiled when first called: a terminal's own
    matcher is asked only for a text the scanner has not typed yet, and a small kernel
    asks a few of them (each compile: ~0.3 M instructions of a start)."""
    __slots__ = ("regexp", "fullmatch")

    def __init__(self, regexp: str):
        self.regexp, self.fullmatch = regexp, None

    def __call__(self, value: str):
        if self.fullmatch is None:
            self.fullmatch = re.compile(self.regexp).fullmatch
        return self.fullmatch(value)


class _Goto(dict):
    """A row's goto on a rule, by the lookahead: ``{lookahead: row}``, the row the parser is
    in after the goto to ``target`` and the reductions by pass-through rules (``?rule: x``)
    that follow it on that lookahead.  Such a reduction changes the top state only, to the
    goto from the state below (``row``, which stays) on its rule: where such a chain ends
    depends on ``row``, the rule and the lookahead alone, so the parser takes it in one
    step.  Each entry is found when first asked (most rows see a few lookaheads)."""
    __slots__ = ("row", "target")     # (set by Driver: no __init__ of its own, made at every start)

    def __missing__(self, lookahead: str) -> dict:
        state = self.target
        seen = []
        while not any(s is state for s in seen):
            action = state.get(lookahead)
            if action is None or action[0] or action[1][1] is not None or action[1][0] != 1:
                break       # not a reduction by a pass-through rule (callback None, one child)
            seen.append(state)
            state = self.row[action[1][2]].target
        self[lookahead] = state
        return state


class Driver:
    """An LALR driver over the grammar's tables (:mod:`tilemem.frontend.tables`).

    It runs the rule callbacks (the embedded transformer) as it reduces and takes its
    tokens from the postlexer, which takes them from a tokenizer compiled from the
    grammar's terminals (one regex match per token, leading blanks included).
    """

    def __init__(self, data: dict, builder: "Builder"):
        self.literals = data["literals"]
        name_re = re.compile(next(r for n, r in data["terminals"] if n == "NAME") + r"\Z")
        self.keywords = {}
        lexed = []      # (name, regexp) of the terminals the tokenizer matches, in lark's order
        for name, regexp in data["terminals"]:
            lit = self.literals.get(name)
            if lit is not None and name_re.match(lit):
                self.keywords[lit] = name       # lexed as NAME, then re-typed
                continue
            lexed.append((name, regexp))
        # Leading blanks are skipped inside the same match (one regex call per token).
        self._lexed = lexed
        self.scanner, self.terminals, self.firsts = _scanner(lexed)
        self.kinds: dict = {}       # token text -> terminal (see _kind)
        self.by_first: dict = {}    # a text's first character -> the terminals it may start
        self.ignore = frozenset(data["ignore"])
        self.newline_types = frozenset(data["newline"])
        # (a `:` is rare too: after one the parser may ask to pass an annotation: `skip`)
        self.rare = self.ignore | self.newline_types | set(_PARTS) | {_COLON}
        start, end = data["start"], data["end"]
        reductions = []
        for origin, size, callback, expand1, include, append_none in data["rules"]:
            if size == 1 and expand1 and include is None and not append_none:
                cb = None       # `?rule: x` passes its only child through unchanged
            else:
                method = getattr(builder, callback, None)
                if method is None:
                    method = (lambda name: lambda children: Tree(name, children))(callback)
                cb = _rule_callback(method, expand1, include, append_none)
            reductions.append((size, cb, origin))
        symbols = data["symbols"]
        # a state is its row, so the parser's stack holds rows (one index a step instead of
        # two): {terminal: (True, next state's row) | (False, reduction), rule: _Goto}
        table = [{} for _ in data["states"]]
        for row, flat in zip(table, data["states"]):
            for k in range(0, len(flat), 2):
                action = flat[k + 1]
                sym = symbols[flat[k]]
                if not action & 1:
                    row[sym] = (False, reductions[action >> 1])
                elif sym.isupper():         # a terminal (lark's convention)
                    row[sym] = (True, table[action >> 1])
                else:
                    row[sym] = goto = _Goto()
                    goto.row, goto.target = row, table[action >> 1]
        self.start_state, self.end_state = table[start], table[end]
        # annotations read again where their text repeats (None: never; a builder that
        # types none, e.g. a tree builder)
        self.annotate = getattr(builder, "annotation", None)
        self.annotated = _annotation_states(table) if self.annotate is not None else None
        # annotation text -> its first reading (Template), False where one is not built
        # again: kept from one text to the next, as the kinds are (a reading depends on
        # the text alone: the builder keeps no state, the nodes and types are frozen), so
        # a batch or an editor reads each annotation once (-20% of the real kernels'
        # parse in one process)
        self.annotations: dict = {}

    @functools.cached_property
    def master(self):
        """The exact tokenizer's regex (one named group per terminal), compiled when a text
        needs it (:meth:`_tokens_exact`: where the scanner meets what no terminal matches)."""
        return re.compile(r"[ \t\f]*(?:" + "|".join(f"(?P<{n}>{r})" for n, r in self._lexed) + ")")

    def tokens(self, text: str, skip: Optional[list] = None):
        """The tokens of ``text``, with their positions.

        The scanner's two groups are the blanks before a token and its text (no group
        per terminal: a regex with one named group per terminal matches at half the
        speed); which terminal a text is does not depend on where it stands (see
        :meth:`_kind`), so it is looked up once per distinct text.  The scanner's last
        alternative takes any one character, so its matches follow each other without a
        gap: where no terminal matches, the rest of the text is lexed by
        :meth:`_tokens_exact`, which reports the error where the parser reaches it.
        (``finditer``, not ``findall``: the matches of a 1 MB line held at once cost
        ~50 bytes a byte.)

        ``skip``: a one-item list the parser may set while it holds a ``:`` token, to an
        offset on the same line where a token ends: the tokens from there to that offset
        are passed over, unseen (see :meth:`parse`)."""
        if skip is None:
            skip = [0]
        if self.scanner is None:
            return self._tokens_exact(text, skip=skip)
        return self._scanned(text, skip)

    def _scanned(self, text: str, skip: list):
        kinds = self.kinds
        kind = self._kind
        ignore = self.ignore
        nl_types = self.newline_types
        pos = 0
        line = 1
        line_start = 0
        rare = self.rare
        findall, finditer = self.scanner.findall, self.scanner.finditer
        n = len(text)
        while pos < n:
            end = _stretch_end(text, pos)
            if end >= 0:        # (blanks, text) pairs, no match object a token
                pairs = iter(findall(text, pos, end))
            else:
                pairs = _pairs_past(finditer(text, pos), pos + STRETCH)
            for blank, value in pairs:
                ttype = kinds.get(value)
                if ttype is None:
                    ttype = kind(value)
                    if ttype is None:
                        # the any-character alternative: up to here the scanner matched what
                        # the exact tokenizer matches (the same alternatives, first), and
                        # from here the exact tokenizer decides
                        yield from self._tokens_exact(text, pos, line, line_start, skip)
                        return
                    if len(kinds) >= KINDS_MAX:
                        kinds.clear()
                    kinds[value] = ttype
                if blank:
                    pos += len(blank)
                if ttype in rare:       # ignored, may hold newlines, a compound read as its parts, `:`
                    if ttype in _PARTS:
                        yield from self.parts(_PARTS[ttype], value, pos, line, pos - line_start + 1)
                    elif ttype not in ignore:
                        yield (ttype, value, pos, line, pos - line_start + 1)
                        if skip[0] > pos:       # the parser passes what follows, up to skip[0]
                            pos, stop = pos + len(value), skip[0]
                            for blank, value in pairs:
                                pos += len(blank) + len(value)
                                if pos >= stop:
                                    break
                            pos = stop      # (a stretch that ends before it: the next starts there)
                            continue
                    if ttype in nl_types:
                        line, line_start = _lines_after(value, pos, line, line_start)
                else:
                    yield (ttype, value, pos, line, pos - line_start + 1)
                pos += len(value)

    def _kind(self, value: str) -> Optional[str]:
        """The terminal of a token's text: the first in match order whose whole language
        holds it (None: none does).  The same as the tokenizer's named group: the first
        alternative that matches at a position wins, and (no anchors or lookaround) one
        that matches ``value`` whole matches at any position where ``value`` starts, so
        no alternative before the one that matched there holds ``value``.  Only the
        terminals a match of which may start with ``value``'s first character are asked
        (a name is asked of two, not six)."""
        ch = value[0]
        candidates = self.by_first.get(ch)
        if candidates is None:
            if len(self.by_first) >= 1024:
                self.by_first.clear()
            c = ord(ch)
            candidates = self.by_first[ch] = tuple(
                t for t, first in zip(self.terminals, self.firsts) if first is None or c in first)
        for name, whole in candidates:
            if whole(value):
                if name == "NAME":
                    return self.keywords.get(value, name)
                if name in COMPOUND and self._as_parts(name, value):
                    return f"({name} parts)"
                return name
        return None

    def _as_parts(self, ttype: str, value: str) -> bool:
        """Whether a compound text is always read as its parts: a DOTTED that holds a
        keyword (``True.x``, ``a.if``) or starts with a name the reader takes as a float
        (``inf.x``); the parser reads (or rejects) those tokens as before."""
        if ttype != "DOTTED":
            return False
        parts = value.split(".")
        return parts[0] in ("nan", "inf") or any(p in self.keywords for p in parts)

    def parts(self, ttype: str, value: str, pos: int, line: int, col: int) -> list:
        """The grammar's tokens (tuples) a compound text stands for: a DOTTED's NAME (or keyword)
        and DOT tokens, an INTLIST's ``[``, INT, ``,`` and ``]``."""
        out = []
        if ttype == "INTLIST":
            out.append(("LSQB", "[", pos, line, col))
            for i, digits in enumerate(value[1:-1].split(", ")):
                if i:
                    out.append(("COMMA", ",", pos + 1, line, col + 1))
                    pos += 2
                    col += 2
                out.append(("INT", digits, pos + 1, line, col + 1))
                pos += len(digits)
                col += len(digits)
            out.append(("RSQB", "]", pos + 1, line, col + 1))
            return out
        keywords = self.keywords
        for i, part in enumerate(value.split(".")):
            if i:
                out.append(("DOT", ".", pos, line, col))
                pos += 1
                col += 1
            out.append((keywords.get(part, "NAME"), part, pos, line, col))
            pos += len(part)
            col += len(part)
        return out

    def _tokens_exact(self, text: str, pos: int = 0, line: int = 1, line_start: int = 0,
                      skip: Optional[list] = None):
        """One regex match per token, its terminal the named group that matched: the
        tokenizer from where the scanner meets a character no terminal matches (its
        error is raised lazily, where the parser reaches it, as lark's lexer does)."""
        match = self.master.match
        keywords = self.keywords
        ignore = self.ignore
        nl_types = self.newline_types
        n = len(text)
        while pos < n:
            m = match(text, pos)
            if m is None:
                ch = text[pos]
                col = pos - line_start + 1
                if ch in "\"'":
                    raise SyntaxProblem("unterminated string literal", line, col)
                shown = repr(ch) if not ch.isprintable() else f"'{ch}'"
                raise SyntaxProblem(f"unexpected character {shown}", line, col)
            ttype = m.lastgroup
            value = m.group(ttype)
            end = m.end()
            pos = end - len(value)
            if ttype not in ignore:
                if ttype == "NAME":
                    ttype = keywords.get(value, "NAME")
                elif ttype in COMPOUND and self._as_parts(ttype, value):
                    yield from self.parts(ttype, value, pos, line, pos - line_start + 1)
                    pos = end
                    continue
                yield (ttype, value, pos, line, pos - line_start + 1)
                if skip is not None and skip[0] > pos:      # (see tokens)
                    pos = skip[0]
                    continue
            if ttype in nl_types:
                line, line_start = _lines_after(value, pos, line, line_start)
            pos = end

    def parse(self, text: str, postlexer: PtoIndenter):
        # the stack: the rows below the top (`states`) and the top row (`state`); a value
        # per symbol, the top one's last
        state = self.start_state
        states: list = []
        values: list = []
        tok = None
        checkpoint = None       # (stack depth, len(values), token) at the start of the current statement
        skip = [0]
        stream = tokens = postlexer.process(self.tokens(text, skip))
        push_state, push_value = states.append, values.append
        # annotations by their text: the first reading of each (Template), False where
        # one is not built again (self.annotations); `record`: the one being read for the
        # first time, until its `=` (`watch`, the state a shift is checked against: the
        # one after `NAME :`, or after the `=` while one is read)
        ann_state, ann_after, ann_eq = self.annotated or ((), (), ())
        ann_match, annotate = _ANNOTATION.match, self.annotate
        memo = self.annotations
        if len(memo) >= ANNOTATIONS_MAX:
            memo.clear()
        record = None
        watch = ann_state
        while True:
            try:
                for tok in stream:
                    ttype = tok[0]
                    while True:
                        try:
                            shift, arg = state[ttype]
                        except KeyError:
                            if ttype in COMPOUND:      # where the grammar takes none: as its parts
                                parts = self.parts(*tok)
                                if tok is postlexer.line_first:
                                    postlexer.line_first = parts[0]
                                if tok is postlexer.stmt_first:
                                    postlexer.stmt_first = parts[0]
                                raise Reread(parts) from None
                            if tok is postlexer.stmt_first:     # the statement's first token is already unexpected
                                checkpoint = (len(states) + 1, len(values), tok)    # (e.g. `import` in a host body)
                            push_state(state)
                            if not self._recover(tok, stream, checkpoint, states, values, text, postlexer):
                                raise UnexpectedToken(as_token(tok), {k for k in state if k.isupper()}) from None
                            state = states.pop()
                            break
                        if shift:
                            if tok is postlexer.stmt_first:
                                checkpoint = (len(states) + 1, len(values), tok)
                            push_state(state)
                            state = arg
                            push_value(tok)
                            if arg is not watch:
                                break
                            if arg is ann_state:        # `NAME :` read: an annotation next
                                m = ann_match(text, tok[2] + 1)
                                if m is None:
                                    break
                                key = m.group(1)
                                col = tok[4] + m.start(1) - tok[2]
                                template = memo.get(key)
                                if template is None:
                                    record = (key, m.end() - 1, len(states), len(values), tok[3], col)
                                    watch = ann_eq
                                    break
                                pair = template.at(tok[3], col) if template else None
                                if pair is None:
                                    memo[key] = False
                                    break
                                # read before: its tokens pass unseen (the scanner is
                                # at this `:`), its nodes are built again here, and the
                                # parser is where its goto on `=` leads
                                skip[0] = m.end(1)
                                tok = next(stream)
                                if tok[2] != m.end() - 1:   # pragma: no cover - the text's `=`
                                    raise RuntimeError("an annotation not followed by its '='")
                                push_state(state)
                                state = ann_after
                                push_value(pair)
                                ttype = tok[0]
                                continue
                            # the `=` after an annotation read for the first time (or, where
                            # that statement was not one the grammar reads, a later one's)
                            key, eq_pos, depth, vdepth, line, col = record
                            watch = ann_state
                            if tok[2] == eq_pos:
                                if len(states) == depth + 2 and len(values) == vdepth + 2:
                                    pair = values[-2] = annotate(values[-2])
                                    memo[key] = Template(pair[0], pair[1], line, col)
                                else:       # pragma: no cover - the grammar's shape
                                    memo[key] = False
                            break
                        size, callback, origin = arg
                        if size == 1:
                            below = states[-1]
                            if callback is not None:
                                values[-1] = callback([values[-1]])
                        elif size:
                            below = states[-size]
                            del states[1 - size:]
                            children = values[-size:]
                            del values[1 - size:]
                            values[-1] = callback(children)
                        else:
                            below = state
                            push_state(state)
                            push_value(callback([]))
                        # the goto, and the reductions by pass-through rules that follow it
                        state = below[origin][ttype]
            except Reread as reread:     # (a compound comes from `tokens`: no earlier parts are left)
                stream = chain(postlexer.passed_on(reread.tokens), tokens)
                continue
            break
        end_tok = ("$END", "", tok[2], tok[3], tok[4]) if tok is not None else ("$END", "", 0, 1, 1)
        states.append(state)
        return self._feed(end_tok, states, values)

    def _feed(self, tok: tuple, states: list, values: list):
        """Feed one token (the slow path: recovery and end of input); returns the result at $END."""
        end_state = self.end_state
        is_end = tok[0] == "$END"
        while True:
            row = states[-1]
            try:
                shift, arg = row[tok[0]]
            except KeyError:
                raise UnexpectedToken(as_token(tok), {k for k in row if k.isupper()}) from None
            if shift:
                states.append(arg)
                values.append(tok)
                return None
            size, callback, origin = arg
            if size:
                children = values[-size:]
                del states[-size:]
                del values[-size:]
            else:
                children = []
            values.append(children[0] if callback is None else callback(children))
            states.append(states[-1][origin].target)
            if is_end and states[-1] is end_state:
                return values[-1]

    def _recover(self, bad: tuple, stream, checkpoint, states, values, text, postlexer) -> bool:
        """Turn an unparsable but valid-Python simple statement into an OPAQUE_LINE.

        Only for a statement where the grammar accepts a simple statement (function
        bodies), and only if Python itself accepts the statement's text: real syntax
        errors are still reported.
        """
        if checkpoint is None or bad[0] in ("_INDENT", "_DEDENT", "$END"):
            return False
        depth, vdepth, first = checkpoint
        # states[depth - 1] is the state in which `first` was shifted: the statement start
        if first is not postlexer.stmt_first or "OPAQUE_LINE" not in states[depth - 1]:
            return False
        nl = bad
        while True:
            # the statement ends at the end of the line or at a `;` (`x += 1; y = 2`) -- but
            # not at a `;` after a compound statement's header: `if c: x += 1; y = 2` is one
            # `if` whose body holds both
            while nl[0] != "_NL" and nl[0] != "SEMICOLON":
                nl = next(stream, None)
                if nl is None or nl[0] in ("_INDENT", "_DEDENT"):
                    return False
            src = text[first[2]:nl[2]].rstrip()
            if nl[0] == "_NL" or _python_statement_kind(src) != "compound":
                break
            nl = next(stream, None)
            if nl is None:
                return False
        if not _python_simple_statement(src):
            return False
        del states[depth:]
        del values[vdepth:]
        opaque = ("OPAQUE_LINE", src, first[2], first[3], first[4])
        self._feed(opaque, states, values)
        self._feed(nl, states, values)
        return True


def _python_simple_statement(src: str) -> bool:
    """Whether ``src`` is one complete Python statement (a construct tilemem does not model)."""
    return _python_statement_kind(src) is not None


def _python_statement_kind(src: str) -> Optional[str]:
    """``"simple"`` or ``"compound"`` (one with a body: ``if c: x += 1``) when ``src`` is one
    complete Python statement, else None."""
    if not src or src.endswith(":"):
        return None
    try:
        import ast          # only for a line the grammar does not model
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # e.g. invalid escape sequences
            mod = ast.parse(src)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None
    if len(mod.body) != 1:
        return None
    return "compound" if hasattr(mod.body[0], "body") else "simple"
