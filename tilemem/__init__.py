"""tilemem: PyPTO's InferTileMemorySpace pass re-implemented as a Datalog constraint solver.

Library use::

    import tilemem, pathlib
    sol = tilemem.solve(pathlib.Path("kernel.pto"), backend="910B")   # a str is program text
    print(sol.text)          # the annotated program, as PyPTO prints it
    sol.spaces               # {function: {var: space}}
    sol.moves                # the inserted tile.move statements
    print(sol.why("c_tile")) # why c_tile is in its space (tilemem why's answer)

    ws = tilemem.Workspace(text, backend="910B")     # kept solved under edits
    sol = ws.edit((12, 8), (12, 14), "b_tile")       # only the edited function is solved again

Every error the library raises on purpose is a :class:`TilememError`.
"""
__version__ = "0.1.0"

__all__ = ["solve", "parse", "print_program", "Solution", "TilememError", "Workspace",
           "__version__"]


def __getattr__(name):
    # Import lazily so that `tilemem --version` and `tilemem fmt` stay fast.
    if name in ("solve", "parse", "Solution"):
        from tilemem import api
        return getattr(api, name)
    if name == "print_program":
        from tilemem.ir.printer import print_program
        return print_program
    if name == "Workspace":
        from tilemem.workspace import Workspace
        return Workspace
    if name == "TilememError":
        from tilemem.errors import TilememError
        return TilememError
    raise AttributeError(f"module 'tilemem' has no attribute '{name}'")
