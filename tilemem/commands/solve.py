"""``tilemem solve``: annotate a program with memory spaces and moves.

One file: print (or ``-o``/``--in-place`` write) the solved program, or its diff
(``--diff``), or check it is already solved (``--check``), or the solution as JSON
(``--json``).  Several files or a directory: the same per file, as a batch
(``--out-dir``, ``-j``), with a progress bar on a terminal and a summary line.
"""
import os
import sys
import time

from tilemem.commands.common import (EXIT_CHECK, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, add_inputs,
                                     add_output_format, add_parser, add_reading_options,
                                     add_solver_options, add_cache_options, emit, reading_form,
                                     style, wrap)


def register(sub):
    p = add_parser(
        sub, "solve", help="annotate a program with memory spaces and moves",
        description=wrap("Print the program with every tile's memory space inferred and tile.move "
                         "inserted where producer and consumer disagree. With several files or a "
                         "directory (every *.pto under it, recursively) it runs as a batch: use "
                         "--out-dir, --in-place, --check, --diff or --json. Defaults for --backend, "
                         "--engine and --rules come from $TILEMEM_BACKEND / $TILEMEM_ENGINE and "
                         "[tool.tilemem] in the nearest pyproject.toml (see `tilemem config`)."))
    add_inputs(p, many=True)
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout (one input only)")
    add_solver_options(p, backend_help="none (default), 910B / Ascend910B, 950 / Ascend950 (any case)")
    out = p.add_argument_group("what to do with the result")
    out.add_argument("--diff", action="store_true",
                     help="print a unified diff of input vs solved program instead of the program "
                          "(with --json: a \"diff\" field in each solution)")
    out.add_argument("--check", action="store_true",
                     help="write nothing; exit 1 when solving would change a file (text: its diff "
                          "and a diagnostic; see --output-format)")
    out.add_argument("-i", "--in-place", action="store_true",
                     help="rewrite each input file atomically (only files that change)")
    out.add_argument("--report", action="store_true",
                     help="also print, on stderr, the residency verdict of every marked Mat load "
                          "and chain step in a loop: hoisted, or every rule that refused it (most "
                          "fundamental first) and what would make it legal "
                          "(needs --backend), and every operand PyPTO's answer leaves in a space "
                          "its op does not accept")
    out.add_argument("--strict", action="store_true",
                     help="exit 1 when solving warns: PyPTO's answer breaks TileMemoryInferred "
                          "(an operand left in a space its op does not accept), or bridge marks "
                          "without a backend; the output is written all the same")
    out.add_argument("--json", action="store_true",
                     help="print the solution as JSON (spaces, moves, residency; schema in README); "
                          "errors too are JSON")
    out.add_argument("--out-dir", metavar="DIR",
                     help="write each solved file under DIR, mirroring the inputs' tree (batch)")
    add_output_format(out, "the diagnostics of --check")
    add_reading_options(p)
    add_cache_options(p)
    bat = p.add_argument_group("batch")
    bat.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                     help="solve with N worker processes (0: one per CPU); results stay in input order")
    from tilemem.commands.common import _seconds, _size
    from tilemem.tools.batch import DEFAULT_MEMORY, DEFAULT_TIMEOUT
    bat.add_argument("--timeout-per-file", type=_seconds, default=DEFAULT_TIMEOUT, metavar="S",
                     help=f"give up a file after S seconds and go on (default {DEFAULT_TIMEOUT:g}: "
                          "ten times the largest real kernel; 0: no limit)")
    bat.add_argument("--memory-per-file", type=_size, default=DEFAULT_MEMORY, metavar="SIZE",
                     help=f"memory a worker may use for one file (default {DEFAULT_MEMORY >> 30}G; "
                          "0: no limit); a file that needs more is reported and the batch goes on")
    p.set_defaults(func=run)


def _given(args, key: str) -> bool:
    s = getattr(args, "settings", None)
    return s is not None and key in s.values and s.values[key].origin == "command line"


