"""``tilemem lsp``: the language server, over stdin and stdout."""
from tilemem.commands.common import EXIT_INPUT, EXIT_OK, add_parser, wrap


def register(sub):
    p = add_parser(sub, "lsp", help="run the language server (LSP over stdio) for editors",
                   description=wrap(
                       "Serve the Language Server Protocol on stdin/stdout for .pto files and "
                       "Python modules holding @pl.program classes: diagnostics as you type "
                       "(read errors, TileMemoryInferred violations, PyPTO's contract breaks, "
                       "residency notes), hover (a tile's memory space and why), inlay hints "
                       "(the space of each tile, the moves the pass inserts), code actions "
                       "(apply the pass, explain, why not SPACE), definition, references and "
                       "document symbols. The backend comes from the client's settings "
                       "(initializationOptions or workspace configuration 'tilemem') or "
                       "[tool.tilemem] in the nearest pyproject.toml. Needs the lsp extra: "
                       "pip install 'tilemem[lsp]'. See the README for editor set-up."))
    p.add_argument("--stdio", action="store_true",
                   help="talk over stdin/stdout (the default and only transport; accepted "
                        "because clients pass it)")
    p.add_argument("--log-file", metavar="FILE",
                   help="write the server's log (internal errors with tracebacks) to FILE")
    p.set_defaults(func=run)


def run(args) -> int:
    import sys
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as e:
        print(f"tilemem lsp: needs pygls and lsprotocol ({e}): pip install 'tilemem[lsp]'",
              file=sys.stderr)
        return EXIT_INPUT
    import logging
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.DEBUG if args.verbose
                            else logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from tilemem.lsp.server import serve
    serve()
    return EXIT_OK
