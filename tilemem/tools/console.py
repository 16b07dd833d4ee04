"""An interactive console over a program's facts and derived relations.

Type a pattern of the rule language (``space(V, "Acc")``, ``move_at(P, V, T)``) to see
the matching rows as a table, or a command:

    :why FACT        proof tree(s) of a fact or pattern (why-not when nothing matches)
    :whynot FACT     why a fact does not hold
    :predicates [S]  every predicate (or those whose name contains S): arity, comment
    :rules P         the rules deriving P, with their file:line and comment
    :db [auto|1|4]   which database answers: auto (by predicate), phases 0-3, phase 4
    :depth [N]       show proof trees N levels deep (no argument: whole trees)
    :help            this text
    :quit            leave (also :q, :exit, Ctrl-D)

Relations of phase 4 (residency: ``hoist``, ``residency_declined``, ...) are answered
from the whole rewritten program and need a backend; all others from the InCore
functions as written.  The console keeps its databases open until it ends.
"""
from __future__ import annotations

import os
import sys
from typing import Optional, TextIO

from tilemem.datalog import QueryError, format_value, parse_query

COMMANDS = (":why", ":whynot", ":predicates", ":rules", ":db", ":depth", ":help", ":quit",
            ":q", ":exit")

HELP = __doc__.split("\n\n", 1)[1].rsplit("\n\nRelations", 1)[0]


class Console:
    """Runs console lines against a :class:`tilemem.explain.Session`.

    ``run_line(line)`` executes one line and returns False when the session should end;
    ``errors`` counts the lines that failed.
    """

    def __init__(self, session, out: TextIO = None, ascii: bool = False):
        self.session = session
        self.out = out or sys.stdout
        self.ascii = ascii
        self.depth: Optional[int] = None
        self.db = "auto"
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
        atom = parse_query(text)
        x = self.explainer(atom.pred)
        info = x.predicate(atom.pred)
        if info.arity != atom.arity:
            raise QueryError(f"predicate '{atom.pred}' has arity {info.arity} "
                             f"({_signature(atom.pred, info)}), the query gives {atom.arity}")
        cols, rows = x.db.query_atom(atom)
        # statement positions get their source line in an extra column
        pos_cols = set(x.source.pos_columns.get(atom.pred, ())) if x.source else set()
        extra = []
        for i, t in enumerate(atom.args):
            name = getattr(t, "name", None)
            if i in pos_cols and name and name != "_" and name in cols and name not in extra:
                extra.append(name)
        header = list(cols) + [f"line({n})" for n in extra]
        table = []
        for r in rows:
            cells = [format_value(v) for v in r]
            for n in extra:
                d = x.source.describe_pos(r[cols.index(n)])
                cells.append("" if d is None else f"end of {d['line']}" if d.get("end") else str(d["line"]))
            table.append(cells)
        if not cols:
            self.say("yes" if rows else "no")
            return
        self.say(_table(header, table))
        self.say(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")

    def why(self, text: str) -> None:
        from tilemem.explain import ExplainError
        if not text:
            raise ExplainError("usage: :why FACT, e.g. :why space(\"kernel:c\", \"Acc\")")
        atom = parse_query(text)
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
            raise ExplainError("usage: :whynot FACT, e.g. :whynot space(\"kernel:c\", \"Vec\")")
        atom = parse_query(text)
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
