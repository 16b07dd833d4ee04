"""``tilemem config``: the effective settings and where each one came from."""
import json
import sys

from tilemem.commands.common import EXIT_OK, add_parser, wrap


def register(sub):
    p = add_parser(sub, "config", help="show the effective settings and where each came from",
                   description=wrap(
                       "Show the settings the other commands would use here: each value and "
                       "its origin — the command line, the environment ($TILEMEM_BACKEND, "
                       "$TILEMEM_ENGINE, $TILEMEM_OUTPUT_FORMAT), [tool.tilemem] in the nearest "
                       "pyproject.toml (searched upwards from the common directory of FILEs, "
                       "else from the current directory), or the default. The command line "
                       "wins over the environment, which wins over the file. Give --backend "
                       "etc. to see their effect."))
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="inputs whose configuration to show (default: the current directory)")
    p.add_argument("--backend", default=None, help="as for solve")
    p.add_argument("--engine", default=None, help="as for solve")
    p.add_argument("--rules", action="append", metavar="FILE", help="as for solve")
    p.add_argument("--exclude", action="append", metavar="PATTERN", help="as for solve")
    p.add_argument("--output-format", default=None, help="as for verify")
    p.add_argument("--stdin-filename", metavar="PATH", help="as for solve")
    p.add_argument("--json", action="store_true", help="print the settings as JSON")
    p.set_defaults(func=run)


def _value(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(json.dumps(x) for x in v) + "]"
    return json.dumps(v)


def run(args) -> int:
    from tilemem.backends import normalize_backend
    s = args.settings
    if args.json:
        doc = {"schema": "tilemem-config/1", **s.to_dict()}
        b = doc["settings"]["backend"]
        b["canonical"] = normalize_backend(b["value"])
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return EXIT_OK
    print(f"config file: {s.config_file or '(none: no pyproject.toml with [tool.tilemem] found)'}")
    width = max(len(k) for k in s.values)
    for key, setting in s.values.items():
        shown = _value(setting.value)
        if key == "engine" and setting.value is None:
            from tilemem.datalog import DEFAULT_ENGINE
            shown = f"(the default: {DEFAULT_ENGINE})"
        if key == "cache-dir" and setting.value is None:
            from tilemem.resultcache import default_dir
            shown = f"(the default: {default_dir(s.config_file)})"
        if key == "backend" and setting.value is not None:
            canonical = normalize_backend(setting.value)
            if canonical != setting.value:
                shown += f" ({canonical or 'none'})"
        print(f"{key:<{width}}  {shown:<24}  # {setting.describe()}")
    return EXIT_OK
