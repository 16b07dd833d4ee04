"""``tilemem facts``: print the Datalog facts the rules read."""
from tilemem.commands.common import EXIT_OK, add_inputs, add_parser, emit, read_arg, add_reading_options


def register(sub):
    p = add_parser(sub, "facts", help="print the Datalog facts the rules read",
                   description="Print the program's input facts, one per line, in rule-file "
                               "syntax (they load back as a .dl file).")
    add_inputs(p, many=False)
    p.add_argument("dir", nargs="?", metavar="DIR",
                   help="with --format souffle: the directory to write the .facts files to")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout "
                                          "(with --format souffle: the directory)")
    p.add_argument("--backend", default=None, help="as for solve")
    p.add_argument("--format", nargs="+", default=["dl"], metavar="FORMAT",
                   help="dl: one fact per line in rule-file syntax (default); 'souffle DIR': "
                        "one tab-separated <relation>.facts file per input relation in DIR, "
                        "Souffle's input format")
    add_reading_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from tilemem.backends import normalize_backend
    from tilemem.datalog import format_value
    from tilemem.facts.extract import extract
    from tilemem.commands.common import read_one_program
    from tilemem.frontend.wellformed import check_program
    text, path = read_arg(args)
    program = read_one_program(args, text, path)
    check_program(program, path)
    fmt, *rest = args.format
    if fmt not in ("dl", "souffle") or len(rest) > (1 if fmt == "souffle" else 0):
        from tilemem.errors import UsageError
        raise UsageError(f"--format takes 'dl' or 'souffle DIR', not '{' '.join(args.format)}'")
    facts = extract(program, normalize_backend(args.backend))
    if fmt == "souffle":
        return _write_souffle(facts, (rest[0] if rest else None) or args.dir or args.output)
    if args.dir:
        from tilemem.errors import UsageError
        raise UsageError("a directory argument is only taken with --format souffle")
    lines = [f"{pred}({', '.join(format_value(x) for x in row)})."
             for pred, rows in facts.items() for row in rows]
    emit("\n".join(lines), args.output)
    return EXIT_OK


def _write_souffle(facts, directory) -> int:
    """Each input relation as ``DIR/<relation>.facts``: one row per line, values
    separated by tabs, symbols unquoted (Souffle's default .input format).  Every
    relation gets its file, empty ones included, so a Souffle program's .input
    directives all find theirs."""
    import os
    from tilemem.errors import UsageError
    from tilemem.commands.common import write_atomic
    if not directory:
        raise UsageError("--format souffle needs a directory: tilemem facts FILE --format souffle DIR")
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError(f"cannot write to '{directory}': not a directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create '{directory}': {e.strerror}") from None
    for pred, rows in facts.items():
        lines = []
        for row in rows:
            for v in row:
                if isinstance(v, str) and any(c in v for c in "\t\n\r"):
                    raise UsageError(f"{pred}: value {v!r} holds a tab or newline, which "
                                     f"Souffle's .facts format cannot represent")
            lines.append("\t".join(str(v) for v in row))
        write_atomic(os.path.join(directory, f"{pred}.facts"),
                     "".join(line + "\n" for line in lines))
    return EXIT_OK
