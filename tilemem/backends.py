"""Backend names (backend.md §1): none, Ascend910B, Ascend950."""
from __future__ import annotations

TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.errors import UsageError

_ALIASES = {
    "none": None, "null": None, "": None,
    "910b": "Ascend910B", "ascend910b": "Ascend910B",
    "950": "Ascend950", "ascend950": "Ascend950",
}

BACKENDS = ("none", "910B", "950", "Ascend910B", "Ascend950")


def normalize_backend(name: Optional[str]) -> Optional[str]:
    """Canonical backend name, or None when no backend is configured.

    Accepts ``none``, ``910B``/``950`` and ``Ascend910B``/``Ascend950`` in any case.
    """
    if name is None:
        return None
    key = str(name).strip().lower()
    if key not in _ALIASES:
        raise UsageError(f"unknown backend '{name}' (expected one of: none, 910B, 950, Ascend910B, Ascend950)")
    return _ALIASES[key]
