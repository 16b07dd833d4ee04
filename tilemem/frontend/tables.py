"""The printed-form reader's LALR tables as plain data, so that reading never imports lark.

lark analyses ``grammar/pto.lark`` (its LALR(1) table, its terminals in match order, and
how each rule shapes its children: which tokens are filtered out, which ``_rules`` are
inlined, where ``[x]`` puts a ``None``).  That analysis is a pure function of the grammar
text and the terminals the postlexer consumes; it is kept as marshalled plain data in
tilemem's per-user cache (:func:`tilemem.cache.cached_data`), keyed by both.  A process
that finds it there loads ~100 KB of plain data (marshal reads it several times faster
than the same data as JSON) instead of importing lark and the standard library lark pulls
in (~40 ms of a ~0.13 s solve); only a cache miss imports lark.  The file is data, not
code: nothing in it is run, and one that does not load or does not have the expected
shape is rebuilt.

The data (``FORMAT`` versions it):

* ``terminals``: ``[name, regexp]`` in lark's match-priority order;
* ``literals``: ``{name: text}`` for the terminals that are a fixed string;
* ``ignore``, ``newline``: the terminals the lexer drops / that can contain a newline;
* ``start``, ``end``: the start state and the accepting state;
* ``symbols``: the names of the terminals and rules, which ``states`` refers to by index;
* ``states``: per state, a flat list of pairs ``symbol index, action``, the action
  ``2 * next state + 1`` (shift / goto) or ``2 * rule index`` (reduce): integers, which
  read several times faster than the same table as objects;
* ``rules``: per rule ``[origin, size, callback, expand1, include, append_none]``:
  ``callback`` the transformer method (the alias, else the rule's name), ``expand1``
  whether a single child is passed through (``?rule``), ``include`` the children kept as
  ``[index, inline, nones before]`` (None: all, unchanged), ``append_none`` the Nones after.
"""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.cache import cached_data

__all__ = ["load_tables", "check_lark_version", "LARK_MAJOR"]

FORMAT = 2

#: the major version of lark whose internals ``_build`` reads (``parse_tree_builder``'s
#: child filters, the LALR parse table); pyproject.toml pins lark to it
LARK_MAJOR = 1


def load_tables(grammar: str, always_accept) -> dict:
    """The tables of ``grammar``, from the cache when it holds them, else built by lark."""
    key = "\0".join((str(FORMAT), grammar, repr(sorted(always_accept))))
    return cached_data("pto_tables", (key.encode("utf-8"),),
                       lambda: _build(grammar, always_accept), _checked)


def _checked(data) -> dict:
    if not _well_formed(data):
        raise ValueError("tables of another shape")
    return data


def _well_formed(data) -> bool:
    """The shape the reader relies on (a file of another shape is rebuilt, not trusted)."""
    try:
        states, rules, symbols = data["states"], data["rules"], data["symbols"]
        n = len(states)
        if not (isinstance(states, list) and isinstance(rules, list) and isinstance(symbols, list)
                and all(isinstance(x, str) for x in symbols)
                and 0 <= data["start"] < n and 0 <= data["end"] < n):
            return False
        for row in states:
            if len(row) % 2:
                return False
            for k in range(0, len(row), 2):
                sym, action = row[k], row[k + 1]
                if not (0 <= sym < len(symbols)
                        and 0 <= action >> 1 < (n if action & 1 else len(rules))):
                    return False
        for origin, size, callback, expand1, include, append_none in rules:
            if not (isinstance(origin, str) and isinstance(callback, str) and size >= 0
                    and append_none >= 0):
                return False
            if include is not None and any(not 0 <= i < size for i, _, _ in include):
                return False
        return (all(isinstance(n, str) and isinstance(r, str) for n, r in data["terminals"])
                and isinstance(data["literals"], dict)
                and isinstance(data["ignore"], list) and isinstance(data["newline"], list))
    except (KeyError, TypeError, ValueError):
        return False


def check_lark_version(version: Optional[str] = None) -> None:
    """Refuse a lark of another major version than the one whose internals are read
    (its tables could be shaped otherwise: a wrong parse, not an error)."""
    if version is None:
        import lark
        version = lark.__version__
    major = version.split(".", 1)[0]
    if major != str(LARK_MAJOR):
        raise RuntimeError(f"tilemem reads the internals of lark {LARK_MAJOR}.x (its LALR tables), "
                           f"but lark {version} is installed: install lark>={LARK_MAJOR}.1.9,"
                           f"<{LARK_MAJOR + 1}")


class _AcceptOnly:
    """What lark asks of a postlexer when it builds the tables: the terminals it consumes."""

    def __init__(self, always_accept):
        self.always_accept = tuple(always_accept)

    def process(self, stream):     # pragma: no cover - lark never lexes here
        return stream


def _build(grammar: str, always_accept) -> dict:
    """Let lark analyse the grammar; keep what the reader's driver needs, as plain data."""
    check_lark_version()
    from lark import Lark
    from lark.parse_tree_builder import (ChildFilterLALR, ChildFilterLALR_NoPlaceholders,
                                         maybe_create_child_filter)
    from lark.parsers.lalr_analysis import Shift

    lk = Lark(grammar, parser="lalr", lexer="basic", postlex=_AcceptOnly(always_accept),
              maybe_placeholders=True, propagate_positions=False)
    basic = lk.parser.lexer.lexer                  # PostLexConnector -> BasicLexer
    terminals = basic.terminals                    # in lark's match-priority order
    rule_index = {}
    rules = []
    for rule in lk.rules:
        opts = rule.options
        filt = maybe_create_child_filter(rule.expansion, opts.keep_all_tokens, False,
                                         opts.empty_indices)
        include, append_none = None, 0
        if filt is not None:
            if filt.func is ChildFilterLALR:
                to_include, append_none = filt.args
                include = [[i, bool(x), n] for i, x, n in to_include]
            elif filt.func is ChildFilterLALR_NoPlaceholders:
                include = [[i, bool(x), 0] for i, x in filt.args[0]]
            else:                                  # pragma: no cover - lark changed
                raise RuntimeError(f"unknown child filter {filt.func!r}")
        callback = rule.alias or opts.template_source or rule.origin.name
        rule_index[rule] = len(rules)
        rules.append([str(rule.origin.name), len(rule.expansion), str(callback),
                      bool(opts.expand1 and not rule.alias), include, append_none])
    table = lk.parser.parser.parser.parse_table
    if sorted(table.states) != list(range(len(table.states))):    # pragma: no cover
        raise RuntimeError("lark's LALR states are not numbered 0..n-1")
    symbols: dict = {}
    states = []
    for state in range(len(table.states)):
        row = []
        for term, (action, arg) in table.states[state].items():
            row.append(symbols.setdefault(str(term), len(symbols)))
            row.append(2 * arg + 1 if action is Shift else 2 * rule_index[arg])
        states.append(row)
    return {
        "format": FORMAT,
        "terminals": [[t.name, t.pattern.to_regexp()] for t in terminals],
        "literals": {t.name: t.pattern.value for t in lk.terminals if t.pattern.type == "str"},
        "ignore": sorted(basic.ignore_types),
        "newline": sorted(basic.newline_types),
        "start": table.start_states["start"],
        "end": table.end_states["start"],
        "symbols": list(symbols),
        "states": states,
        "rules": rules,
    }
