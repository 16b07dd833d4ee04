"""``tilemem why``: the proof tree of a tile's memory space, a why-not, or any fact's proof."""
import json
import sys

from tilemem.datalog.syntax import parse_query

from tilemem.commands.common import EXIT_OK, add_inputs, add_parser, read_arg, wrap

SPACES = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "DDR")


def register(sub):
    p = add_parser(sub, "why", help="explain why a tile is in its memory space (proof tree)",
                   description=wrap(
                       "Print the proof tree of VAR's memory space: each step is a fact, the "
                       "rule that derived it (file:line and its comment) and its premises, down "
                       "to the facts of your program (with their source lines) and of the op "
                       "table. With --not SPACE: why VAR is not in SPACE (each rule that could "
                       "put it there and the premise that fails). With a backend, a load or move "
                       "that residency considered also gets the tree of its verdict (hoisted out "
                       "of its loop, or declined). VAR may also be the name of an inserted move "
                       "(the tree of the move_at fact that inserted it), or any fact or pattern, "
                       "e.g. 'move_at(P, \"kernel:a\", T)'."))
    add_inputs(p, many=False)
    p.add_argument("var", metavar="VAR",
                   help="a tile var (name or function:name), an inserted move, or a fact pattern")
    p.add_argument("--not", dest="not_space", metavar="SPACE",
                   help="explain why VAR is NOT in SPACE (Vec, Mat, Left, Right, Acc, Bias)")
    p.add_argument("--function", metavar="F", help="the InCore function VAR belongs to")
    p.add_argument("--backend", default=None, help="as for solve (enables the residency verdict)")
    p.add_argument("--rules", action="append", metavar="FILE", help="an extra rule file; repeatable")
    p.add_argument("--depth", type=int, default=None, metavar="N",
                   help="show trees only N levels deep (default: whole trees; why-not: 3)")
    p.add_argument("--ascii", action="store_true", help="draw trees with ASCII characters only")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(func=run)


def _space_name(s: str) -> str:
    from tilemem.errors import UsageError
    name = s.split(".")[-1]
    for sp in SPACES:
        if sp.lower() == name.lower():
            return sp
    raise UsageError(f"unknown memory space '{s}' (one of: {', '.join(SPACES)})")


def _ascii(args) -> bool:
    if args.ascii:
        return True
    enc = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    try:
        "├─└│✓✗".encode(enc)
    except (LookupError, UnicodeEncodeError):
        return True
    return False


def run(args) -> int:
    from tilemem.errors import UsageError
    from tilemem.explain import ExplainError, Session
    text, path = read_arg(args)
    ses = Session.from_text(text, path, backend=args.backend, rules=args.rules or ())
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    asc = _ascii(args)
    out: list[str] = []
    data: dict = {"schema": "tilemem-why/1", "path": path}
    with ses:
        data["backend"] = ses.backend
        try:
            if "(" in args.var:
                if args.not_space:
                    raise UsageError("--not takes a var, not a fact pattern")
                data["query"] = args.var
                answer = ses.why(args.var)
                _answer(answer, out, data, args, asc)
            elif args.not_space:
                space = _space_name(args.not_space)
                vid = ses.resolve_var(args.var, args.function)
                data.update(var=vid, space_asked=space)
                wn = ses.why_not_var(vid, space)
                data["why_not"] = wn.to_dict()
                out.append(wn.render(args.depth or 3, asc))
            else:
                _explain_var(ses, args, out, data, asc)
        except ExplainError as e:
            raise UsageError(str(e)) from None
    if args.json:
        sys.stdout.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join(out).rstrip("\n") + "\n")
    return EXIT_OK


def _answer(answer, out, data, args, asc):
    from tilemem.explain import WhyNot
    if isinstance(answer, WhyNot):
        data["why_not"] = answer.to_dict()
        out.append(answer.render(args.depth or 3, asc))
    else:
        data["proofs"] = [t.to_dict() for t in answer]
        for t in answer:
            out.append(t.render(args.depth, asc))
            out.append("")


def _explain_var(ses, args, out, data, asc):
    from tilemem.explain import ExplainError, WhyNot
    name = args.var
    try:
        vid = ses.resolve_var(name, args.function)
    except ExplainError:
        m = ses.move_of(name, args.function)
        if m is None:
            raise
        vid = f"{m.function}:{m.name}"
        data.update(var=vid, move={"producer": m.producer, "target": m.target,
                                   "consumer_line": m.consumer_line})
        tree = ses.explain_move(m)
        out.append(f"{m.name} is a tile.move of {m.producer} to {m.target} inserted by the pass "
                   f"(before line {m.consumer_line}); it exists because:")
        out.append(tree.render(args.depth, asc))
        data["proof"] = tree.to_dict()
        _residency(ses, vid, out, data, args, asc)
        return
    data["var"] = vid
    answer = ses.explain_var(vid)
    if isinstance(answer, WhyNot):
        data["space"] = None
        data["why_not"] = answer.to_dict()
        out.append(f"{vid} has no memory space: the rules leave it unresolved.")
        out.append(answer.render(args.depth, asc))
    else:
        data["space"] = answer.row[1]
        data["proof"] = answer.to_dict()
        out.append(answer.render(args.depth, asc))
    _contract(ses, vid, out, data, args, asc)
    _residency(ses, vid, out, data, args, asc)


def _contract(ses, vid, out, data, args, asc):
    """Where PyPTO's answer leaves VAR outside the spaces its consumer accepts (the
    warning of ``tilemem solve``), with the proof of each contract_break fact."""
    from tilemem.infer.contract import ContractBreak
    x = ses.phase3()
    trees = x.explain_pattern(parse_query(f"contract_break(P, I, {json.dumps(vid)}, Op, S, R)"))
    if not trees:
        return
    data["contract_breaks"] = []
    for t in trees:
        p, slot, _, op, space, reason = t.row
        line = x.source.stmt_line(p) if x.source is not None else None
        b = ContractBreak(vid.split(":", 1)[0], vid.split(":", 1)[1], op, slot, space, reason,
                          line, None)
        data["contract_breaks"].append(dict(line=line, message=b.message, proof=t.to_dict()))
        out.append("")
        out.append(f"warning (line {line}): {b.message}:")
        out.append(t.render(args.depth, asc))


def _residency(ses, vid, out, data, args, asc):
    if ses.backend is None:
        return
    trees = ses.explain_residency(vid)
    data["residency"] = [t.to_dict() for t in trees]
    for t in trees:
        verdict = "hoisted out of its loop" if t.pred == "residency_hoisted" else \
            f"kept in its loop ({t.row[3]})"
        out.append("")
        out.append(f"residency ({ses.backend}): {vid.split(':', 1)[1]} is {verdict}:")
        out.append(t.render(args.depth, asc))
