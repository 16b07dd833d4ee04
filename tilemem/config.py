"""Settings from the command line, the environment and ``[tool.tilemem]`` in pyproject.toml.

As ruff and black do: the nearest ``pyproject.toml`` holding a ``[tool.tilemem]`` table,
searched upwards from the common directory of the inputs (the current directory when
there are none), gives the project's defaults; ``TILEMEM_BACKEND`` / ``TILEMEM_ENGINE`` /
``TILEMEM_OUTPUT_FORMAT`` override the file, and the command line overrides both.
Every setting remembers where its value came from (``tilemem config`` shows it).

    [tool.tilemem]
    backend = "910B"              # none | 910B | 950 | Ascend910B | Ascend950
    engine = "clingo"             # pydatalog | clingo
    rules = ["ops/my_ops.dl"]     # extra rule files, relative to this pyproject.toml
    include = ["*.pto"]           # file names taken from directories
    exclude = ["build", "gen/"]   # names or relative paths skipped in directories
    output-format = "github"      # text | json | github | sarif
    cache-dir = ".tilemem_cache"  # the result cache (tilemem.resultcache), relative to this file
"""
from __future__ import annotations

import os
from pathlib import Path
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Any, Mapping, Optional, Sequence

from tilemem.errors import UsageError
from tilemem.records import DICT, Fresh, Record, record

__all__ = ["Setting", "Settings", "ConfigError", "find_config", "load_settings", "KEYS"]

ENGINES = ("pydatalog", "clingo")
OUTPUT_FORMATS = ("text", "json", "github", "sarif")

#: key -> (what it holds, the environment variable that overrides it, its default)
KEYS: dict[str, tuple[str, Optional[str], Any]] = {
    "backend": ("str", "TILEMEM_BACKEND", None),
    "engine": ("str", "TILEMEM_ENGINE", None),
    "rules": ("list", None, ()),
    "include": ("list", None, ("*.pto",)),
    "exclude": ("list", None, ()),
    "output-format": ("str", "TILEMEM_OUTPUT_FORMAT", "text"),
    "cache-dir": ("str", "TILEMEM_RESULT_CACHE_DIR", None),
}


class ConfigError(UsageError):
    """A pyproject.toml whose ``[tool.tilemem]`` table cannot be used (said with its path)."""


@record(frozen=True)
class Setting(Record):
    """One effective value and where it came from: ``default``, ``environment``
    (``detail``: the variable), ``file`` (``detail``: the pyproject.toml) or
    ``command line`` (``detail``: the option)."""
    def __init__(self, value: Any, origin: str = "default", detail: Optional[str] = None):
        self.value, self.origin, self.detail = value, origin, detail

    def describe(self) -> str:
        if self.origin == "default":
            return "default"
        if self.origin == "file":
            return f"{self.detail} [tool.tilemem]"
        return f"{self.origin} ({self.detail})"


