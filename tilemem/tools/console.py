"""An interactive console over a program's facts and derived relations.

Type a pattern of the rule language (``space(V, "Acc")``, ``move_at(P, V, T)``) to see
the matching rows as a table, or a conjunction with tests and negations
(``space(V, S), S = "Bias"``, ``move_at(P, V, T), !space(V, "Acc")``), or a command:

    :why NAME|LINE|FACT  why a tile var is in its space (a var, function:var or inserted
                     move; a line, 12 or 12:8: every tile defined, moved or hoisted
                     there; as for `tilemem why`), or the proof tree(s) of a fact or pattern
    :whynot NAME SPACE|FACT  why a var is not in SPACE, or why a fact does not hold
    :predicates [S]  every predicate (or those whose name contains S): arity, comment
    :rules P         the rules deriving P, with their file:line and comment
    :db [auto|1|4]   which database answers: auto (by predicate), phases 0-3, phase 4
    :depth [N]       show proof trees N levels deep (no argument: whole trees)
    :format [F]      print rows as a table (default), csv, tsv or json
    :help            this text
    :quit            leave (also :q, :exit, Ctrl-D)

A capitalised word that names a constant of the rules (a memory space such as ``Acc``
or ``Vec``, a direction such as ``In``) is read as that constant, not as a variable
(a note says so); quote it ("Acc") to be explicit.

Relations of phase 4 (residency: ``hoist``, ``residency_refusal``, ...) are answered
from the whole rewritten program and need a backend; all others from the InCore
functions as written.  The console keeps its databases open until it ends.
"""
from __future__ import annotations

import os
import sys
from typing import Optional, TextIO

from tilemem.datalog import QueryError, format_value

COMMANDS = (":why", ":whynot", ":predicates", ":rules", ":db", ":depth", ":format", ":help",
            ":quit", ":q", ":exit")

FORMATS = ("table", "csv", "tsv", "json")

HELP = __doc__.split("\n\n", 1)[1].rsplit("\n\nRelations", 1)[0]


