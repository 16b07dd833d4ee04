"""The pre-commit hooks (``.pre-commit-hooks.yaml``): ``python -m tilemem.tools.precommit
verify|fmt-check FILE...``.

pre-commit hands a hook every staged file its ``files`` pattern matches (``.pto`` and
``.py``); a ``.py`` module that holds no ``@pl.program`` class is none of tilemem's
business and is skipped here.  The rest:

* ``verify``: a ``.pto`` file must hold TileMemoryInferred as written (``tilemem
  verify``: a committed pass output); a ``.py`` module's programs are hand-written DSL,
  which leaves the spaces to the pass, so each must solve and PyPTO's answer keep the
  property (``tilemem solve --strict``: no contract warning);
* ``fmt-check``: a ``.pto`` file must be in PyPTO's canonical form (``tilemem fmt
  --check``); a ``.py`` module's programs must read (PyPTO's front end accepts them).

Exit status as tilemem's: 0 clean, 1 a check failed, 2 a file could not be read.
"""
from __future__ import annotations

import sys
from typing import Optional, Sequence

from tilemem.commands.common import EXIT_CHECK, EXIT_INPUT, EXIT_OK

HOOKS = ("verify", "fmt-check")


def _programs_of_python(files: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the printed-IR files, the Python modules that may hold programs) among ``files``."""
    from tilemem.input_text import read_source
    from tilemem.frontend.reading import may_hold_programs
    pto, py = [], []
    for f in files:
        if not f.endswith(".py"):
            pto.append(f)
            continue
        try:
            if may_hold_programs(read_source(f)):
                py.append(f)
        except Exception:            # unreadable: let the check say so
            py.append(f)
    return pto, py


def _check_modules(paths: Sequence[str], solve: bool) -> int:
    """Read (and with ``solve``, solve strictly) every program of each module; print a
    diagnostic per problem; the worst exit status."""
    from tilemem.api import solve_all
    from tilemem.commands.report import warning_diagnostics
    from tilemem.errors import TilememError
    from tilemem.input_text import read_source
    from tilemem.frontend.reading import read_programs
    from tilemem.tools.colors import Style
    from tilemem.tools.diagnostics import from_error, render_text
    style = Style(False)
    status = EXIT_OK
    for path in paths:
        try:
            if solve:
                for sol in solve_all(read_source(path), path=path):
                    for d in warning_diagnostics(sol.warnings):
                        print(render_text(d, style))
                        status = max(status, EXIT_CHECK)
            else:
                read_programs(read_source(path), path)
        except TilememError as e:
            print(render_text(from_error(e), style))
            status = EXIT_INPUT
    return status


def run_hook(hook: str, files: Sequence[str]) -> int:
    from tilemem.cli import main
    pto, py = _programs_of_python(files)
    status = EXIT_OK
    if pto:
        args = ["verify", "-q", *pto] if hook == "verify" else ["fmt", "--check", *pto]
        status = main(args)
    if py:
        status = max(status, _check_modules(py, solve=hook == "verify"))
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in HOOKS:
        print(f"usage: python -m tilemem.tools.precommit {{{','.join(HOOKS)}}} FILE...",
              file=sys.stderr)
        return EXIT_INPUT
    return run_hook(args[0], args[1:])


if __name__ == "__main__":
    sys.exit(main())
