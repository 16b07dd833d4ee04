"""Why a tile var is in its space (:func:`answer_var`), why the pass inserted a move
(:func:`answer_move`), and what a name that is no tile of an InCore function is
(:func:`not_a_tile`): the paragraph of the deciding path, the warnings where PyPTO's
answer breaks a consumer's contract, the moves and the residency verdict as notes."""
from __future__ import annotations

from typing import Optional

from tilemem.explain.names import program_vars
from tilemem.explain.nodes import ExplainError
from tilemem.explain.paragraph import Sentence, value_sentence, why_not_sentence
from tilemem.explain.rendering import Answer
from tilemem.explain.residency_notes import add_residency
from tilemem.ir.optable import op_table

def not_a_tile(ses, var: str, function: Optional[str]) -> Optional[Answer]:
    """The answer for a name that is no tile var of an InCore function (a tensor, a
    scalar, a var of an orchestration function), or None when it is none of those."""
    if ":" in var and function is None:
        function, var = var.split(":", 1)
    hits = [(f, n, t, l) for f, n, t, l in program_vars(ses.program)
            if n == var and (function is None or f == function)]
    if not hits:
        return None
    fns = {f: ses.program.function(f) for f, *_ in hits}
    if len(fns) > 1:
        return None                 # ambiguous: resolve_var says so
    f, n, t, line = hits[0]
    from tilemem.ir import type_kind
    kind = type_kind(t)
    where = f"`{n}` ({f}, line {line})" if line else f"`{n}` ({f})"
    if kind in ("tensor", "scalar"):
        text = (f"{where} is a {kind}: memory spaces are decided for tiles only "
                f"(tensors live in global memory, scalars in registers).")
    elif not fns[f].is_incore:
        kind_of = str(fns[f].func_type)
        article = "an" if kind_of[:1].upper() in "AEIOU" else "a"
        text = (f"{where} belongs to `{f}`, {article} {kind_of} function: memory spaces are "
                f"decided for the tiles of InCore functions only.")
    else:
        return None
    ans = Answer(f"why {var}", text, data={"var": f"{f}:{n}", "space": None, "kind": kind or "other"})
    if kind not in ("tensor", "scalar"):
        add_residency(ses, ans, f"{f}:{n}")    # residency still reports on its marked loads
    return ans


def answer_var(ses, var: str, function: Optional[str] = None) -> Answer:
    """Why a tile var is in its space (or an inserted move exists, or why it has none)."""
    try:
        vid = ses.resolve_var(var, function)
    except ExplainError:
        m = ses.move_of(var, function)
        if m is not None:
            return answer_move(ses, m)
        other = not_a_tile(ses, var, function)
        if other is not None:
            return other
        raise
    x = ses.phase3()
    names = ses.names(x)
    fn, _, name = vid.partition(":")
    shown = names.subject(vid)
    names = names.about(fn)
    kind = ses.var_kind(vid)
    if kind in ("tensor", "scalar") and not x.rel.match("space", (vid, None)):
        other = not_a_tile(ses, vid, None)
        if other is not None:
            return other
    own = own_sentence(x, vid, shown, names)
    if own is not None:
        sen, tree, space = own
        ans = Answer(f"why {vid}", sen.text, sen.steps, trees=[("", tree)],
                     data={"var": vid, "space": space, "line": sen.line, "proof": tree})
        _mark_fallback(ans, sen)
    else:
        wn = x.why_not("space", (vid, None), depth=3, functions=x.scope.around(fn))
        _, steps = why_not_sentence(shown, wn, names)
        ans = Answer(f"why {vid}", f"{shown} has no memory space: {NO_SITE}", steps,
                     trees=[("", wn)], data={"var": vid, "space": None, "why_not": wn})
    _add_contract_breaks(ses, ans, vid)
    for m in ses.moves:
        if m.function == fn and m.producer == name:
            ans.notes.append(f"The pass inserts a copy in {m.target} before line "
                             f"{m.consumer_line}: `{m.name}`.")
    add_residency(ses, ans, vid)
    return ans