@record(extras=True)
class Settings(Record):
    """The effective settings of one invocation (see the module docstring)."""
    def __init__(self, values: dict[str, Setting] = DICT, config_file: Optional[Path] = None):
        self.config_file = config_file
        self.values = values.factory() if type(values) is Fresh else values

    def __getitem__(self, key: str):
        return self.values[key].value

    def to_dict(self) -> dict:
        return {"config_file": str(self.config_file) if self.config_file else None,
                "settings": {k: {"value": list(s.value) if isinstance(s.value, tuple) else s.value,
                                 "origin": s.origin, "detail": s.detail}
                             for k, s in self.values.items()}}


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    import difflib          # only for a misspelt setting
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def find_config(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml at or above ``start`` that has a ``[tool.tilemem]``
    table (a pyproject.toml without one is passed over, as ruff does)."""
    d = start.resolve()
    if d.is_file():
        d = d.parent
    for cand in (d, *d.parents):
        p = cand / "pyproject.toml"
        if p.is_file():
            if "tilemem" in _read_toml(p).get("tool", {}):
                return p
        elif os.path.lexists(p):
            # a dangling link or a directory where the nearer configuration would be:
            # skipping it would silently take a farther one
            raise ConfigError(f"{p}: cannot read: {_not_a_file(p)} (fix it, or choose the "
                              "configuration with --config FILE or --isolated)")
    return None


def _not_a_file(p: Path) -> str:
    """Why ``p``, which exists as a name, is not a configuration file one can read."""
    if p.is_symlink() and not p.exists():
        return f"a symbolic link to '{os.readlink(p)}', which does not exist"
    if p.is_dir():
        return "it is a directory"
    return "not a regular file"


def _read_toml(path: Path) -> dict:
    import tomllib              # only when there is a pyproject.toml to read
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None


def read_table(path: Path) -> dict[str, Any]:
    """The validated ``[tool.tilemem]`` table of ``path`` (rule paths made absolute)."""
    table = _read_toml(path).get("tool", {}).get("tilemem", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.tilemem] must be a table")
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{path}: [tool.tilemem]: unknown key '{key}'"
                              f"{_did_you_mean(key, list(KEYS))}; known keys: {', '.join(KEYS)}")
        kind = KEYS[key][0]
        if kind == "str" and not isinstance(value, str):
            raise ConfigError(f"{path}: [tool.tilemem] {key} must be a string, not {value!r}")
        if kind == "list":
            if isinstance(value, str):
                value = [value]
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise ConfigError(f"{path}: [tool.tilemem] {key} must be a list of strings")
            value = tuple(value)
        if key == "rules":
            value = tuple(str((path.parent / v)) if not os.path.isabs(v) else v for v in value)
        if key == "cache-dir" and not os.path.isabs(value):
            value = str(path.parent / value)
        out[key] = _checked(key, value, f"{path}: [tool.tilemem] {key}")
    return out


def _checked(key: str, value, where: Optional[str]):
    """The value of a setting, validated (backends normalised); ``where`` prefixes errors."""
    if value is None:
        return value
    try:
        if key == "backend":
            from tilemem.backends import normalize_backend
            normalize_backend(value)
        elif key == "engine" and value not in ENGINES:
            raise UsageError(f"unknown engine '{value}'{_did_you_mean(value, ENGINES)} "
                             f"(expected one of: {', '.join(ENGINES)})")
        elif key == "output-format" and value not in OUTPUT_FORMATS:
            raise UsageError(f"unknown output format '{value}'{_did_you_mean(value, OUTPUT_FORMATS)}"
                             f" (expected one of: {', '.join(OUTPUT_FORMATS)})")
    except UsageError as e:
        if where is None:               # the command line: the message says it all
            raise
        raise ConfigError(f"{where}: {e}") from None
    return value


def search_start(inputs: Sequence[str], stdin_filename: Optional[str] = None) -> Path:
    """Where the search for pyproject.toml starts: the deepest common directory of the
    inputs (``-`` stands for ``--stdin-filename``, else the current directory)."""
    dirs = []
    for p in inputs:
        if p == "-":
            p = stdin_filename or "."
        ap = os.path.abspath(p)
        dirs.append(ap if os.path.isdir(ap) else os.path.dirname(ap))
    if not dirs:
        return Path.cwd()
    try:
        return Path(os.path.commonpath(dirs))
    except ValueError:                 # different drives (Windows)
        return Path.cwd()


def load_settings(cli: Mapping[str, Any], inputs: Sequence[str] = (), *,
                  stdin_filename: Optional[str] = None, config: Optional[str] = None,
                  isolated: bool = False, env: Optional[Mapping[str, str]] = None,
                  keys: Optional[Sequence[str]] = None) -> Settings:
    """The effective settings: ``cli`` (key -> value given on the command line, None when
    not given) over the environment over the config file over the defaults.

    ``config``: an explicit pyproject.toml (``--config``); ``isolated``: read no file.
    ``keys``: the settings the command uses (default: all).
    """
    env = os.environ if env is None else env
    path: Optional[Path] = None
    if config and not isolated:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(f"{config}: " + ("no such configuration file" if not os.path.lexists(path)
                                                else f"cannot read: {_not_a_file(path)}"))
    elif not isolated:
        path = find_config(search_start(inputs, stdin_filename))
    table = read_table(path) if path else {}
    settings = Settings(config_file=path)
    for key in keys or KEYS:
        _, var, default = KEYS[key]
        opt = "--" + key
        if cli.get(key) is not None:
            value = cli[key]
            if KEYS[key][0] == "list":
                value = tuple(value)
            settings.values[key] = Setting(_checked(key, value, None), "command line", opt)
        elif var and env.get(var):
            settings.values[key] = Setting(_checked(key, env[var], f"${var}"), "environment", var)
        elif key in table:
            settings.values[key] = Setting(table[key], "file", str(path))
        else:
            settings.values[key] = Setting(default)
    return settings