def _check_options(args, batch: bool):
    from tilemem.errors import UsageError
    if args.output and (batch or args.in_place or args.out_dir):
        raise UsageError("-o/--output takes one input file and excludes --in-place and --out-dir")
    if args.check and (args.in_place or args.out_dir or args.output):
        raise UsageError("--check writes nothing: drop --in-place/--out-dir/-o")
    if args.in_place and args.out_dir:
        raise UsageError("choose one of --in-place and --out-dir")
    if args.in_place and "-" in args.files:
        raise UsageError("--in-place needs a file, not standard input")
    if batch and "-" in args.files:
        if len(args.files) == 1:
            raise UsageError("--out-dir needs files or directories, not standard input")
        raise UsageError("standard input (-) can only be solved on its own")
    if args.jobs < 0:
        raise UsageError("-j/--jobs must be 0 (one per CPU) or more")
    if _given(args, "output-format") and not args.check:
        raise UsageError("--output-format formats the diagnostics of --check (for the solution "
                         "as JSON, use --json)")
    if args.json and args.check and _given(args, "output-format") and args.output_format != "json":
        raise UsageError("--json prints the solutions; drop it to get --check's diagnostics "
                         f"as {args.output_format}")
    if batch and not (args.out_dir or args.in_place or args.check or args.diff or args.json):
        raise UsageError("several inputs: say what to do with the results "
                         "(--out-dir DIR, --in-place, --check, --diff or --json)")
    if args.out_dir:
        out = os.path.abspath(args.out_dir)
        for f in args.files:
            a = os.path.abspath(f)
            if a == out or a.startswith(out + os.sep):
                raise UsageError(f"the inputs ({f}) are inside the output directory {args.out_dir}: "
                                 "results would overwrite or mix with them; choose an --out-dir "
                                 "outside the inputs (or use --in-place)")


def run(args) -> int:
    files = args.files
    batch = len(files) > 1 or bool(args.out_dir) or any(f != "-" and os.path.isdir(f) for f in files)
    _check_options(args, batch)
    if args.engine:
        from tilemem.datalog import EngineUnavailable, engine_class
        from tilemem.errors import UsageError
        try:
            engine_class(args.engine)
        except EngineUnavailable as err:
            raise UsageError(str(err)) from None
    if batch:
        return _run_batch(args)
    return _run_one(args, files[0])


def print_warnings(warnings, args) -> None:
    """Warnings about an input (e.g. bridge marks without a backend) on stderr."""
    if not warnings:
        return
    from tilemem.commands.report import warning_diagnostics
    from tilemem.tools.diagnostics import render_text
    if getattr(args, "quiet", False):
        return
    st = style(args, sys.stderr)
    for d in warning_diagnostics(warnings):
        print(render_text(d, st), file=sys.stderr)


def _cache_dir(args):
    from tilemem.commands.common import result_cache
    cache = result_cache(args)
    return None if cache is None else cache.directory


