"""``tilemem solve``: annotate a program with memory spaces and moves.

One file: print (or ``-o``/``--in-place`` write) the solved program, or its diff
(``--diff``), or check it is already solved (``--check``), or the solution as JSON
(``--json``).  Several files or a directory: the same per file, as a batch
(``--out-dir``, ``-j``), with a progress bar on a terminal and a summary line.
"""
import os
import sys
import time

from tilemem.commands.common import EXIT_CHECK, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, add_parser, emit

def _wrap(text: str) -> str:
    import textwrap
    return textwrap.fill(text, 79, break_on_hyphens=False)


def register(sub):
    p = add_parser(
        sub, "solve", help="annotate a program with memory spaces and moves",
        description=_wrap("Print the program with every tile's memory space inferred and tile.move "
                    "inserted where producer and consumer disagree. With several files or a "
                    "directory (every *.pto under it, recursively) it runs as a batch: use "
                    "--out-dir, --in-place, --check, --diff or --json."))
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="program text (PyPTO's printed @pl.program), - for stdin, or a directory")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout (one input only)")
    p.add_argument("--backend", default=None,
                   help="none (default), 910B / Ascend910B, 950 / Ascend950 (any case)")
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="an extra rule file (e.g. op-table facts for your own ops); repeatable")
    p.add_argument("--engine", choices=("pydatalog", "clingo"), default=None,
                   help="Datalog engine: pydatalog (default, the reference) or clingo (much "
                        "faster on large programs; pip install 'tilemem[fast]'); same result")
    out = p.add_argument_group("what to do with the result")
    out.add_argument("--diff", action="store_true",
                     help="print a unified diff of input vs solved program instead of the program")
    out.add_argument("--check", action="store_true",
                     help="write nothing; exit 1 (printing the diff) when solving would change a file")
    out.add_argument("-i", "--in-place", action="store_true",
                     help="rewrite each input file atomically (only files that change)")
    out.add_argument("--report", action="store_true",
                     help="also print, on stderr, the residency verdict of every marked Mat load "
                          "and chain step in a loop: hoisted, or the rule that refused it "
                          "(needs --backend)")
    out.add_argument("--json", action="store_true",
                     help="print the solution as JSON (spaces, moves, residency; schema in README)")
    out.add_argument("--out-dir", metavar="DIR",
                     help="write each solved file under DIR, mirroring the inputs' tree (batch)")
    bat = p.add_argument_group("batch")
    bat.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                     help="solve with N worker processes (0: one per CPU); results stay in input order")
    bat.add_argument("-q", "--quiet", action="store_true",
                     help="no progress bar and no summary line")
    p.set_defaults(func=run)


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
    if batch and not (args.out_dir or args.in_place or args.check or args.diff or args.json):
        raise UsageError("several inputs: say what to do with the results "
                         "(--out-dir DIR, --in-place, --check, --diff or --json)")


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


def _run_one(args, path_arg: str) -> int:
    import json
    from tilemem.api import solve
    from tilemem.tools.batch import is_changed, solution_json, unified_diff, with_newline
    from tilemem.commands.common import read_input, write_atomic
    text, path = read_input(path_arg)
    sol = solve(text, backend=args.backend, rules=args.rules or (), path=path, engine=args.engine)
    out = with_newline(sol.text)
    changed = is_changed(text, out)
    if args.in_place and changed:
        write_atomic(path_arg, out)
    if args.json:
        emit(json.dumps(solution_json(sol, path, changed), indent=2), args.output)
    elif args.diff or args.check:
        if changed:
            emit(unified_diff(text, out, path), args.output)
    elif not args.in_place:
        emit(out, args.output)
    if args.report:
        print_report(sol, path)
    if args.check and changed:
        print(f"{path}: solving would change this file", file=sys.stderr)
        return EXIT_CHECK
    return EXIT_OK


def print_report(sol, path: str) -> None:
    """The residency verdicts, one per line, compiler-note style, on stderr."""
    if sol.residency is None:
        print(f"{path}: note: no residency report: no backend configured (use --backend)",
              file=sys.stderr)
        return
    if not sol.residency:
        print(f"{path}: note: no marked Mat load inside a loop", file=sys.stderr)
    for d in sol.residency:
        print(f"{path}:{d.line or 0}: note: {d.function}: {d.var}: {d.reason}", file=sys.stderr)


def _run_batch(args) -> int:
    import json
    from tilemem.backends import normalize_backend
    from tilemem.tools.batch import (BATCH_SCHEMA, INTERNAL_ERROR, OK, Progress, expand_inputs, output_paths,
                         run_batch, unified_diff)
    from tilemem.errors import UsageError
    from tilemem.infer.solver import load_rules
    from tilemem.commands.common import write_atomic

    t0 = time.perf_counter()
    backend = normalize_backend(args.backend)        # a bad backend or rule file fails once,
    rules = tuple(args.rules or ())                  # before any work is done
    load_rules(rules)
    files, problems = expand_inputs(args.files, exclude=args.out_dir)
    for msg in problems:
        print(msg, file=sys.stderr)
    targets = output_paths(files, args.out_dir) if args.out_dir else [None] * len(files)
    jobs = args.jobs or os.cpu_count() or 1

    progress = Progress(len(files), enabled=None if not args.quiet else False)
    n_changed = n_input_err = n_internal = 0
    docs = []
    for i, res in enumerate(run_batch([p for p, _ in files], backend, rules, args.json, jobs,
                                     engine=args.engine)):
        progress.clear()
        if res.status != OK:
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
                    write_atomic(files[i][0], res.text)
            except (OSError, UsageError) as e:
                print(f"tilemem: error: {e}", file=sys.stderr)
                n_input_err += 1
            if args.json:
                docs.append(res.json)
            elif (args.diff or args.check) and res.changed:
                sys.stdout.write(unified_diff(res.source, res.text, res.path))
            if args.check and res.changed:
                print(f"{res.path}: solving would change this file", file=sys.stderr)
        sys.stdout.flush()
        progress.update(i + 1, files[i][0])
    progress.clear()
    n_failed = n_input_err + n_internal
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"schema": BATCH_SCHEMA, "files": docs,
                          "summary": {"files": len(files), "changed": n_changed,
                                      "failed": n_failed}}, indent=2))
    if not args.quiet:
        word = "would change" if args.check else "changed"
        print(f"tilemem: {len(files)} file{'s' if len(files) != 1 else ''}, {n_changed} {word}, "
              f"{n_failed} failed, {elapsed:.1f}s", file=sys.stderr)
    if n_internal:
        return EXIT_INTERNAL
    if n_input_err or problems:
        return EXIT_INPUT
    if args.check and n_changed:
        return EXIT_CHECK
    return EXIT_OK
