"""``tilemem query``: an interactive console over a program's facts and derived relations."""
import sys

from tilemem.commands.common import EXIT_INPUT, EXIT_OK, add_inputs, add_parser, read_arg, wrap, add_reading_options


def register(sub):
    p = add_parser(sub, "query", help="query the program's facts and derived relations (console)",
                   description=wrap(
                       "An interactive console over the program's facts and every relation the "
                       "rules derive. Type a pattern such as space(V, \"Acc\") or "
                       "move_at(P, V, T), or a conjunction such as space(V, S), S = \"Bias\", "
                       "to see the matching rows (--format csv/tsv/json to export them); "
                       ":why VAR says why a tile is in its space (as tilemem why does), :why "
                       "FACT prints a proof tree, :whynot VAR SPACE or :whynot FACT why not, "
                       ":predicates lists every "
                       "relation with its comment, :rules P shows the rules deriving P, :help "
                       "the rest. Line editing, history (~/.tilemem_history, or "
                       "$TILEMEM_HISTFILE) and tab completion of predicate names when run in "
                       "a terminal. With -e, run the given lines and exit (status 2 if one "
                       "fails); with input from a pipe, run its lines."))
    add_inputs(p, many=False, what="program text (a path: the console reads its commands from stdin)")
    p.add_argument("-e", "--execute", action="append", metavar="LINE",
                   help="run this pattern or :command and exit; repeatable")
    p.add_argument("--backend", default=None,
                   help="as for solve (needed for the phase 4 residency relations)")
    p.add_argument("--rules", action="append", metavar="FILE", help="an extra rule file; repeatable")
    p.add_argument("--ascii", action="store_true", help="draw trees with ASCII characters only")
    p.add_argument("--format", choices=("table", "csv", "tsv", "json"), default="table",
                   help="how rows are printed: an aligned table (default), CSV, TSV or JSON "
                        "(e.g. -e 'space(V, S)' --format csv > spaces.csv)")
    add_reading_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from tilemem.tools.console import Console
    from tilemem.errors import UsageError
    from tilemem.explain import Session
    from tilemem.commands.common import reading_form
    from tilemem.commands.why import _ascii
    if args.file == "-" and not args.execute:
        raise UsageError("the console reads its commands from stdin: give the program as a file "
                         "(or use -e)")
    text, path = read_arg(args)
    ses = Session.from_text(text, path, backend=args.backend, rules=args.rules or (),
                            form=reading_form(args), program=args.program)
    with ses:
        console = Console(ses, sys.stdout, ascii=_ascii(args), format=args.format)
        if args.execute:
            for line in args.execute:
                if not console.run_line(line):
                    break
            return EXIT_INPUT if console.errors else EXIT_OK
        interactive = sys.stdin.isatty()
        banner = (f"tilemem query console: {path}"
                  f"{' (backend ' + ses.backend + ')' if ses.backend else ''}\n"
                  f"Type a pattern such as space(V, \"Acc\"), :help for commands, :quit to leave.")
        import gc
        gc.enable()             # a long session: the collector the command turned off is back
        errors = console.loop(sys.stdin, interactive, banner)
        return EXIT_INPUT if errors and not interactive else EXIT_OK
