"""``tilemem why``: the proof tree of a tile's memory space, a why-not, or any fact's proof."""
import json
import sys

from tilemem.commands.common import EXIT_OK, add_cache_options, add_inputs, add_parser, read_arg, \
    reading_form, result_cache, wrap, add_reading_options

WIDTH = 100              # tilemem.explain.answer.WIDTH (not imported: help stays fast)


def register(sub):
    p = add_parser(sub, "why", help="explain why a tile is in its memory space (proof tree)",
                   description=wrap(
                       "Say why VAR is in its memory space: a paragraph derived from the proof "
                       "(the line of your program that decides it and the rule that applies), "
                       "then the few proof steps that decide it; --tree (or --depth N) prints "
                       "the whole proof tree: each step a fact, the rule that derived it "
                       "(file:line and its comment) and its premises, down to the facts of your "
                       "program (with their source lines) and of the op table. With --not SPACE: "
                       "why VAR is not in SPACE (each rule that could put it there and the "
                       "premise that fails, facts of VAR's function only). With a backend, a "
                       "load or move that residency considered also gets its verdict: hoisted "
                       "out of its loop, or every refusal, most fundamental first, and what "
                       "would make it legal. VAR may also be the name of an inserted move (why "
                       "the pass inserted it), or any fact or pattern, e.g. "
                       "'move_at(P, \"kernel:a\", T)'. A tensor or scalar is said to be one: "
                       "memory spaces are decided for tiles only."))
    add_inputs(p, many=False)
    p.add_argument("var", metavar="VAR", nargs="?",
                   help="a tile var (name or function:name), an inserted move, a line (12, or "
                        "12:8 with its column: every tile defined, moved or hoisted there; "
                        "FILE:12 and FILE:12:8 say the same), or a fact pattern")
    p.add_argument("--not", dest="not_space", metavar="SPACE",
                   help="explain why VAR is NOT in SPACE (Vec, Mat, Left, Right, Acc, Bias)")
    p.add_argument("--function", metavar="F", help="the InCore function VAR belongs to")
    p.add_argument("--backend", default=None, help="as for solve (enables the residency verdict)")
    p.add_argument("--rules", action="append", metavar="FILE", help="an extra rule file; repeatable")
    p.add_argument("--tree", action="store_true",
                   help="after the answer, print the whole proof tree(s) instead of the deciding steps")
    p.add_argument("--depth", type=int, default=None, metavar="N",
                   help="print the trees N levels deep (implies --tree; why-not: 3 by default)")
    p.add_argument("--width", type=int, default=None, metavar="N",
                   help=f"wrap the answer and elide longer lines in the middle at N columns "
                        f"(default {WIDTH}; 0: no limit)")
    p.add_argument("--ascii", action="store_true", help="draw trees with ASCII characters only")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    add_reading_options(p)
    add_cache_options(p)
    p.set_defaults(func=run)


def _ascii(args) -> bool:
    if args.ascii:
        return True
    enc = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    try:
        "├─└│✓✗".encode(enc)
    except (LookupError, UnicodeEncodeError):
        return True
    return False


def _position_in_file(args) -> None:
    """``FILE:LINE`` or ``FILE:LINE:COL`` (an editor's or a compiler's way to name a
    place) for ``FILE LINE[:COL]``: splits the position off the file argument."""
    import os
    import re
    from tilemem.errors import UsageError
    m = re.match(r"^(.*?):(\d+)(?::(\d+))?$", args.file or "")
    if m and not os.path.exists(args.file) and (os.path.exists(m.group(1)) or m.group(1) == "-"):
        if args.var is not None:
            raise UsageError(f"{args.file} names a line: give it, or VAR, not both")
        args.file, args.var = m.group(1), m.group(2) + (f":{m.group(3)}" if m.group(3) else "")
    if args.var is None:
        raise UsageError("why needs VAR (a tile var, a line, or a fact pattern) or FILE:LINE")


def run(args) -> int:
    from tilemem.errors import UsageError
    _position_in_file(args)
    text, path = read_arg(args)
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    if args.width is not None and args.width < 0:
        raise UsageError("--width must be 0 (no limit) or more")
    width = None if args.width == 0 else (args.width or WIDTH)
    asc = _ascii(args)
    cache = result_cache(args)
    key = None
    if cache is not None:
        import os
        from tilemem.limits import current_limits
        from tilemem.resultcache import result_key
        key = result_key("why", text, path, args.rules or (), backend=args.backend,
                         form=reading_form(args), program=args.program, var=args.var,
                         not_space=args.not_space, function=args.function, tree=args.tree,
                         depth=args.depth, width=width, ascii=asc, json=args.json,
                         limits=repr(current_limits()),
                         engine=os.environ.get("TILEMEM_ENGINE") or "default")
        got = cache.get(key)
        if isinstance(got, str):
            sys.stdout.write(got)
            return EXIT_OK
    out = _answer(args, text, path, width, asc)
    if key is not None:
        cache.put(key, out)
    sys.stdout.write(out)
    return EXIT_OK


def _answer(args, text: str, path: str, width, asc: bool) -> str:
    """What ``tilemem why`` prints for the program ``text``."""
    from tilemem.frontend.check.alongside import checks_alongside
    # a large program's printed-IR check on a spare core while it is explained (its error,
    # if any, is the answer: tilemem.frontend.check.alongside)
    with checks_alongside():
        return _explained(args, text, path, width, asc)


def _explained(args, text: str, path: str, width, asc: bool) -> str:
    """:func:`_answer`'s text, the program read and explained."""
    from tilemem.errors import UsageError
    from tilemem.explain import ExplainError, Session
    from tilemem.explain.answer import answer_not, answer_subject, parse_position, space_name
    ses = Session.from_text(text, path, backend=args.backend, rules=args.rules or (),
                            form=reading_form(args), program=args.program)
    data: dict = {"schema": "tilemem-why/2", "path": path,
                  "reading": ses.pipeline.program.reading}
    with ses:
        data["backend"] = ses.backend
        try:
            if args.not_space:
                if "(" in args.var or parse_position(args.var) is not None:
                    raise UsageError("--not takes a var, not a line or a fact pattern")
                ans = answer_not(ses, args.var, space_name(args.not_space), args.function,
                                 depth=args.depth or 3)
            else:
                ans = answer_subject(ses, args.var, args.function)
            rendered = ans.render(width, asc, tree=args.tree, depth=args.depth)
            if args.json:
                data.update(ans.to_dict())
                data["residency_proofs"] = [t.to_dict() for title, t in ans.trees
                                            if title.startswith("residency")]
        except ExplainError as e:
            raise UsageError(str(e)) from None
    if args.json:
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    return rendered.rstrip("\n") + "\n"