class Console:
    """Runs console lines against a :class:`tilemem.explain.Session`.

    ``run_line(line)`` executes one line and returns False when the session should end;
    ``errors`` counts the lines that failed.
    """

    def __init__(self, session, out: TextIO = None, ascii: bool = False, format: str = "table",
                 width: Optional[int] = 100):
        self.session = session
        self.out = out or sys.stdout
        self.ascii = ascii
        self.depth: Optional[int] = None
        self.db = "auto"
        self.format = format
        self.width = width
        self.errors = 0

    # ------------------------------------------------------------------ output
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def error(self, text: str) -> None:
        self.errors += 1
        self.say(f"error: {text}")

    # ------------------------------------------------------------------ dispatch
    def run_line(self, line: str) -> bool:
        from tilemem.explain import ExplainError
        from tilemem.datalog import DatalogError
        line = line.strip()
        if not line or line.startswith("//") or line.startswith("#"):
            return True
        try:
            if line.startswith(":"):
                cmd, _, rest = line.partition(" ")
                return self.command(cmd, rest.strip())
            self.query(line)
        except (QueryError, ExplainError, DatalogError) as e:
            self.error(_message(e, line))
        except KeyboardInterrupt:
            self.say("interrupted")
        return True

    def command(self, cmd: str, rest: str) -> bool:
        if cmd in (":quit", ":q", ":exit"):
            return False
        if cmd in (":help", ":h", ":?"):
            self.say(HELP)
        elif cmd == ":why":
            self.why(rest)
        elif cmd == ":whynot":
            self.whynot(rest)
        elif cmd in (":predicates", ":preds"):
            self.predicates(rest)
        elif cmd == ":rules":
            self.rules(rest)
        elif cmd == ":db":
            self.set_db(rest)
        elif cmd == ":depth":
            self.set_depth(rest)
        elif cmd == ":format":
            self.set_format(rest)
        else:
            self.error(f"unknown command '{cmd}' (:help lists the commands)")
        return True

    # ------------------------------------------------------------------ databases
    def explainer(self, pred: str):
        from tilemem.explain import ExplainError
        ses = self.session
        if pred not in ses.rules.predicates:
            raise ExplainError(f"unknown predicate '{pred}'" + _did_you_mean(pred, ses.rules.predicates))
        if self.db == "1":
            return ses.phase3()
        if self.db == "4":
            x = ses.phase4()
            if x is None:
                raise ExplainError("phase 4 runs only with a backend (start with --backend)")
            return x
        return ses.explainer_for(pred)

    # ------------------------------------------------------------------ queries
    def query(self, text: str) -> None:
        body, notes = parse_body(text, self._constants())
        for n in notes:
            self.say(n)
        atoms = [a for lit in body for a in lit.atoms()]
        for a in atoms:
            info = self.explainer(a.pred).predicate(a.pred)
            if info.arity != a.arity:
                raise QueryError(f"predicate '{a.pred}' has arity {info.arity} "
                                 f"({_signature(a.pred, info)}), the query gives {a.arity}",
                                 a.loc.col if a.loc else None)
        x = self._explainer_of(atoms)
        if len(body) == 1 and body[0] is atoms[0] and hasattr(body[0], "args"):
            cols, rows = x.db.query_atom(body[0])
        else:
            cols, rows = evaluate_body(x, body)
        # statement positions get their source line in an extra column
        extra = []
        for a in atoms:
            for i in (x.source.pos_columns.get(a.pred, ()) if x.source else ()):
                name = getattr(a.args[i], "name", None)
                if name and name != "_" and name in cols and name not in extra:
                    extra.append(name)
        header = list(cols) + [f"line({n})" for n in extra]
        table = []
        for r in rows:
            cells = list(r)
            for n in extra:
                d = x.source.describe_pos(r[cols.index(n)])
                cells.append(None if d is None else f"end of {d['line']}" if d.get("end") else d["line"])
            table.append(cells)
        if not cols:
            self.say("yes" if rows else "no")
            return
        self.say(render_rows(header, table, self.format))
        if self.format == "table":
            self.say(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")

    def _explainer_of(self, atoms):
        """The one database that answers every relation of a query."""
        xs = {id(x): x for x in (self.explainer(a.pred) for a in atoms)}
        if len(xs) > 1:
            raise QueryError("this query joins relations of phase 4 (the whole rewritten program) "
                             "with relations of phases 0-3: choose one with :db 1 or :db 4")
        return next(iter(xs.values()))

    def _constants(self) -> set:
        """The string constants the rule files mention (spaces, directions, loop kinds)."""
        if not hasattr(self, "_consts"):
            rules = self.session.rules
            self._consts = {t.value for r in (*rules.rules, *rules.facts)
                            for a in (r.head, *[x for lit in r.body for x in lit.atoms()])
                            for t in a.args if hasattr(t, "value") and isinstance(t.value, str)}
        return self._consts

    def why(self, text: str) -> None:
        from tilemem.explain import ExplainError
        if not text:
            raise ExplainError("usage: :why VAR (a tile var, function:var or inserted move) or "
                               ":why FACT, e.g. :why space(\"kernel:c\", \"Acc\")")
        if "(" not in text:
            from tilemem.explain.answer import answer_subject
            name, _, rest = text.partition(" ")
            if rest.strip().startswith("--not"):
                return self.whynot(f"{name} {rest.strip()[5:].strip()}")
            self.say(answer_subject(self.session, name).render(self.width, self.ascii))
            return
        atom, notes = _one_atom(text, self._constants())
        for n in notes:
            self.say(n)
        x = self.explainer(atom.pred)
        trees = x.explain_pattern(atom, limit=20)
        if not trees:
            self.say(x.why_not_atom(atom, 3).render(self.depth or 3, self.ascii))
            return
        n = len(x.matches(atom))
        for t in trees:
            self.say(t.render(self.depth, self.ascii))
        if n > len(trees):
            self.say(f"... {n - len(trees)} more facts match; make the pattern more specific")

    def whynot(self, text: str) -> None:
        from tilemem.explain import ExplainError
        if not text:
            raise ExplainError("usage: :whynot VAR SPACE, e.g. :whynot c Vec, or :whynot FACT, "
                               "e.g. :whynot space(\"kernel:c\", \"Vec\")")
        if "(" not in text:
            from tilemem.explain.answer import answer_not
            parts = text.split()
            if len(parts) != 2:
                raise ExplainError("usage: :whynot VAR SPACE, e.g. :whynot c Vec")
            space = _space_of(parts[1], self._constants())
            self.say(answer_not(self.session, parts[0], space).render(self.width, self.ascii))
            return
        atom, notes = _one_atom(text, self._constants())
        for n in notes:
            self.say(n)
        x = self.explainer(atom.pred)
        info = x.predicate(atom.pred)
        if info.arity != atom.arity:
            raise QueryError(f"predicate '{atom.pred}' has arity {info.arity}, not {atom.arity}")
        self.say(x.why_not_atom(atom, 3).render(self.depth or 3, self.ascii))

    def predicates(self, text: str) -> None:
        from tilemem.explain.nodes import short_doc
        ses = self.session
        rows = []
        for name, info in sorted(ses.rules.predicates.items()):
            if text and text not in name:
                continue
            kind = "input" if info.from_program else "derived" if info.is_derived else "facts"
            if ses.is_phase4(name):
                kind += ", phase 4"
            rows.append([_signature(name, info), kind, short_doc(info.doc or _first_rule_doc(info), 80)])
        if not rows:
            self.say(f"no predicate contains '{text}'")
            return
        self.say(_table(["predicate", "kind", "comment"], rows))

    def rules(self, text: str) -> None:
        from tilemem.explain import ExplainError
        from tilemem.explain.sourcemap import rule_file_name
        ses = self.session
        name = text.strip()
        info = ses.rules.predicates.get(name)
        if info is None:
            raise ExplainError(f"unknown predicate '{name}'" + _did_you_mean(name, ses.rules.predicates))
        where = f"{rule_file_name(info.file)}:{info.line}" if info.loc else "?"
        self.say(f"{_signature(name, info)}    declared at {where}")
        if info.doc:
            for l in info.doc.splitlines():
                self.say(f"  // {l}")
        if info.from_program:
            self.say("  an input relation: its facts come from the program (tilemem facts FILE)")
        for r in info.rules:
            self.say("")
            self.say(f"{rule_file_name(r.file)}:{r.line}")
            for l in (r.doc or "").splitlines():
                self.say(f"  // {l}")
            self.say(f"  {r.text or r}")
        if info.facts:
            self.say("")
            self.say(f"{len(info.facts)} fact{'s' if len(info.facts) != 1 else ''} in rule files, "
                     f"e.g. {info.facts[0].text or info.facts[0]}")

    def set_db(self, text: str) -> None:
        from tilemem.explain import ExplainError
        if not text:
            self.say(f"database: {self.db}")
            return
        if text not in ("auto", "1", "4"):
            raise ExplainError(":db takes auto, 1 (phases 0-3) or 4 (phase 4, whole program)")
        if text == "4" and self.session.backend is None:
            raise ExplainError("phase 4 runs only with a backend (start with --backend)")
        self.db = text
        self.say(f"database: {text}")

    def set_format(self, text: str) -> None:
        from tilemem.explain import ExplainError
        if not text:
            self.say(f"format: {self.format}")
            return
        if text not in FORMATS:
            raise ExplainError(f":format takes one of: {', '.join(FORMATS)}")
        self.format = text
        self.say(f"format: {text}")

    def set_depth(self, text: str) -> None:
        from tilemem.explain import ExplainError
        if not text:
            self.depth = None
            self.say("proof trees: whole")
            return
        try:
            n = int(text)
        except ValueError:
            n = 0
        if n < 1:
            raise ExplainError(":depth takes a positive number")
        self.depth = n
        self.say(f"proof trees: {n} level{'s' if n != 1 else ''}")

    # ------------------------------------------------------------------ interactive loop
    def completions(self, text: str, line: str) -> list[str]:
        """Tab completion: commands at the start of a line, else predicate names."""
        stripped = line.lstrip()
        if stripped.startswith(":") and " " not in stripped:
            return [c + " " for c in COMMANDS if c.startswith(text)]
        names = sorted(self.session.rules.predicates)
        return [n + ("(" if not stripped.startswith(":rules") else "") for n in names if n.startswith(text)]

    def loop(self, stdin: TextIO = None, interactive: Optional[bool] = None,
             banner: str = "") -> int:
        """Read lines until :quit or end of input.  Returns the number of failed lines."""
        stdin = stdin or sys.stdin
        if interactive is None:
            interactive = stdin.isatty()
        if not interactive:
            for line in stdin:
                if not self.run_line(line):
                    break
            return self.errors
        hist = _setup_readline(self)
        if banner:
            self.say(banner)
        try:
            while True:
                try:
                    line = input("tilemem> ")
                except EOFError:
                    self.say()
                    break
                except KeyboardInterrupt:
                    self.say("^C")
                    continue
                if not self.run_line(line):
                    break
        finally:
            _save_history(hist)
        return self.errors


# ----------------------------------------------------------------------------- helpers


def _message(e: Exception, line: str) -> str:
    col = getattr(e, "col", None)
    msg = str(e)
    if col and ": error: " in msg:
        msg = msg.split(": error: ", 1)[1]
    if col and not line.startswith(":"):
        return f"{msg}\n  {line}\n  {' ' * (col - 1)}^"
    return msg


def parse_body(text: str, constants=()) -> tuple[tuple, list[str]]:
    """A query typed by a user: one atom, or a conjunction of atoms, negations, tests and
    aggregates, as the body of a rule.  A variable named like a constant of the rules
    (``Acc``) is read as that constant; the notes say so."""
    from tilemem.datalog.syntax import parse_program
    prefix = "query() :- "
    src = text.strip().rstrip(".")
    pf = parse_program(prefix + src + ".\n", "<query>")
    if pf.errors:
        d = pf.errors[0]
        col = d.col - len(prefix) if d.line == 1 and d.col and d.col > len(prefix) else None
        message = d.message
        if col is not None and col > len(src):          # the '.' the console appended
            message = message.replace("unexpected '.'", "unexpected end of input")
            col = len(src) + 1
        raise QueryError(message, col)
    rules = [it for it in pf.items if getattr(it, "body", None)]
    if len(rules) != 1:
        raise QueryError("type one pattern or conjunction, e.g. space(V, S), S = \"Bias\"")
    body = rules[0].body
    renamed: dict[str, str] = {}
    body = tuple(_constify(lit, set(constants), renamed) for lit in body)
    notes = []
    if renamed:
        names = ", ".join(sorted(renamed))
        notes.append(f"note: {names} read as the constant{'s' if len(renamed) > 1 else ''} "
                     f"{', '.join(repr(v).replace(chr(39), chr(34)) for _, v in sorted(renamed.items()))}"
                     f" (quote {'them' if len(renamed) > 1 else 'it'} to be explicit)")
    return body, notes


def _constify(lit, constants: set, renamed: dict):
    """``lit`` with every variable named like a rule constant replaced by the constant."""
    import dataclasses
    from tilemem.datalog import Const, Var

    def term(t):
        if isinstance(t, Var) and not t.is_anonymous and t.name in constants:
            renamed[t.name] = t.name
            return Const(t.name, getattr(t, "loc", None))
        return t
    changes = {}
    for f in dataclasses.fields(lit):
        v = getattr(lit, f.name)
        if isinstance(v, Var):
            changes[f.name] = term(v)
        elif isinstance(v, tuple) and v and all(hasattr(x, "__dataclass_fields__") for x in v):
            if f.name == "args":
                changes[f.name] = tuple(term(x) for x in v)
            else:
                changes[f.name] = tuple(_constify(x, constants, renamed) for x in v)
        elif hasattr(v, "__dataclass_fields__") and f.name in ("atom",):
            changes[f.name] = _constify(v, constants, renamed)
    return dataclasses.replace(lit, **changes) if changes else lit


def _one_atom(text: str, constants):
    body, notes = parse_body(text, constants)
    if len(body) != 1 or not hasattr(body[0], "args"):
        raise QueryError(":why and :whynot take one fact or pattern")
    return body[0], notes


def _space_of(word: str, constants) -> str:
    from tilemem.explain import ExplainError
    w = word.strip('"').split(".")[-1]
    for c in sorted(constants):
        if c.lower() == w.lower():
            return c
    raise ExplainError(f"unknown memory space '{word}'")


def evaluate_body(x, body) -> tuple[tuple, list[tuple]]:
    """(columns, rows) of a conjunction over the relations of explainer ``x``: one row
    per distinct binding of its named variables, in order of first appearance."""
    cols: list[str] = []
    for lit in body:
        for a in lit.atoms() if not hasattr(lit, "args") else (lit,):
            for v in a.variables():
                if v.name not in cols:
                    cols.append(v.name)
    for lit in body:
        for n in sorted(lit.names()):
            if n not in cols:
                cols.append(n)
    rows = {tuple(env.get(c) for c in cols) for env in x.solutions(body)}
    from tilemem.datalog.engine import value_key
    return tuple(cols), sorted(rows, key=lambda r: tuple(value_key(v) for v in r))


def render_rows(header: list[str], rows: list[list], fmt: str) -> str:
    """Rows as a table, CSV, TSV or JSON (values as the rule language writes them in a
    table; as plain values in the others)."""
    import csv
    import io
    import json
    if fmt == "json":
        return json.dumps([dict(zip(header, r)) for r in rows], indent=1, ensure_ascii=False)
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        w = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        w.writerow(header)
        w.writerows([["" if v is None else v for v in r] for r in rows])
        return buf.getvalue().rstrip("\n")
    return _table(header, [["" if v is None else format_value(v) for v in r] for r in rows])


def _signature(name: str, info) -> str:
    cols = info.columns or tuple(f"_{i}" for i in range(info.arity))
    return f"{name}({', '.join(cols)})"


def _first_rule_doc(info) -> str:
    for r in info.rules:
        if r.doc:
            return r.doc
    return ""


def _did_you_mean(name: str, names) -> str:
    import difflib
    close = difflib.get_close_matches(name, sorted(names), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [len(h) for h in header]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    def fmt(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    lines = [fmt(header), "  ".join("-" * w for w in widths)]
    lines.extend(fmt(r) for r in rows)
    return "\n".join(lines)


def history_file() -> Optional[str]:
    path = os.environ.get("TILEMEM_HISTFILE")
    if path is not None:
        return path or None                # empty: no history file
    home = os.path.expanduser("~")
    return os.path.join(home, ".tilemem_history") if home and home != "~" else None


def _setup_readline(console: Console):
    try:
        import readline
    except ImportError:                     # no line editing on this platform
        return None
    def complete(text, state):
        try:
            opts = console.completions(text, readline.get_line_buffer())
        except Exception:
            return None
        return opts[state] if state < len(opts) else None
    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n(),!=<>\"")
    if "libedit" in (getattr(readline, "__doc__", "") or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    path = history_file()
    if path:
        try:
            readline.read_history_file(path)
        except OSError:
            pass
        readline.set_history_length(1000)
    return (readline, path)


def _save_history(hist) -> None:
    if not hist:
        return
    readline, path = hist
    if path:
        try:
            readline.write_history_file(path)
        except OSError:
            pass