def _run_one(args, path_arg: str) -> int:
    from tilemem.commands.common import read_arg, read_arg_identity, result_cache, write_atomic
    from tilemem.errors import TilememError, UnlocatedError
    from tilemem.tools.batch import FileResult, INPUT_ERROR, is_changed, solved_programs, \
        unified_diff
    cache = result_cache(args)
    if args.check and not args.json:
        # a check reports a file that cannot be solved as a diagnostic too
        res = FileResult(path_arg)
        solved = None
        try:
            text, res.path = read_arg(args, path_arg)
            res.source = text
            solved = solved_programs(text, res.path, args.backend, args.rules or (), args.engine,
                                     reading_form(args), args.program, single=True,
                                     cache=cache, alongside=True)[0]
            res.text, res.warnings = solved.text, list(solved.warnings)
        except UnlocatedError:
            raise                       # a bad option or rule file: the tool's own failure
        except TilememError as e:
            res.path = e.path
            res.status, res.error = INPUT_ERROR, e.format_first_line()
            res.located = (e.line, e.col, e.message, e.source_line)
            solved = None
        from tilemem.commands.report import Report
        report = Report(args)
        n_changed = _check_file(report, res, args)
        report.finish({"files": 1, "changed": n_changed, "failed": int(res.status != "ok")})
        if solved is not None and args.report:
            print_report(solved, res.path)
        if res.status != "ok":
            return EXIT_INPUT
        return EXIT_CHECK if n_changed or (args.strict and res.warnings) else EXIT_OK
    text, path, identity = read_arg_identity(args, path_arg, identity=bool(args.in_place))
    from tilemem.errors import UsageError

    def check(readings):
        if readings[0] == "dsl" and args.in_place:
            raise UsageError(f"{path}: --in-place rewrites printed IR, and this file is "
                             "hand-written DSL (write the solved program with -o FILE or "
                             "--out-dir)")
        if len(readings) > 1 and args.output:
            raise UsageError(f"{path} holds {len(readings)} programs: choose one with "
                             "--program NAME to write it with -o")

    sols = solved_programs(text, path, args.backend, args.rules or (), args.engine,
                           reading_form(args), args.program, cache=cache, check=check,
                           alongside=True)
    outs = [sol.text for sol in sols]
    if sols[0].base is not None:
        # for hand-written DSL the diff shows what the pass changed: the program as PyPTO's
        # front end sees it (`tilemem fmt`) against the solved one, labelled path::Program
        bases = [sol.base for sol in sols]
        labels = [f"{path}::{sol.name}" for sol in sols]
    else:
        bases, labels = [text], [path]
    changed = [is_changed(b, o) for b, o in zip(bases, outs)]
    if args.in_place and changed[0]:
        write_atomic(path_arg, outs[0], identity)
    from tilemem.tools.colors import Style
    st = style(args, data=True) if not args.output or args.output == "-" else Style(False)
    if args.json:
        import json                     # (~5 M instructions: only for --json)
        docs = []
        for sol, b, o, label, c in zip(sols, bases, outs, labels, changed):
            doc = sol.json(c)
            if args.diff:
                doc["diff"] = unified_diff(b, o, label) if c else ""
            docs.append(doc)
        emit(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2), args.output)
    elif args.diff:
        diffs = [unified_diff(b, o, label) for b, o, label, c in zip(bases, outs, labels, changed) if c]
        if diffs:
            emit(st.diff("".join(diffs)), args.output)
    elif not args.in_place:
        emit(st.program("\n".join(outs)), args.output)
    for sol in sols:
        print_warnings(sol.warnings, args)
        if args.report:
            print_report(sol, path)
    if args.check and any(changed):
        return EXIT_CHECK
    if args.strict and sol.warnings:
        return EXIT_CHECK
    return EXIT_OK


def _check_file(report, res, args) -> int:
    """Report one file of a --check run; returns 1 if solving would change it."""
    from tilemem.commands.report import result_diagnostics, warning_diagnostics
    from tilemem.tools.batch import OK, unified_diff
    from tilemem.tools.diagnostics import Diagnostic, first_difference
    if res.status != OK:
        report.file(res.path, result_diagnostics(res))
        return 0
    diags = warning_diagnostics(res.warnings)
    before = ""
    if res.changed:
        line, col, src = first_difference(res.source, res.text)
        diags.append(Diagnostic(res.path, line, col, "solving would change this file", "not-solved",
                                "error", src))
        before = report.style.diff(unified_diff(res.source, res.text, res.path))
    report.file(res.path, diags, before)
    return int(res.changed)


def print_report(sol, path: str) -> None:
    """The residency verdicts of a SolvedProgram, one per line, compiler-note style, on
    stderr."""
    if sol.report is None:
        print(f"{path}: note: no residency report: no backend configured (use --backend)",
              file=sys.stderr)
        print_contract_report(sol, path)
        return
    if not sol.report:
        print(f"{path}: note: no marked Mat load inside a loop", file=sys.stderr)
    for line_no, lines in sol.report:
        for line in lines:
            print(f"{path}:{line_no or 0}: note: {line}", file=sys.stderr)
    print_contract_report(sol, path)


def print_contract_report(sol, path: str) -> None:
    """Each operand PyPTO's answer leaves outside the spaces its op accepts, as a note
    (the warning itself is printed once, with the other warnings)."""
    from tilemem.infer.contract import CONTRACT_CODE
    for w in sol.warnings:
        if w.code == CONTRACT_CODE:
            fn, var = (w.var or ":").split(":", 1)
            print(f"{path}:{w.line or 0}: note: {fn}: {var}: {w.message}", file=sys.stderr)


