"""``tilemem fmt``: parse and print a program in PyPTO's canonical form."""
import sys

from tilemem.commands.common import EXIT_CHECK, EXIT_OK, add_parser, emit, read_input


def register(sub):
    p = add_parser(sub, "fmt", help="parse and print a program in PyPTO's canonical form")
    p.add_argument("file", help="program text, or - for stdin")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--check", action="store_true",
                   help="print nothing; exit 1 when the file is not already canonical")
    p.set_defaults(func=run)


def run(args) -> int:
    from tilemem.frontend.parser import parse
    from tilemem.ir.printer import print_program
    text, path = read_input(args.file)
    out = print_program(parse(text, path), path)
    if args.check:
        if out.rstrip("\n") != text.rstrip("\n"):
            print(f"{path}: would be reformatted", file=sys.stderr)
            return EXIT_CHECK
        return EXIT_OK
    emit(out, args.output)
    return EXIT_OK
