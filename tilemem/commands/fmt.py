"""``tilemem fmt``: print programs in PyPTO's canonical form.

Printed IR is printed back as PyPTO's printer prints it; hand-written DSL as PyPTO
prints what its front end builds from it (every default filled in, every type
deduced), so users see what the compiler sees.  A module holding several programs
prints each (each starts with its ``# pypto.program: NAME`` header).
"""
import sys

from tilemem.commands.common import (EXIT_CHECK, EXIT_INPUT, EXIT_OK, add_inputs, add_output_format,
                                     add_parser, add_reading_options, emit, read_programs, style,
                                     wrap)


def register(sub):
    p = add_parser(sub, "fmt", help="parse and print a program in PyPTO's canonical form",
                   description=wrap("Parse each program and print it the way PyPTO's printer "
                                    "does (the canonical form: the one `tilemem solve` prints). "
                                    "One file: the formatted text on stdout (or -o). --check: "
                                    "exit 1 when a file is not canonical (a diagnostic per file, "
                                    "see --output-format); --diff: print what would change; "
                                    "-i: rewrite files in place. Files, directories (every "
                                    "*.pto under them) and - are taken as by solve. Hand-written "
                                    "DSL (a .py module or DSL text) prints as PyPTO prints what "
                                    "its front end builds from it."))
    add_inputs(p, many=True)
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout (one input only)")
    mode = p.add_argument_group("what to do with the result")
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 when a file is not already canonical")
    mode.add_argument("--diff", action="store_true",
                      help="print a unified diff of each file vs its canonical form")
    mode.add_argument("-i", "--in-place", action="store_true",
                      help="rewrite each file that is not canonical (atomically)")
    add_output_format(mode, "the diagnostics of --check")
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="an extra rule file whose op facts declare ops of your own; repeatable")
    add_reading_options(p)
    p.set_defaults(func=run)


def _options(args, several: bool):
    from tilemem.errors import UsageError
    if args.output and (several or args.in_place or args.check):
        raise UsageError("-o/--output takes one input file and excludes --in-place and --check")
    if args.in_place and "-" in args.files:
        raise UsageError("--in-place needs a file, not standard input")
    if "-" in args.files and len(args.files) > 1:
        raise UsageError("standard input (-) can only be formatted on its own")
    if args.in_place and args.check:
        raise UsageError("--check writes nothing: drop --in-place")
    s = args.settings.values.get("output-format")
    if s is not None and s.origin == "command line" and not args.check:
        raise UsageError("--output-format formats the diagnostics of --check")
    if several and not (args.check or args.diff or args.in_place):
        raise UsageError("several inputs: say what to do with them (--check, --diff or --in-place)")


def run(args) -> int:
    import os
    from tilemem.commands.common import read_arg_identity, write_atomic
    from tilemem.commands.report import Report, error_diagnostic
    from tilemem.errors import TilememError, UnlocatedError
    from tilemem.ir.printer import print_program
    from tilemem.tools.batch import expand_inputs, is_changed, unified_diff, with_newline
    from tilemem.tools.diagnostics import Diagnostic, first_difference
    several = len(args.files) > 1 or any(f != "-" and os.path.isdir(f) for f in args.files)
    _options(args, several)
    files, problems = expand_inputs(args.files, include=args.include,
                                    exclude_patterns=args.exclude or ())
    for msg in problems:
        print(msg, file=sys.stderr)
    report = Report(args) if args.check else None
    st = style(args, data=True)
    n_changed = n_failed = 0
    for path_arg, _ in files:
        try:
            text, path, identity = read_arg_identity(args, path_arg, identity=bool(args.in_place))
            progs = read_programs(args, text, path)
            if args.in_place and progs[0].reading == "dsl":
                from tilemem.errors import UsageError
                raise UsageError(f"{path}: -i rewrites printed IR, and this file is hand-written DSL "
                                 "(write its canonical form with -o FILE)")
            out = with_newline("\n\n".join(print_program(p, path) for p in progs))
        except UnlocatedError:
            raise                       # a bad option: the tool's own failure
        except TilememError as e:
            n_failed += 1
            if report is not None:
                report.file(e.path, [error_diagnostic(e, e.path)])
                continue
            if not several:
                raise
            print(e.format() if not args.quiet else e.format_first_line(), file=sys.stderr)
            continue
        changed = is_changed(text, out)
        n_changed += changed
        if args.verbose:
            print(f"tilemem: {path}: {'not canonical' if changed else 'canonical'}", file=sys.stderr)
        if report is not None:
            diags = []
            diff = ""
            if changed:
                line, col, src = first_difference(text, out)
                diags.append(Diagnostic(path, line, col, "not in canonical form (tilemem fmt "
                                        "would reformat this file)", "not-formatted", "error", src))
                if args.diff:
                    diff = report.style.diff(unified_diff(text, out, path))
            report.file(path, diags, diff)
            continue
        if args.diff:
            if changed:
                sys.stdout.write(st.diff(unified_diff(text, out, path)))
        if args.in_place:
            if changed:
                write_atomic(path_arg, out, identity)
        elif not args.diff:
            emit(st.program(out) if not args.output or args.output == "-" else out, args.output)
    if report is not None:
        report.finish({"files": len(files), "changed": n_changed, "failed": n_failed})
    if several and not args.quiet and (report is None or report.fmt == "text"):
        word = "would be reformatted" if args.check or (args.diff and not args.in_place) else "reformatted"
        print(f"tilemem: {len(files)} file{'s' if len(files) != 1 else ''}, {n_changed} {word}, "
              f"{n_failed} failed", file=sys.stderr)
    if n_failed or problems:
        return EXIT_INPUT
    return EXIT_CHECK if (args.check and n_changed) else EXIT_OK