def _run_batch(args) -> int:
    import json
    from tilemem.backends import normalize_backend
    from tilemem.commands.common import write_atomic
    from tilemem.commands.report import Report
    from tilemem.errors import UsageError, printable
    from tilemem.infer.solver import load_rules
    from tilemem.tools.batch import (BATCH_SCHEMA, INTERNAL_ERROR, OK, Progress, expand_inputs,
                                     output_paths, run_batch, unified_diff)

    t0 = time.perf_counter()
    backend = normalize_backend(args.backend)        # a bad backend or rule file fails once,
    rules = tuple(args.rules or ())                  # before any work is done
    load_rules(rules)
    files, problems = expand_inputs(args.files, exclude=args.out_dir, include=args.include,
                                    exclude_patterns=args.exclude or ())
    for msg in problems:
        print(msg, file=sys.stderr)
    targets = output_paths(files, args.out_dir) if args.out_dir else [None] * len(files)
    from tilemem.tools.workers import cpu_count
    jobs = args.jobs or cpu_count()
    report = Report(args) if args.check and not args.json else None
    st = style(args, data=True)

    progress = Progress(len(files), enabled=None if not args.quiet else False)
    n_changed = n_input_err = n_internal = n_warned = 0
    docs = []
    try:
        for i, res in enumerate(run_batch([p for p, _ in files], backend, rules, args.json, jobs,
                                          engine=args.engine, timeout=args.timeout_per_file,
                                          memory=args.memory_per_file,
                                          cache_dir=_cache_dir(args),
                                          identity=bool(args.in_place))):
            progress.clear()
            n_warned += bool(res.warnings)
            if report is not None:
                n_changed += _check_file(report, res, args)
                if res.status == INTERNAL_ERROR:
                    n_internal += 1
                elif res.status != OK:
                    n_input_err += 1
            elif res.status != OK:
                print(res.error, file=sys.stderr)
                if res.status == INTERNAL_ERROR:
                    n_internal += 1
                else:
                    n_input_err += 1
                if args.json:
                    docs.append({"path": res.path, "error": res.error})
            else:
                if res.changed:
                    n_changed += 1
                try:
                    if targets[i] is not None:
                        os.makedirs(os.path.dirname(targets[i]) or ".", exist_ok=True)
                        write_atomic(targets[i], res.text)
                    elif args.in_place and res.changed:
                        write_atomic(files[i][0], res.text, res.identity)
                except (OSError, UsageError) as e:
                    print(printable(f"tilemem: error: {e}"), file=sys.stderr)
                    n_input_err += 1
                if args.json:
                    doc = res.json
                    if args.diff:
                        doc = dict(doc, diff=unified_diff(res.source, res.text, res.path)
                                   if res.changed else "")
                    docs.append(doc)
                elif args.diff and res.changed:
                    sys.stdout.write(st.diff(unified_diff(res.source, res.text, res.path)))
                print_warnings(res.warnings, args)
            if args.verbose:
                state = ("failed" if res.status != OK else
                         ("would change" if args.check else "changed") if res.changed else "unchanged")
                print(f"tilemem: {res.path}: {state} ({res.seconds:.2f}s)", file=sys.stderr)
            sys.stdout.flush()
            progress.update(i + 1, files[i][0])
    finally:
        progress.clear()                 # also before "interrupted"
    n_failed = n_input_err + n_internal
    elapsed = time.perf_counter() - t0
    summary = {"files": len(files), "changed": n_changed, "failed": n_failed}
    if report is not None:
        report.finish(summary)
    if args.json:
        print(json.dumps({"schema": BATCH_SCHEMA, "files": docs, "summary": summary}, indent=2))
    if not args.quiet:
        word = "would change" if args.check else "changed"
        rate = f", {len(files) / elapsed:.1f} files/s" if elapsed > 0 and files else ""
        print(f"tilemem: {len(files)} file{'s' if len(files) != 1 else ''}, {n_changed} {word}, "
              f"{n_failed} failed, {elapsed:.1f}s{rate}", file=sys.stderr)
    if n_internal:
        return EXIT_INTERNAL
    if n_input_err or problems:
        return EXIT_INPUT
    if args.check and n_changed:
        return EXIT_CHECK
    if args.strict and n_warned:
        return EXIT_CHECK
    return EXIT_OK
