"""``tilemem verify``: check the TileMemoryInferred property on programs as written."""
import sys

from tilemem.commands.common import (EXIT_CHECK, EXIT_INPUT, EXIT_OK, add_cache_options, add_inputs,
                                     add_output_format, add_parser, add_reading_options,
                                     add_solver_options, reading_form, wrap)


def register(sub):
    p = add_parser(sub, "verify", help="check that every tile has a valid memory space",
                   description=wrap("Check the TileMemoryInferred property on programs as written "
                                    "(rules/verify.dl): every tile var defined by an assignment has "
                                    "a memory space, and every constrained operand lies in a space "
                                    "its op accepts. Each violation is a diagnostic on stdout "
                                    "(path:line:col: error: ..., or --output-format json, github, "
                                    "sarif); exit 1 when there is any. Files, directories (every "
                                    "*.pto under them) and - are taken as by solve. Run it on the "
                                    "output of `tilemem solve`."))
    add_inputs(p, many=True)
    add_solver_options(p, backend=False)
    add_output_format(p, "the violations")
    p.add_argument("--json", action="store_true", help="the same as --output-format json")
    add_reading_options(p)
    add_cache_options(p)
    p.set_defaults(func=run)


def verify_file(path_arg: str, args):
    """(display path, diagnostics) of one input: its violations, or why it cannot be read
    (from the result cache when it holds the answer)."""
    from tilemem.commands.common import read_arg, result_cache
    from tilemem.commands.report import error_diagnostic
    from tilemem.errors import TilememError
    path = path_arg if path_arg != "-" else (args.stdin_filename or "<stdin>")
    try:
        text, path = read_arg(args, path_arg)
    except TilememError as e:
        return e.path, [error_diagnostic(e, path)]
    cache = result_cache(args)
    key = None
    if cache is not None:
        from tilemem.tools.diagnostics import Diagnostic
        key = _key(args, text, path)
        got = cache.get(key)
        if got is not None:
            try:
                return got["path"], [Diagnostic(*d) for d in got["diagnostics"]]
            except (TypeError, KeyError):   # not what this version stores: verify it again
                pass
    return _stored(cache, key, *_verify_text(args, text, path))


def _verify_text(args, text: str, path: str):
    """(display path, diagnostics) of verifying the program text read from ``path``."""
    from tilemem.commands.common import read_programs
    from tilemem.commands.report import error_diagnostics
    from tilemem.datalog import DatalogError
    from tilemem.errors import TilememError, UsageError
    from tilemem.frontend.check.alongside import check_program_unless_apart, checks_alongside
    from tilemem.tools.diagnostics import Diagnostic
    from tilemem.tools.verify import verify
    try:
        violations = []
        # a large program's printed-IR check on a spare core while it is verified (its
        # error, if any, is the answer: tilemem.frontend.check.alongside)
        with checks_alongside():
            for program in read_programs(args, text, path):     # a .py module: each program
                check_program_unless_apart(program, path)
                violations.extend(verify(program, path, args.rules or (), engine=args.engine))
    except (UsageError, DatalogError):
        raise                           # a bad rule file or engine: the tool's own failure
    except TilememError as e:
        return e.path, error_diagnostics(e, path)
    except RecursionError:
        return path, [Diagnostic(path, None, None, "input nested too deeply to process",
                                 "input-error")], False
    code = {"unannotated": "unannotated-tile", "operand": "operand-space"}
    return path, [Diagnostic(v.path, v.line, v.col, v.message, code[v.kind], "error",
                             v.error(text).source_line) for v in violations]


def _key(args, text: str, path: str) -> str:
    """The result cache's key of verifying ``text`` under the command's options."""
    import os
    from tilemem.limits import current_limits
    from tilemem.resultcache import result_key
    return result_key("verify", text, path, args.rules or (), form=reading_form(args),
                      program=args.program, limits=repr(current_limits()),
                      engine=args.engine or os.environ.get("TILEMEM_ENGINE") or "default")


def _stored(cache, key, path: str, diagnostics: list, keep: bool = True) -> tuple[str, list]:
    """(path, diagnostics), stored in the result cache first (``key`` None or not
    ``keep``: not; the recursion limit depends on the process, not the input)."""
    if key is not None and keep:
        cache.put(key, {"path": path, "diagnostics": [
            [d.path, d.line, d.col, d.message, d.code, d.severity, d.source_line]
            for d in diagnostics]})
    return path, diagnostics


def run(args) -> int:
    from tilemem.commands.report import Report
    from tilemem.errors import UsageError
    from tilemem.tools.batch import expand_inputs
    if args.json:
        if args.output_format not in (None, "text", "json") and \
                args.settings.values["output-format"].origin == "command line":
            raise UsageError("--json is --output-format json: give one of them")
        args.output_format = "json"
    if "-" in args.files and len(args.files) > 1:
        raise UsageError("standard input (-) can only be verified on its own")
    if args.rules:          # a bad rule file fails once, up front (the shipped rules are
        from tilemem.infer.solver import load_rules     # loaded by the first verify that
        load_rules(tuple(args.rules))                   # is not answered from the cache)
    files, problems = expand_inputs(args.files, include=args.include,
                                    exclude_patterns=args.exclude or ())
    for msg in problems:
        print(msg, file=sys.stderr)
    report = Report(args)
    n_input = 0
    for path_arg, _ in files:
        path, diags = verify_file(path_arg, args)
        n_input += any(d.code == "input-error" for d in diags)
        report.file(path, diags)
        if args.verbose:
            print(f"tilemem: {path}: {len(diags)} diagnostic{'s' if len(diags) != 1 else ''}",
                  file=sys.stderr)
    n_viol = report.count("unannotated-tile", "operand-space")
    summary = {"files": len(files), "violations": n_viol, "failed": n_input}
    report.finish(summary)
    if report.fmt == "text" and not args.quiet and (n_viol or len(files) > 1):
        bad = sum(1 for p in report.files
                  if any(d.path == p and d.code != "input-error" for d in report.diagnostics))
        print(f"Found {n_viol} violation{'s' if n_viol != 1 else ''} of TileMemoryInferred in "
              f"{bad} file{'s' if bad != 1 else ''} (checked {len(files)} "
              f"file{'s' if len(files) != 1 else ''})" if n_viol else
              f"No violations of TileMemoryInferred (checked {len(files)} "
              f"file{'s' if len(files) != 1 else ''})")
    if n_input or problems:
        return EXIT_INPUT
    return EXIT_CHECK if n_viol else EXIT_OK
