"""``tilemem graph``: draw the dataflow graph of each InCore function of the solved program."""
import os
import sys

from tilemem.commands.common import EXIT_OK, add_inputs, add_parser, add_solver_options, read_arg, \
    add_reading_options, reading_form
from tilemem.commands.common import wrap as _wrap

FORMATS = ("dot", "svg", "png", "html")


def register(sub):
    p = add_parser(sub, "graph", help="draw the dataflow graph of the solved program",
                   description=_wrap("Solve the program, then draw each InCore function's dataflow "
                               "graph: tile vars coloured by memory space (with a legend), "
                               "inserted moves and hoisted loads marked, edges labelled by "
                               "operand slot, loops and branches as boxes. The format follows "
                               "the -o extension (.dot, .svg, .png, .html); without -o, DOT goes "
                               "to stdout. SVG and PNG use Graphviz's 'dot' when installed; "
                               "DOT and HTML never need it."))
    add_inputs(p, many=False)
    p.add_argument("-o", "--output", metavar="OUT",
                   help="out.dot, out.svg, out.png or out.html (written atomically)")
    p.add_argument("-T", "--format", choices=FORMATS,
                   help="output format (default: from the -o extension, else dot)")
    p.add_argument("--function", metavar="F", help="only this InCore function")
    add_solver_options(p)
    p.add_argument("--layout", choices=("auto", "dot", "builtin"), default="auto",
                   help="layout for SVG/HTML: Graphviz dot, tilemem's built-in pure-Python "
                        "layout, or auto (dot when installed, else builtin; PNG needs dot)")
    add_reading_options(p)
    p.set_defaults(func=run)


def _format(args) -> str:
    from tilemem.errors import UsageError
    if args.format:
        return args.format
    if not args.output or args.output == "-":
        return "dot"
    ext = os.path.splitext(args.output)[1].lower().lstrip(".")
    if ext == "htm":
        ext = "html"
    if ext == "gv":
        ext = "dot"
    if ext not in FORMATS:
        raise UsageError(f"cannot tell the picture format from '{args.output}': "
                         f"use a .dot, .svg, .png or .html name, or -T FORMAT")
    return ext


def _write(data: bytes, out) -> None:
    if out and out != "-":
        from tilemem.files import write_atomic
        write_atomic(out, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


def run(args) -> int:
    from tilemem.api import solve
    from tilemem.errors import UsageError
    from tilemem.tools.graph import (GRAPHVIZ_HINT, build_graphs, have_dot, render, to_dot, to_html,
                         to_svg_builtin)
    fmt = _format(args)
    if fmt == "png" and (not args.output or args.output == "-") and sys.stdout.isatty():
        raise UsageError("a PNG picture needs -o FILE.png (not a terminal)")
    use_dot = args.layout == "dot" or (args.layout == "auto" and have_dot())
    if fmt == "png" and args.layout == "builtin":
        raise UsageError("the built-in engine draws SVG only; PNG needs Graphviz (--layout dot)")
    if fmt in ("svg", "png") and args.layout != "builtin" and not have_dot() and \
            (args.layout == "dot" or fmt == "png"):
        raise UsageError(GRAPHVIZ_HINT)
    text, path = read_arg(args)
    sol = solve(text, backend=args.backend, rules=args.rules or (), path=path, engine=args.engine,
                form=reading_form(args), program=args.program)
    from tilemem.commands.solve import print_warnings
    print_warnings(sol.warnings, args)
    graphs = build_graphs(sol, args.function)
    if not graphs:
        raise UsageError(f"{path}: no InCore function to draw")
    title = f"{os.path.basename(path)}" + (f" ({sol.backend})" if sol.backend else "")
    dot = to_dot(graphs, title=title)
    if fmt == "dot":
        _write(dot.encode("utf-8"), args.output)
    elif fmt == "png":
        _write(render(graphs, "png", title), args.output)
    elif fmt == "svg":
        svg = render(graphs, "svg", title).decode("utf-8") if use_dot else to_svg_builtin(graphs, title)
        _write(svg.encode("utf-8"), args.output)
    else:                     # the page shows the legend in its side bar, not in the picture
        svg = (render(graphs, "svg", legend=False).decode("utf-8") if use_dot
               else to_svg_builtin(graphs, legend=False))
        page = to_html(svg, dot, f"tilemem graph: {title}", getattr(sol, "residency", None),
                       graphs=graphs, moves=sol.moves, source=text)
        _write(page.encode("utf-8"), args.output)
    return EXIT_OK
