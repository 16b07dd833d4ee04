"""``tilemem solve``: annotate a program with memory spaces and moves."""
from .common import EXIT_OK, add_parser, emit, read_input


def register(sub):
    p = add_parser(sub, "solve", help="annotate a program with memory spaces and moves",
                   description="Print the program with every tile's memory space inferred and "
                               "tile.move inserted where producer and consumer disagree.")
    p.add_argument("file", help="program text (PyPTO's printed @pl.program), or - for stdin")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--backend", default=None,
                   help="none (default), 910B / Ascend910B, 950 / Ascend950 (any case)")
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="an extra rule file (e.g. op-table facts for your own ops); repeatable")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..api import solve
    text, path = read_input(args.file)
    sol = solve(text, backend=args.backend, rules=args.rules or (), path=path)
    emit(sol.text, args.output)
    return EXIT_OK
