"""The residency verdict of phase 4 on a tile's statement, in words: hoisted out of
its loop with the evidence that made it legal (rules/p4_residency/evidence.dl), or kept in it
with each refusal, most fundamental first; without a backend, that residency needs
one."""
from __future__ import annotations

import weakref

from tilemem.explain.names import program_vars
from tilemem.explain.reasons import reason
from tilemem.explain.rendering import Answer

#: session -> the (function, var) of every load carrying the compiler's Mat-bridge mark
#: (found once a session: a kernel's every answer asks)
_MARKED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _bridge_marked(ses) -> set:
    found = _MARKED.get(ses)
    if found is None:
        from tilemem.residency.facts import bridge_marks
        lines = {line for line, _ in bridge_marks(ses.program)}
        found = _MARKED[ses] = {(f, n) for f, n, _, line in program_vars(ses.program) if line in lines}
    return found


def residency_notes(ses, vid: str) -> tuple[list[str], list[dict]]:
    """The residency verdict on the statement defining ``vid``, in words (one line per
    reason: a refusal's, most fundamental first, or a hoist's evidence) and as data."""
    fn, _, name = vid.partition(":")
    if ses.backend is None:
        if (fn, name) in _bridge_marked(ses):
            return ["Residency: not hoisted: residency needs a backend (give `--backend`); "
                    "this load carries the compiler's Mat-bridge mark."], []
        return [], []
    out, data = [], []
    for d in ses.residency or ():
        if d.function != fn or d.var != name:
            continue
        data.append(d.to_dict())
        loop = f"the loop at line {d.loop_line}" if d.loop_line else "its loop"
        if d.hoisted:
            evidence = hoist_evidence(ses, vid)
            out.append(f"Residency ({ses.backend}): hoisted out of {loop}"
                       + (", because:" if evidence else "."))
            out.extend(f"  - {e}" for e in evidence)
            continue
        n = len(d.refusals)
        out.append(f"Residency ({ses.backend}): stays in {loop}"
                   + (f", for {n} reasons, most fundamental first:" if n > 1 else ":"))
        out.extend(f"  {i}. {r.reason}" for i, r in enumerate(d.refusals, 1))
        if d.fix:
            out.append(f"  To hoist it: {d.fix}.")
    return out, data


def hoist_evidence(ses, vid: str) -> list[str]:
    """The evidence that made the hoist of ``vid``'s statement legal, in the words of
    the rules that found it (rules/p4_residency/evidence.dl), in the order they are written."""
    x = ses.phase4()
    if x is None or "hoist_evidence" not in x.rules.predicates:
        return []
    names = ses.names(x)
    names = names.about(vid.partition(":")[0])
    found = []
    for pos, _, _ in x.rel.match("residency_hoisted", (None, vid, None)):
        for row in x.rel.match("hoist_evidence", (pos, None)):
            node = x.explain("hoist_evidence", row)
            r = reason(node, names)
            if r is not None and not r.missing:
                found.append((node.rule.line, r.text[0].upper() + r.text[1:] + "."))
    return [text for _, text in sorted(found)]


def add_residency(ses, ans: Answer, vid: str) -> None:
    notes, data = residency_notes(ses, vid)
    ans.notes.extend(notes)
    if ses.backend is not None:
        ans.data["residency"] = data
        for t in ses.explain_residency(vid):
            verdict = "hoisted out of its loop" if t.pred == "residency_hoisted" else "kept in its loop"
            ans.trees.append((f"residency ({ses.backend}): {verdict}:", t))