#: what an answer says of a tile var the rules give neither a space nor a "none" (the
#: rules tried are in its --tree)
NO_SITE = ("the pass resolves none of its write sites, so it is in no memory space "
           "(the rules that were tried: --tree).")


def own_sentence(x, vid: str, shown: str, names, clauses_max: int = 3
                 ) -> Optional[tuple[Sentence, object, Optional[str]]]:
    """(sentence, proof, space) of why tile var ``vid`` is in its space, or has none
    (space None: the last write of the var records "none", from the rule that wrote
    it); None when the rules derive neither."""
    rows = list(x.rel.match("space", (vid, None)))
    if rows:
        tree = x.explain("space", rows[0])
        return value_sentence(shown, rows[0][1], tree, 1, names, clauses_max=clauses_max), tree, rows[0][1]
    last = _unresolved_site(x, vid)
    if last is None:
        return None
    tree = x.explain("space_written", last)
    sen = value_sentence(shown, "", tree, 2, names, verb="has no memory space", clauses_max=clauses_max)
    return sen, tree, None


def _unresolved_site(x, vid: str) -> Optional[tuple]:
    """The ``space_written`` row of the last write site of ``vid`` when it records "none" (the
    var is unresolved because of it), else None."""
    sites = [q for _, q in x.rel.match("site", (vid, None))]
    if not sites:
        return None
    row = (vid, max(sites), "none")
    return row if x.holds("space_written", row) else None


def _mark_fallback(ans: Answer, sen: "Sentence") -> None:
    """Say in the answer's data when no rule on its path gave a reason (the paragraph is
    made of rule comments) or a reason's template left a slot unfilled."""
    if sen.fallback:
        ans.data["fallback"] = True
    if sen.missing:
        ans.data["unfilled"] = sen.missing


def answer_move(ses, m) -> Answer:
    """Why the pass inserted move ``m``: the deciding path of its ``move_at`` fact."""
    tree = ses.explain_move(m)
    names = ses.names(ses.phase3())
    names = names.about(m.function)
    text, steps, line = value_sentence(names.subject(f"{m.function}:{m.name}"), f"a {op_table().inserted_move} of `{m.producer}` to {m.target}",
                                       tree, 2, names, verb="is", because=", inserted before")
    producer = f"{m.function}:{m.producer}"
    own = next((n for n in tree.walk() if n.kind == "derived" and n.pred == "space"
                and n.row[0] == producer), None)
    if own is not None:
        why_own, _, _ = value_sentence(names.subject(producer), own.row[1], own, 1, names)
        text += " " + why_own
    vid = f"{m.function}:{m.name}"
    ans = Answer(f"why {m.name}", text, steps, trees=[("", tree)],
                 data={"var": vid, "move": {"producer": m.producer, "target": m.target,
                                            "consumer_line": m.consumer_line},
                       "proof": tree})
    add_residency(ses, ans, vid)
    return ans


def _add_contract_breaks(ses, ans: Answer, vid: str) -> None:
    """Where PyPTO's answer leaves the var outside the spaces its consumer accepts (the
    warning of ``tilemem solve``): a note, and the proof of each contract_break fact."""
    import json
    from tilemem.datalog import parse_query
    from tilemem.infer.contract import ContractBreak
    x = ses.phase3()
    if "contract_break" not in x.rules.predicates:
        return
    trees = x.explain_pattern(parse_query(f"contract_break(P, I, {json.dumps(vid)}, Op, S, R)"))
    breaks = []
    fn, _, name = vid.partition(":")
    for t in trees:
        p, slot, _, op, space, reason = t.row
        line = x.source.stmt_line(p) if x.source is not None else None
        b = ContractBreak(fn, name, op, slot, space, reason, line, None)
        breaks.append(dict(line=line, message=b.message, proof=t))
        ans.notes.append(f"Warning (line {line}): {b.message}.")
        ans.trees.append((f"warning (line {line}): {b.message}:", t))
    if breaks:
        ans.data["contract_breaks"] = breaks
