"""``tilemem facts``: print the Datalog facts the rules read."""
from .common import EXIT_OK, add_parser, emit, read_input


def register(sub):
    p = add_parser(sub, "facts", help="print the Datalog facts the rules read",
                   description="Print the program's input facts, one per line, in rule-file "
                               "syntax (they load back as a .dl file).")
    p.add_argument("file", help="program text, or - for stdin")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--backend", default=None, help="as for solve")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..backends import normalize_backend
    from ..datalog import format_value
    from ..facts import extract
    from ..parser import parse
    from ..wellformed import check_program
    text, path = read_input(args.file)
    program = parse(text, path)
    check_program(program, path)
    facts = extract(program, normalize_backend(args.backend))
    lines = [f"{pred}({', '.join(format_value(x) for x in row)})."
             for pred, rows in facts.items() for row in rows]
    emit("\n".join(lines), args.output)
    return EXIT_OK
