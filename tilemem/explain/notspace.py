"""Why a tile var is not in a memory space (``tilemem why VAR --not SPACE``): the space
it is in and why, then the rule that would have put it in SPACE and the one fact of
this program that prevents it, in the pass's words."""
from __future__ import annotations

from typing import Optional

from tilemem.datalog import Atom, Negation, Var
from tilemem.explain.names import Names
from tilemem.explain.nodes import _rule_loc
from tilemem.explain.paragraph import deciding_path, reasoned_clauses, value_sentence, why_not_sentence
from tilemem.explain.reasons import reason, rule_reason
from tilemem.explain.rendering import Answer

def answer_not(ses, var: str, space: str, function: Optional[str] = None,
               depth: int = 3) -> Answer:
    """Why a tile var is not in ``space``: what it is in instead, and the rules that
    could have put it there with the premise each fails on (facts of its function only)."""
    vid = ses.resolve_var(var, function)
    x = ses.phase3()
    names = ses.names(x)
    fn = vid.partition(":")[0]
    shown = names.subject(vid)
    wn = x.why_not("space", (vid, space), depth=depth, functions=x.scope.around(fn))
    rows = list(x.rel.match("space", (vid, None)))
    if wn.holds:
        text = f"{shown} is in {space}."
        steps = []
    else:
        actual, first = "", None
        names = names.about(fn)
        if rows:
            tree = x.explain("space", rows[0])
            sen = value_sentence(shown, rows[0][1], tree, 1, names, clauses_max=1)
            actual = " " + sen.text
            first = next(iter(reasoned_clauses(deciding_path(tree, 1), names)), None)
        would = _would_put(ses, x, vid, space, names, first)
        if would is not None:
            text, steps = f"{shown} is not in {space}:{actual} {would}", []
        else:
            why, steps = why_not_sentence(shown, wn, names)
            text = f"{shown} is not in {space}:{actual} For {space}, {why}"
    return Answer(f"why {vid} --not {space}", text, steps, trees=[("", wn)],
                  data={"var": vid, "space_asked": space, "why_not": wn.to_dict()})


def _would_put(ses, x, vid: str, space: str, names: Names, actual) -> Optional[str]:
    """Which rule would have written ``space`` at the site that decides ``vid`` and the
    one fact of this program that prevents it, in words; None when no rule that could
    says why in words (the caller falls back to the why-not chain)."""
    sites = [q for _, q in x.rel.match("site", (vid, None))]
    if not sites:
        return None
    fn = vid.partition(":")[0]
    wn = x.why_not("space_written", (vid, max(sites), space), depth=3,
                   functions=x.scope.around(fn))
    def on_the_space(c) -> bool:
        """The rule fails only where it names the space: in all else it fits the var."""
        head_space = c.rule.head.args[2]
        return isinstance(c.failed, (Atom, Negation)) and isinstance(head_space, Var) and \
            head_space.name in (c.failed.names() if hasattr(c.failed, "names") else set())
    for c in [c for c in wn.candidates if on_the_space(c)]:
        env = {**c.head_env, **c.env}
        would = rule_reason(c.rule, env, names)
        if would is None:
            continue
        block = _blocking_words(c, names) or (actual.text if actual is not None else None)
        if block is None:
            continue
        return (f"For {space}, the pass would need: “{would}” ({_rule_loc(c.rule)}); "
                f"here instead, {block}.")
    if actual is not None:
        return (f"No rule of the pass gives {space} to a tile defined as `{names.var(vid)}` "
                f"is; here, {actual.text}.")
    return None


def _blocking_words(c, names: Names, depth: int = 2) -> Optional[str]:
    """The fact of the program that stops candidate rule ``c``, in words: the reason of
    what holds in its place (a near miss, a fact a negation finds), else the same for
    the rule below that got furthest."""
    for node in [*c.near, *c.blocking]:
        r = reason(node, names) if node.kind == "derived" else None
        if r is not None and not r.missing:
            return r.text
    if depth > 1 and c.sub is not None and c.sub.candidates:
        return _blocking_words(c.sub.candidates[0], names, depth - 1)
    return None
