"""``tilemem verify``: check the TileMemoryInferred property on a program as written."""
import sys

from tilemem.commands.common import EXIT_CHECK, EXIT_OK, add_parser, read_input, wrap


def register(sub):
    p = add_parser(sub, "verify", help="check that every tile has a valid memory space",
                   description=wrap("Check the TileMemoryInferred property on the program as written "
                               "(rules/verify.dl): every tile var defined by an assignment has a "
                               "memory space, and every constrained operand lies in a space its op "
                               "accepts. Each violation is reported as path:line:col: error: ...; "
                               "exit 1 when there is any. Run it on the output of `tilemem solve`."))
    p.add_argument("file", help="program text, or - for stdin")
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="an extra rule file (e.g. op-table facts for your own ops); repeatable")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only the one-line messages (no source line and caret) and no summary")
    p.set_defaults(func=run)


def run(args) -> int:
    from tilemem.frontend.parser import parse
    from tilemem.tools.verify import verify
    from tilemem.frontend.wellformed import check_program
    text, path = read_input(args.file)
    program = parse(text, path)
    check_program(program, path)
    violations = verify(program, path, args.rules or ())
    for v in violations:
        print(str(v) if args.quiet else v.format(text), file=sys.stderr)
    if violations:
        if not args.quiet:
            n = len(violations)
            print(f"{path}: {n} violation{'s' if n != 1 else ''} of TileMemoryInferred",
                  file=sys.stderr)
        return EXIT_CHECK
    return EXIT_OK
