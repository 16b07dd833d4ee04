"""tilemem's IR: the program model (``nodes``), its printer, tile views and op type rules.

``from tilemem import ir`` gives the node classes (``ir.Assign``, ``ir.TileType``, ...);
the other jobs live in their own modules: ``ir.printer`` (PyPTO's text form),
``ir.views`` (TileView semantics), ``ir.typerules`` (result types of tile ops).
"""
from tilemem.ir.nodes import *  # noqa: F401,F403  (the node classes are the package's API)
from tilemem.ir.nodes import __all__  # noqa: F401
