"""The server's settings: the client's over ``[tool.tilemem]`` over the defaults.

The client gives them as ``initializationOptions`` or, later, in
``workspace/didChangeConfiguration`` (``{"tilemem": {...}}`` or the table itself)::

    {"backend": "910B",          # as [tool.tilemem] backend (none | 910B | 950 | ...)
     "engine": "clingo",         # as [tool.tilemem] engine
     "rules": ["ops/my.dl"],     # extra rule files
     "verify": "information",    # severity of TileMemoryInferred violations
                                 # (error | warning | information | hint | off)
     "debounce": 0.3}            # seconds of quiet after an edit before it is solved

``backend``, ``engine`` and ``rules`` the client leaves unset come from the nearest
``pyproject.toml`` with a ``[tool.tilemem]`` table above the document, then from the
environment (``TILEMEM_BACKEND``, ...), as for the command line (:mod:`tilemem.config`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Optional

VERIFY_LEVELS = ("error", "warning", "information", "hint", "off")
DEFAULT_DEBOUNCE = 0.3


@dataclass(frozen=True)
class ClientSettings:
    """What the client said (None: not said)."""
    backend: Optional[str] = None
    engine: Optional[str] = None
    rules: Optional[tuple[str, ...]] = None
    verify: str = "information"
    debounce: float = DEFAULT_DEBOUNCE

    @classmethod
    def from_options(cls, options: Any, base: Optional["ClientSettings"] = None) -> "ClientSettings":
        """Settings from a client's options object (unknown keys and bad values ignored:
        a typo in an editor's configuration must not stop the server)."""
        base = base or cls()
        if not isinstance(options, Mapping):
            return base
        if isinstance(options.get("tilemem"), Mapping):
            options = options["tilemem"]
        backend = options.get("backend", base.backend)
        engine = options.get("engine", base.engine)
        rules = options.get("rules", base.rules)
        verify = options.get("verify", base.verify)
        debounce = options.get("debounce", base.debounce)
        return cls(
            backend=backend if isinstance(backend, str) else base.backend,
            engine=engine if isinstance(engine, str) else base.engine,
            rules=tuple(rules) if isinstance(rules, (list, tuple)) and
            all(isinstance(r, str) for r in rules) else base.rules,
            verify=verify if verify in VERIFY_LEVELS else base.verify,
            debounce=float(debounce) if isinstance(debounce, (int, float)) and
            0 <= debounce <= 10 else base.debounce,
        )


@dataclass(frozen=True)
class Effective:
    """The settings one document is solved with, and where the backend came from."""
    backend: Optional[str]
    engine: Optional[str]
    rules: tuple[str, ...]
    backend_origin: str            # "client settings", "<path> [tool.tilemem]", ...


def effective(client: ClientSettings, path: str) -> Effective:
    """The settings for the document at ``path`` (raises :class:`tilemem.config.ConfigError`
    for a pyproject.toml that cannot be used)."""
    from tilemem.config import load_settings
    cli = {"backend": client.backend, "engine": client.engine,
           "rules": list(client.rules) if client.rules is not None else None}
    inputs = [path] if os.path.isabs(path) else []
    s = load_settings(cli, inputs, keys=("backend", "engine", "rules"))
    b = s.values["backend"]
    origin = "client settings" if b.origin == "command line" else b.describe()
    return Effective(s["backend"], s["engine"], tuple(s["rules"] or ()), origin)
