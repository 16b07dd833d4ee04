"""One module per ``tilemem`` subcommand.

Each module defines ``register(subparsers)``, which adds its parser and sets
``func`` to a handler ``(args) -> exit status``.  Modules import what they need
inside the handler, so the CLI only loads what the chosen command uses.
"""
COMMANDS = ("solve", "verify", "graph", "fmt", "facts", "why", "query", "config", "lsp", "completion")
