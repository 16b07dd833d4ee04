"""clingo's C library, reached through its cffi module without the clingo package.

``import clingo`` runs the package's ``__init__``, which imports every one of its
Python modules (the application, propagator, statistics, theory and solving wrappers,
``traceback``): ~53 M instructions of class creation, an eighth of a whole ``tilemem
solve`` of a small kernel, for a solve that uses a control object, its backend and its
symbolic atoms.  This module loads only the compiled module ``clingo._clingo`` (its
``ffi`` and ``lib``, the handles the package's own wrappers call) and gives the few
calls the clingo engine makes, as :class:`Control`.

The compiled module is registered as ``clingo._clingo``, so that a later ``import
clingo`` (by the engine's parsed-rule cache, which uses ``clingo.ast``, or by anyone
else) finds it and shares its ``ffi`` and ``lib``: a C handle made here is one of the
package's.  When the module cannot be loaded so (another clingo build), ``lib`` is None
and the engine uses the package's public API.
"""
from __future__ import annotations

import sys

__all__ = ["ffi", "lib", "Control"]


def _load():
    """(ffi, lib) of clingo's compiled module, loaded as the package loads it."""
    got = sys.modules.get("clingo._clingo")
    if got is None:
        if "clingo" in sys.modules:                  # the package is in use already
            from clingo._internal import _ffi, _lib
            return _ffi, _lib
        from importlib.machinery import PathFinder
        from importlib.util import module_from_spec
        package = PathFinder.find_spec("clingo")
        spec = package and PathFinder.find_spec("clingo._clingo",
                                                package.submodule_search_locations)
        if spec is None:
            raise ImportError("clingo's compiled module is not where its package keeps it")
        # the package's flags (clingo._internal): lazy binding, its symbols global for
        # the libraries that link against them
        flags = sys.getdlopenflags() if hasattr(sys, "setdlopenflags") else None
        try:
            if flags is not None:
                import os
                sys.setdlopenflags(os.RTLD_LAZY | os.RTLD_GLOBAL)
            got = module_from_spec(spec)
        finally:
            if flags is not None:
                sys.setdlopenflags(flags)
        sys.modules["clingo._clingo"] = got
    return got.ffi, got.lib


try:
    ffi, lib = _load()
    _NULL = ffi.NULL
except Exception:                  # pragma: no cover - another clingo build
    ffi = lib = None


def check(ok: bool) -> None:
    """Raise clingo's error of a C call that returned false (as the package does)."""
    if not ok:
        msg = ffi.string(lib.clingo_error_message()).decode()
        if lib.clingo_error_code() == lib.clingo_error_bad_alloc:
            raise MemoryError(msg)
        raise RuntimeError(msg)


class Control:
    """A clingo control object that grounds and never solves.

    Its ground program goes to an observer that observes nothing, registered in place
    of clasp, clingo's solver (``replace``): a stratified program is decided by grounding
    alone.  ``_rep`` is the C handle (what ``clingo.ast.ProgramBuilder`` reads of a
    control)."""

    _rep = None

    def __init__(self, arguments: list[str]):
        args = [ffi.new("char[]", a.encode()) for a in arguments]
        rep = ffi.new("clingo_control_t**")
        check(lib.clingo_control_new(ffi.new("char*[]", args), len(args), _NULL, _NULL, 20, rep))
        self._rep = rep[0]
        nothing = ffi.new("clingo_ground_program_observer_t*")      # every callback NULL
        check(lib.clingo_control_register_observer(self._rep, nothing, True, _NULL))

    def backend_begin(self):
        """The backend, opened for adding atoms and rules (close with backend_end)."""
        got = ffi.new("clingo_backend_t**")
        check(lib.clingo_control_backend(self._rep, got))
        check(lib.clingo_backend_begin(got[0]))
        return got[0]

    @staticmethod
    def backend_end(backend) -> None:
        check(lib.clingo_backend_end(backend))

    def add(self, part: str, text: str) -> None:
        check(lib.clingo_control_add(self._rep, part.encode(), _NULL, 0, text.encode()))

    def ground(self, part: str, context=None) -> None:
        """Ground ``part``; ``context``: the object whose methods the program's
        ``@name(...)`` terms call (through the package's grounding callback: the
        package is imported for it)."""
        if context is not None:
            import clingo
            # a control made of a C handle is the package's wrapper of it (not freed by it)
            clingo.Control(self._rep).ground([(part, [])], context=context)
            return
        name = ffi.new("char[]", part.encode())
        parts = ffi.new("clingo_part_t[]", 1)
        parts[0].name = name
        parts[0].params = _NULL
        parts[0].size = 0
        check(lib.clingo_control_ground(self._rep, parts, 1, _NULL, _NULL))

    def symbolic_atoms(self):
        """The C handle of the symbolic atoms (the fast reader's)."""
        got = ffi.new("clingo_symbolic_atoms_t**")
        check(lib.clingo_control_symbolic_atoms(self._rep, got))
        return got[0]

    def atom_count(self) -> int:
        got = ffi.new("size_t*")
        check(lib.clingo_symbolic_atoms_size(self.symbolic_atoms(), got))
        return got[0]

    def close(self) -> None:
        rep, self._rep = self._rep, None
        if rep is not None and lib is not None:
            lib.clingo_control_free(rep)

    __del__ = close
